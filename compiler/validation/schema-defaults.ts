/**
 * Checks each `default` of a schema against the subschema that holds it (helper-83's E3).
 *
 * JSON Schema makes `default` an annotation (Validation §9.2): validators never check it, and
 * ajv in strict mode does not either (its `useDefaults` only applies them). But the toolchain
 * uses defaults: a configSchema's fill in the options an agent leaves out (DESIGN §4), and an
 * inputSchema's are shown to the model as the value to send. A default its own subschema
 * rejects would reach the tool as a value the tool never accepts, so it is refused at the
 * plugin, where it is written.
 *
 * The check validates with ajv, non-strict (the strict verdict on the schema is the judge's,
 * `schema-judge.ts`): a subschema holding a `default` is compiled on its own, or, when it has a
 * `$ref`, as a fragment of the whole schema (`key#/properties/n`), so the reference resolves as
 * written.
 * A fragment compile costs milliseconds (ajv generates a validator for it), so a default is
 * first tried against a subschema made only of the keywords {@link certainlyValid} reads
 * (`type`, `enum`, `const`, bounds, lengths, `pattern`, `properties`, `items`, `anyOf`, …): one it
 * proves valid there is valid, and only the rest go to ajv, whose error gives the words. On
 * 2,000 inputSchemas with two defaults each, ajv for every default took about 10 s; with the
 * proof, the defaults add nothing measurable.
 */
import type { ErrorObject, Options, ValidateFunction } from "ajv";
import { createAjv, withCanonicalSchemaUri, type AjvInstance, type SchemaDialect } from "../../contract/ajv.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { valueAtPointer } from "../../common/json-pointer.js";
import { withoutVendorKeywords } from "./vendor-keywords.js";

/** One `default` its subschema rejects. */
export interface DefaultViolation {
  /** JSON Pointer of the subschema holding the `default`, relative to the schema's root. */
  readonly pointer: string;
  /** The default as written. */
  readonly value: JsonValue;
  /** ajv's first error on the default (its `instancePath` is inside the default). */
  readonly error: ErrorObject;
}

/**
 * Non-strict (the strict verdict is the judge's), first error only, nothing coerced or filled
 * in, no meta-schema check (the judge made it), no code optimisation (each validator checks
 * one value once).
 */
const DEFAULT_CHECK_OPTIONS: Options = { strict: false, allErrors: false, validateSchema: false, useDefaults: false, coerceTypes: false, code: { optimize: false } };

const instances = new Map<SchemaDialect, AjvInstance>();

/** The key the schema being checked is added under (removed, with its fragments, afterwards). */
const KEY = "assemblyline:default-check";
const KEY_AND_FRAGMENTS = /^assemblyline:default-check(?:#|$)/;

/**
 * The defaults among `pointers` (subschemas of `schema` that hold a `default`) that their
 * subschema rejects, in the order given. A subschema without references is compiled on its
 * own, so a mistake elsewhere in the schema (an invalid pattern) does not keep its default
 * from being checked; one with a `$ref` is compiled as a fragment of the whole schema. A
 * subschema ajv cannot compile (its problem is reported by the schema's other checks) is
 * skipped. Never throws.
 */
export function defaultViolations(dialect: SchemaDialect, schema: JsonObject, pointers: readonly { readonly pointer: string; readonly value: JsonValue }[]): DefaultViolation[] {
  const unproven = pointers.filter(({ pointer, value }) => !certainlyValid(value, valueAtPointer(schema, pointer) as JsonValue | undefined, 0));
  if (unproven.length === 0) return [];
  const violations: DefaultViolation[] = [];
  const check = (pointer: string, value: JsonValue, validate: ValidateFunction | undefined): void => {
    if (validate && !validate(value)) {
      const error = validate.errors?.[0];
      if (error) violations.push({ pointer, value, error });
    }
  };
  const referring: typeof unproven = [];
  for (const { pointer, value } of unproven) {
    const subschema = withoutVendorKeywords(valueAtPointer(schema, pointer) as JsonObject, dialect);
    const text = JSON.stringify(subschema);
    if (REFERENCE.test(text)) {
      referring.push({ pointer, value });
      continue;
    }
    const ajv = instanceFor(dialect, text);
    try {
      check(pointer, value, ajv.compile(subschema));
    } catch {
      // Not compilable on its own terms: the schema's other checks say why.
    } finally {
      ajv.removeSchema(subschema);
    }
  }
  if (referring.length === 0) return violations;
  const order = new Map(pointers.map(({ pointer }, index) => [pointer, index]));
  const ajv = instanceFor(dialect, JSON.stringify(schema));
  try {
    ajv.addSchema(withCanonicalSchemaUri(withoutVendorKeywords(schema, dialect), dialect), KEY);
    for (const { pointer, value } of referring) {
      try {
        check(pointer, value, ajv.getSchema(`${KEY}#${pointer.split("/").map(encodeURIComponent).join("/")}`));
      } catch {
        // Not compilable on its own terms: the schema's other checks say why.
      }
    }
  } catch {
    // The schema could not be added: the schema's other checks say why.
  } finally {
    // getSchema remembers each fragment under its own key: drop them all with the schema.
    ajv.removeSchema(KEY_AND_FRAGMENTS);
  }
  return violations.sort((a, b) => order.get(a.pointer)! - order.get(b.pointer)!);
}

/** Keywords that make a subschema depend on the rest of the schema. */
const REFERENCE = /"\$(?:ref|dynamicRef|recursiveRef)"/;

/** The shared instance of `dialect`, or a fresh one for a schema text that declares an `$id` (ajv remembers the `$id`s it saw). */
function instanceFor(dialect: SchemaDialect, text: string): AjvInstance {
  if (text.includes('"$id"')) return createAjv(dialect, DEFAULT_CHECK_OPTIONS);
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = createAjv(dialect, DEFAULT_CHECK_OPTIONS);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** Keywords that say nothing about validity (annotations); `x-…` vendor keywords are too. */
const ANNOTATIONS: ReadonlySet<string> = new Set(["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"]);

/** Deepest value nesting the proof follows before it leaves the rest to ajv. */
const MAX_PROOF_DEPTH = 16;

/**
 * True when `value` certainly validates against `schema`, read without ajv; `false` means "not
 * proven" (ajv decides), never "invalid". Proven only for subschemas whose every keyword is an
 * annotation or one of: `type`, `enum`/`const` (of a string, number, boolean or null),
 * `minimum`, `maximum`, `exclusiveMinimum`/`exclusiveMaximum` (numbers, 2019-09 and later
 * style), `minLength`/`maxLength` (in code points, as ajv counts), `pattern` (Unicode mode),
 * `minItems`/`maxItems`, `items` (one schema), `properties`, `required` and
 * `additionalProperties`, `anyOf` (one branch proven) and `allOf` (every branch proven), each
 * with JSON Schema's meaning (Validation §6, Core §10.2.1).
 */
export function certainlyValid(value: JsonValue, schema: JsonValue | undefined, depth: number): boolean {
  if (schema === true) return true;
  if (!isJsonObject(schema) || depth > MAX_PROOF_DEPTH) return false;
  for (const key of Object.keys(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith("x-")) continue;
    if (!keywordHolds(key, schema[key]!, schema, value, depth)) return false;
  }
  return true;
}

function keywordHolds(key: string, keyword: JsonValue, schema: JsonObject, value: JsonValue, depth: number): boolean {
  const primitive = value === null || typeof value !== "object";
  switch (key) {
    case "type":
      return typeof keyword === "string" ? hasType(value, keyword) : Array.isArray(keyword) && keyword.some((t) => typeof t === "string" && hasType(value, t));
    case "enum":
      return primitive && Array.isArray(keyword) && keyword.some((item) => item === value);
    case "const":
      return primitive && keyword === value;
    case "minimum":
      return typeof keyword === "number" && (typeof value !== "number" || value >= keyword);
    case "maximum":
      return typeof keyword === "number" && (typeof value !== "number" || value <= keyword);
    case "exclusiveMinimum":
      return typeof keyword === "number" && (typeof value !== "number" || value > keyword);
    case "exclusiveMaximum":
      return typeof keyword === "number" && (typeof value !== "number" || value < keyword);
    case "minLength":
      return typeof keyword === "number" && (typeof value !== "string" || [...value].length >= keyword);
    case "maxLength":
      return typeof keyword === "number" && (typeof value !== "string" || [...value].length <= keyword);
    case "pattern":
      return typeof keyword === "string" && (typeof value !== "string" || matches(keyword, value));
    case "minItems":
      return typeof keyword === "number" && (!Array.isArray(value) || value.length >= keyword);
    case "maxItems":
      return typeof keyword === "number" && (!Array.isArray(value) || value.length <= keyword);
    case "items":
      return (typeof keyword === "boolean" || isJsonObject(keyword)) && (!Array.isArray(value) || value.every((item) => certainlyValid(item, keyword, depth + 1)));
    case "required":
      return Array.isArray(keyword) && (!isJsonObject(value) || keyword.every((name) => typeof name === "string" && Object.hasOwn(value, name)));
    case "properties":
      return isJsonObject(keyword) && (!isJsonObject(value) || Object.keys(value).every((name) => !Object.hasOwn(keyword, name) || certainlyValid(value[name]!, keyword[name], depth + 1)));
    case "additionalProperties": {
      if (!isJsonObject(value)) return typeof keyword === "boolean" || isJsonObject(keyword);
      const declared = isJsonObject(schema["properties"]) ? schema["properties"] : {};
      if (schema["patternProperties"] !== undefined) return false;
      return Object.keys(value).every((name) => Object.hasOwn(declared, name) || certainlyValid(value[name]!, keyword, depth + 1));
    }
    case "anyOf":
      return Array.isArray(keyword) && keyword.some((branch) => certainlyValid(value, branch, depth + 1));
    case "allOf":
      return Array.isArray(keyword) && keyword.length > 0 && keyword.every((branch) => certainlyValid(value, branch, depth + 1));
    default:
      return false;
  }
}

function hasType(value: JsonValue, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isJsonObject(value);
    default:
      return false;
  }
}

function matches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, "u").test(value);
  } catch {
    return false;
  }
}
