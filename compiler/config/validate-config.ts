/**
 * Validates a capability's config value against its plugin's configSchema with ajv (the
 * schema's own dialect, all errors, standard formats, no coercion), fills in the schema's
 * `default`s for what the agent left out, and maps each error to the agent.md line of the
 * offending key or value.
 */
import type { ErrorObject, Options, ValidateFunction } from "ajv";
import { createAjv, withCanonicalSchemaUri, type AjvInstance, type SchemaDialect } from "../../contract/ajv.js";
import { dedupeDiagnostics, createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { pointerToSegmentsIn, childPointer, valueAtPointer } from "../../common/json-pointer.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { describeKind, describeSchemaType } from "../../diagnostics/json-kinds.js";
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { locateValue, type LocatedValue } from "../model.js";
import { didYouMean } from "../../common/did-you-mean.js";
import { selectDialect } from "../validation/json-schema.js";

/**
 * ownProperties: a config key named like an Object.prototype member ('valueOf', 'toString') is
 * present only when the agent wrote it. addUsedSchema: `$ref: "#"` resolves only through the
 * schema registered under `""` (removed again after each compile).
 */
const CONFIG_AJV_OPTIONS: Options = { strict: false, allErrors: true, addUsedSchema: true, ownProperties: true, coerceTypes: false, useDefaults: true };

const instances = new Map<SchemaDialect, AjvInstance>();
const validators = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: JsonObject): ValidateFunction | undefined {
  const cached = validators.get(schema);
  if (cached) return cached;
  const dialect = selectDialect(schema);
  if (!dialect) return undefined;
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = createAjv(dialect, CONFIG_AJV_OPTIONS);
    instances.set(dialect, ajv);
  }
  // A schema with an `$id` gets an instance of its own, so two plugins' `$id`s never collide.
  const compiler = JSON.stringify(schema).includes('"$id"') ? createAjv(dialect, CONFIG_AJV_OPTIONS) : ajv;
  try {
    const validate = compiler.compile(withCanonicalSchemaUri(schema, dialect));
    validators.set(schema, validate);
    return validate;
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
 */
export function validateConfigValue(
  key: string,
  config: JsonObject,
  schema: JsonObject,
  located: LocatedValue,
  pointer: string,
  fallback: SourceLocation,
): ConfigValidation {
  const withDefaults = cloneJson(config);
  const validate = validatorFor(schema);
  const diagnostics: Diagnostic[] = undeclaredKeys(key, config, schema, located, pointer, fallback);
  if (!validate || validate(withDefaults)) return { diagnostics, withDefaults };
  for (const error of validate.errors ?? []) {
    if (["if", "anyOf", "oneOf", "allOf"].includes(error.keyword) && (validate.errors?.length ?? 0) > 1) continue;
    diagnostics.push(mapConfigError(key, withDefaults, schema, error, located, pointer, fallback));
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

function mapConfigError(
  key: string,
  config: JsonObject,
  schema: JsonObject,
  error: ErrorObject,
  located: LocatedValue,
  pointer: string,
  fallback: SourceLocation,
): Diagnostic {
  const params = error.params as Record<string, unknown>;
  const at = (relative: string, preferKey: boolean) => {
    const found = locateValue(located, pointer + relative, fallback);
    return { location: (preferKey ? found.key : undefined) ?? found.value, path: ["capabilities", key, "config", ...pointerToSegmentsIn(relative, config)] };
  };
  if (error.keyword === "required") {
    const { location, path } = at(error.instancePath, true);
    const missing = String(params["missingProperty"]);
    const field = error.instancePath === "" ? missing : `${pointerToSegmentsIn(error.instancePath, config).join(".")}.${missing}`;
    return createDiagnostic(Diagnostics.ConfigMissingRequired, location, [key, field], { path });
  }
  if (error.keyword === "additionalProperties") {
    const extra = String(params["additionalProperty"]);
    const { location, path } = at(childPointer(error.instancePath, extra), true);
    const allowed = propertiesAt(schema, error.schemaPath);
    const suggestion = didYouMean(extra, allowed);
    return createDiagnostic(Diagnostics.ConfigUnknownKey, location, [key, extra], {
      path,
      hint: suggestion ? `Did you mean '${suggestion}'?` : allowed.length > 0 ? `Allowed keys: ${allowed.join(", ")}.` : undefined,
    });
  }
  const { location, path } = at(error.instancePath, false);
  const value = valueAtPointer(config, error.instancePath);
  const where = error.instancePath === "" ? "the config" : `'${pointerToSegmentsIn(error.instancePath, config).join(".")}'`;
  return createDiagnostic(Diagnostics.ConfigInvalid, location, [key, `${where} ${explain(error, value)}`], { path });
}

function explain(error: ErrorObject, value: unknown): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "type":
      return `must be ${describeSchemaType(String(params["type"]))}, but it is ${describeKind(value)}`;
    case "enum":
      return `must be one of ${(params["allowedValues"] as unknown[]).map((v) => JSON.stringify(v)).join(", ")}, but it is ${JSON.stringify(value)}`;
    case "const":
      return `must be ${JSON.stringify(params["allowedValue"])}, but it is ${JSON.stringify(value)}`;
    case "pattern":
      return `must match the pattern ${String(params["pattern"])}`;
    case "format":
      return `must be a valid ${String(params["format"])}`;
    case "minLength":
    case "maxLength":
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
    case "minItems":
    case "maxItems":
      return `${error.message ?? "is out of range"}`;
    default:
      return error.message ?? "is invalid";
  }
}

/** Property names declared by the schema object that owns `schemaPath`'s keyword. */
function propertiesAt(schema: JsonObject, schemaPath: string): string[] {
  const parts = schemaPath.replace(/^#\/?/, "").split("/").filter(Boolean).slice(0, -1);
  let node: JsonValue = schema;
  for (const part of parts) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = node[Number(key)] ?? null;
    else if (isJsonObject(node)) node = node[key] ?? null;
  }
  return isJsonObject(node) && isJsonObject(node["properties"]) ? Object.keys(node["properties"]) : [];
}
