/**
 * Validates a capability's config value against its plugin's configSchema with ajv (the
 * schema's own dialect, all errors, standard formats, no coercion), fills in the schema's
 * `default`s for what the agent left out, and maps each error to the agent.md line of the
 * offending key or value.
 */
import type { ErrorObject, Options, ValidateFunction } from "ajv";
import { createAjv, withCanonicalSchemaUri, type AjvInstance, type SchemaDialect } from "../../contract/ajv.js";
import { dedupeDiagnostics, createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { childPointer, pointerToSegmentsIn, valueAtPointer } from "../../common/json-pointer.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { keepClosestBranches } from "../../diagnostics/closest-branch.js";
import { schemaErrorHint, schemaErrorReason, schemaErrorTarget } from "../../diagnostics/schema-error-words.js";
import { cloneJson, isJsonObject, type JsonObject } from "../../common/json-value.js";
import { canonicalJsonText } from "../../common/canonical-json.js";
import { locateValue, type LocatedValue } from "../model.js";
import { didYouMean } from "../../common/did-you-mean.js";
import { selectDialect } from "../validation/json-schema.js";
import { acceptedWithoutAjv } from "../validation/schema-judge.js";
import { ValidatorsByContent } from "../../contract/validators-by-content.js";

/**
 * ownProperties: a config key named like an Object.prototype member ('valueOf', 'toString') is
 * present only when the agent wrote it. addUsedSchema: `$ref: "#"` resolves only through the
 * schema registered under `""` (removed again after each compile). No code optimisation, as in
 * the compile-time ajv (`../validation/schema-judge.ts`): a validator here checks one value or a
 * few, and ajv's optimisation passes over the generated code cost more than they save (issue 14:
 * about 0.4 ms a configSchema in a compile of 1,000 plugins, docs/performance.md "Twelfth round").
 */
const CONFIG_AJV_OPTIONS: Options = { strict: false, allErrors: true, addUsedSchema: true, ownProperties: true, coerceTypes: false, useDefaults: true, code: { optimize: false } };

/**
 * The same options without ajv's own meta-schema check, for a schema the precheck already proved
 * valid (`acceptedWithoutAjv`, `../validation/schema-judge.ts`): ajv's check compiles the
 * dialect's meta-schema into validator code first, about 45 ms of every compile whose agent
 * configures a plugin (issue 14). Any other schema keeps the check, so a schema ajv refuses
 * still gets no validator.
 */
const PROVEN_SCHEMA_AJV_OPTIONS: Options = { ...CONFIG_AJV_OPTIONS, validateSchema: false };

const instances = new Map<string, AjvInstance>();

/**
 * Validators by schema content (`contract/validators-by-content.ts`): plugins that declare the
 * same configSchema share one ajv compile. Bounded, because a language server validates every
 * edit of a schema; a schema that does not compile is remembered as `undefined`.
 */
const validators = new ValidatorsByContent<ValidateFunction | undefined>(512);

/**
 * The ajv validator of a configSchema, compiled once per content. `undefined` when the dialect
 * is unknown or the schema does not compile (`checkJsonSchema` reported it).
 */
function validatorFor(schema: JsonObject): ValidateFunction | undefined {
  const dialect = selectDialect(schema);
  if (!dialect) return undefined;
  return validators.get(schema, () => compileValidator(schema, dialect, JSON.stringify(schema).includes('"$id"')));
}

/** A new ajv compile of `schema`; `undefined` when it does not compile. */
function compileValidator(schema: JsonObject, dialect: SchemaDialect, hasId: boolean): ValidateFunction | undefined {
  const proven = acceptedWithoutAjv(dialect, schema);
  const options = proven ? PROVEN_SCHEMA_AJV_OPTIONS : CONFIG_AJV_OPTIONS;
  const instanceKey = `${dialect} ${proven ? "proven" : "checked"}`;
  let ajv = instances.get(instanceKey);
  if (!ajv) {
    ajv = createAjv(dialect, options);
    instances.set(instanceKey, ajv);
  }
  // A schema with an `$id` gets an instance of its own, so two plugins' `$id`s never collide.
  const compiler = hasId ? createAjv(dialect, options) : ajv;
  try {
    return compiler.compile(withCanonicalSchemaUri(schema, dialect));
  } catch {
    return undefined; // the schema itself was already reported by checkJsonSchema
  } finally {
    if (compiler === ajv) ajv.removeSchema("");
  }
}

/** Result of {@link validateConfigValue}. */
export interface ConfigValidation {
  readonly diagnostics: readonly Diagnostic[];
  /** The config with the schema's `default`s filled in (a copy; the input is not changed). */
  readonly withDefaults: JsonObject;
}

/**
 * Validates `config` (at `pointer` inside `located`, the surface's front matter).
 * A top-level key the schema does not declare (when it does not refuse unknown keys itself) is
 * a warning: the plugin will most likely never read it.
 * @param key the capability key, for messages.
 * @param besideConfig fields written directly under the capability, beside `config:` (each
 *   already an AL1010 whose hint says to move plugin options under `config:`): a required config
 *   key written there is that one mistake, not also missing (AL5004).
 * @param locateInSchema where a JSON Pointer inside `schema` is in the plugin's entry, asked only
 *   for an error about a value the schema's `default` supplied: the diagnostic's related location
 *   at that `default` (`configSchema.properties.x.default`).
 */
export function validateConfigValue(
  key: string,
  config: JsonObject,
  schema: JsonObject,
  located: LocatedValue,
  pointer: string,
  fallback: SourceLocation,
  besideConfig: ReadonlySet<string> = new Set(),
  locateInSchema?: (pointer: string) => SourceLocation | undefined,
): ConfigValidation {
  const withDefaults = cloneJson(config);
  const validate = validatorFor(schema);
  const diagnostics: Diagnostic[] = undeclaredKeys(key, config, schema, located, pointer, fallback);
  if (!validate || validate(withDefaults)) return { diagnostics, withDefaults };
  // A failed anyOf/oneOf reports the schemas the value comes closest to, as a tool's input does
  // (diagnostics/closest-branch.ts); the keyword's list of schemas is read from the configSchema
  // at the error's schemaPath, as this validator is not `verbose`.
  const all = (validate.errors ?? []).map((error) => (error.keyword === "anyOf" || error.keyword === "oneOf" ? { ...error, schema: valueAtPointer(schema, error.schemaPath.replace(/^#/, "")) } : error));
  const { errors, choices } = keepClosestBranches(all);
  for (const error of errors) {
    const types = choices.get(error)?.types;
    if (types !== undefined) {
      // The value's type fits none of the schemas: one diagnostic naming the types they accept.
      diagnostics.push(mapConfigError(key, config, withDefaults, schema, { ...error, keyword: "type", params: { type: types.join(",") } }, located, pointer, fallback, locateInSchema));
      continue;
    }
    if (["if", "anyOf", "oneOf", "allOf"].includes(error.keyword) && all.length > 1) continue;
    if (error.keyword === "required" && error.instancePath === "" && besideConfig.has(String(error.params["missingProperty"]))) continue;
    diagnostics.push(mapConfigError(key, config, withDefaults, schema, error, located, pointer, fallback, locateInSchema));
  }
  return { diagnostics: dedupeDiagnostics(diagnostics), withDefaults };
}

/** AL5006 for top-level keys a schema with `properties` neither declares nor refuses. */
function undeclaredKeys(key: string, config: JsonObject, schema: JsonObject, located: LocatedValue, pointer: string, fallback: SourceLocation): Diagnostic[] {
  const properties = schema["properties"];
  if (!isJsonObject(properties) || schema["additionalProperties"] !== undefined || schema["patternProperties"] !== undefined) return [];
  return Object.keys(config)
    .filter((name) => !Object.hasOwn(properties, name))
    .map((name) => {
      const found = locateValue(located, childPointer(pointer, name), fallback);
      const suggestion = didYouMean(name, Object.keys(properties));
      return createDiagnostic(Diagnostics.ConfigUndeclaredKey, found.key ?? found.value, [key, name], {
        path: ["capabilities", key, "config", name],
        hint: suggestion ? `Did you mean '${suggestion}'?` : `Declared keys: ${Object.keys(properties).join(", ") || "none"}.`,
      });
    });
}

/**
 * The pointer of the value a schema `default` filled in on the way to `instancePath` (the first
 * part of it the agent's config does not have), or `undefined` when the agent wrote the whole
 * path. `written` is the config as agent.md says it; `withDefaults` the one validated.
 */
function defaultedPointer(written: JsonObject, withDefaults: JsonObject, instancePath: string): string | undefined {
  let pointer = "";
  for (const segment of instancePath.split("/").slice(1)) {
    pointer += `/${segment}`;
    if (valueAtPointer(written, pointer) === undefined) return valueAtPointer(withDefaults, pointer) === undefined ? undefined : pointer;
  }
  return undefined;
}

/**
 * One ajv error as a diagnostic at agent.md. An error about a value the configSchema's
 * `default` supplied (the agent did not write it: helper-83's E3) stays AL5002, since the tools
 * would receive that value and agent.md can override it, but says whose value it is and
 * points at the capability's `config`, not at a line the agent never wrote; the default itself
 * is reported at the plugin's entry (AL4033).
 */
function mapConfigError(
  key: string,
  written: JsonObject,
  config: JsonObject,
  schema: JsonObject,
  error: ErrorObject,
  located: LocatedValue,
  pointer: string,
  fallback: SourceLocation,
  locateInSchema?: (pointer: string) => SourceLocation | undefined,
): Diagnostic {
  const target = schemaErrorTarget(error, config);
  const found = locateValue(located, pointer + target.pointer, fallback);
  const location = (target.onKey ? found.key : undefined) ?? found.value;
  const path = ["capabilities", key, "config", ...target.path];
  if (error.keyword === "required") {
    return createDiagnostic(Diagnostics.ConfigMissingRequired, location, [key, formatPropertyPath([...target.path, target.property!])], { path });
  }
  if (error.keyword === "additionalProperties") {
    const extra = target.property!;
    const allowed = propertiesAt(schema, error.schemaPath);
    const suggestion = didYouMean(extra, allowed);
    return createDiagnostic(Diagnostics.ConfigUnknownKey, location, [key, extra], {
      path,
      hint: suggestion ? `Did you mean '${suggestion}'?` : allowed.length > 0 ? `Allowed keys: ${allowed.join(", ")}.` : undefined,
    });
  }
  const where = error.instancePath === "" ? "the config" : `'${formatPropertyPath(target.path)}'`;
  const actual = valueAtPointer(config, error.instancePath);
  const defaulted = defaultedPointer(written, config, error.instancePath);
  if (defaulted !== undefined) {
    const option = formatPropertyPath(pointerToSegmentsIn(defaulted, config));
    const configAt = locateValue(located, pointer, fallback);
    const defaultPointer = schemaDefaultPointer(schema, config, defaulted);
    const defaultAt = defaultPointer === undefined ? undefined : locateInSchema?.(defaultPointer);
    const related = defaultAt ? [{ ...defaultAt, message: `the default of '${option}': ${formatPropertyPath(["configSchema", ...pointerToSegmentsIn(defaultPointer!, schema)])}` }] : [];
    return createDiagnostic(
      Diagnostics.ConfigInvalid,
      configAt.key ?? configAt.value,
      [key, `the default ${JSON.stringify(valueAtPointer(config, defaulted))} that ${key}'s configSchema gives '${option}' (agent.md does not set it) is invalid: ${where} ${schemaErrorReason(error, actual)}`],
      {
        path: ["capabilities", key, "config"],
        hint: `The value comes from the plugin, not from agent.md: set '${option}' under config to override it, and tell the plugin's author (its configSchema's default is invalid).`,
        related,
      },
    );
  }
  // A value close to one of an enum's strings gets the nearest one ("Did you mean 'docs'?"),
  // which the editor's quick fix applies (helper-83's E8).
  const hint = error.keyword === "enum" ? schemaErrorHint(error, actual) : undefined;
  return createDiagnostic(Diagnostics.ConfigInvalid, location, [key, `${where} ${schemaErrorReason(error, actual)}`], { path, ...(hint ? { hint } : {}) });
}

/**
 * The pointer inside `schema` of the `default` that filled in the value at `defaulted` (an
 * instance pointer into `config`): the `default` of the `properties` chain that leads there,
 * when it holds that very value; `undefined` when the default came another way (through
 * `$ref`, `allOf`, …), so no related location is given rather than a wrong one.
 */
function schemaDefaultPointer(schema: JsonObject, config: JsonObject, defaulted: string): string | undefined {
  const candidate = `${defaulted.split("/").slice(1).map((segment) => `/properties/${segment}`).join("")}/default`;
  const value = valueAtPointer(schema, candidate);
  return value !== undefined && canonicalJsonText(value) === canonicalJsonText(valueAtPointer(config, defaulted)!) ? candidate : undefined;
}

/** Property names declared by the schema object that owns `schemaPath`'s keyword. */
function propertiesAt(schema: JsonObject, schemaPath: string): string[] {
  const node = valueAtPointer(schema, decodeURIComponent(schemaPath.replace(/^#/, "")).split("/").slice(0, -1).join("/"));
  return isJsonObject(node) && isJsonObject(node["properties"]) ? Object.keys(node["properties"]) : [];
}
