/**
 * The one place that puts JSON Schema validation errors (ajv's `ErrorObject`s) into our words
 * (issue 8 "each rule once", STYLE §4: map ajv's error objects into our own words instead of
 * echoing ajv). Every stage that validates a value against a schema uses it: the entry's
 * descriptors, capability configs, plugin.json, mcp.json, the project configuration,
 * plugins.lock and the runtime's input validation.
 *
 * It answers three questions about one error, as plain data:
 * - where it points ({@link schemaErrorTarget}: the JSON Pointer, whether the key or the value
 *   is meant, and the property path for the diagnostic's `path`);
 * - what is wrong, in words that complete "'<field>' …" ({@link schemaErrorReason}:
 *   `must be a string, but it is a number`);
 * - what to do, when the error itself says it ({@link schemaErrorHint}).
 *
 * The codes and the sentence around the words stay with each stage's catalog message. Only
 * ajv's types are imported (`import type`), so using this module never loads ajv.
 */
import type { ErrorObject } from "ajv";
import { childPointer, pointerToSegmentsIn } from "../common/json-pointer.js";
import { didYouMeanHint } from "../common/did-you-mean.js";
import { describeKind, describeSchemaType, typeHint } from "./json-kinds.js";

/**
 * The parts of an ajv error this module reads. ajv's `ErrorObject` fits it; stages that keep
 * ajv to themselves pass the same fields as plain data.
 */
export type SchemaError = Pick<ErrorObject, "keyword" | "instancePath"> & {
  readonly params: Readonly<Record<string, unknown>>;
  /** ajv's `schemaPath` (`#/properties/a/additionalProperties`), when known. */
  readonly schemaPath?: string;
  /** ajv's own message, used only for keywords this module has no words for. */
  readonly message?: string;
  /** Set by ajv for an error about a property name (`propertyNames`). */
  readonly propertyName?: string;
  /** The schema object holding the failing keyword (ajv's `verbose: true`), when known. */
  readonly parentSchema?: unknown;
};

/** Where a schema error points. */
export interface SchemaErrorTarget {
  /**
   * JSON Pointer of what the diagnostic points at: the object missing a `required` property,
   * the unexpected property of an `additionalProperties`/`unevaluatedProperties` error, the
   * refused key of a `propertyNames` error, else the failing value.
   */
  readonly pointer: string;
  /** True when the property name (not the value) is meant. */
  readonly onKey: boolean;
  /** {@link pointer} as property-path segments, array indices as numbers. */
  readonly path: readonly PropertyKey[];
  /** The missing, unexpected or refused property name, for the errors that have one. */
  readonly property?: string;
}

/** The property name an error is about (missing, unexpected or refused), if any. */
export function schemaErrorProperty(error: SchemaError): string | undefined {
  const params = error.params;
  switch (error.keyword) {
    case "required":
      return String(params["missingProperty"]);
    case "additionalProperties":
      return String(params["additionalProperty"]);
    case "unevaluatedProperties":
      return String(params["unevaluatedProperty"]);
    default:
      return error.propertyName;
  }
}

/**
 * Where `error` points inside `value` (the validated value): see {@link SchemaErrorTarget}.
 * A `required` error points at the object that lacks the property (the property itself does
 * not exist); its `property` is the missing name.
 */
export function schemaErrorTarget(error: SchemaError, value: unknown): SchemaErrorTarget {
  const property = schemaErrorProperty(error);
  const objectPath = pointerToSegmentsIn(error.instancePath, value);
  if (property === undefined) return { pointer: error.instancePath, onKey: false, path: objectPath };
  if (error.keyword === "required") return { pointer: error.instancePath, onKey: true, path: objectPath, property };
  return { pointer: childPointer(error.instancePath, property), onKey: true, path: [...objectPath, property], property };
}

/**
 * Our words for what is wrong with the value at the error's `instancePath` (`actual`),
 * completing a sentence that starts with the field: "'port' must be an integer, but it is a
 * string". One wording per keyword:
 *
 * | keyword | words |
 * |---|---|
 * | `type` | `must be an integer, but it is a string` |
 * | `enum` | `must be one of "a", "b", but it is "c"` |
 * | `const` | `must be true, but it is false` |
 * | `minLength` | `must not be empty` (limit 1), else `must be at least 3 characters long` |
 * | `maxLength` | `must be at most 64 characters long` |
 * | `pattern` | `must be <the schema's $comment>` when the schema explains its pattern, else `must match the pattern ^a` |
 * | `format` | `must be a valid email` |
 * | `uniqueItems` | `lists the same item twice (items 0 and 2)` |
 * | `required` | `is required` (said of the missing property) |
 * | `additionalProperties` | `is not allowed` (said of the property) |
 * | `unevaluatedProperties` | `is not allowed by the schema` (said of the property) |
 * | others (`minimum`, `minItems`, …) | ajv's own sentence, e.g. `must be >= 1` |
 */
export function schemaErrorReason(error: SchemaError, actual: unknown): string {
  const params = error.params;
  switch (error.keyword) {
    case "type":
      return `must be ${describeSchemaType(String(params["type"]))}, but it is ${describeKind(actual)}`;
    case "enum":
      return `must be one of ${(params["allowedValues"] as readonly unknown[]).map((v) => JSON.stringify(v)).join(", ")}, but it is ${JSON.stringify(actual)}`;
    case "const":
      return `must be ${JSON.stringify(params["allowedValue"])}, but it is ${JSON.stringify(actual)}`;
    case "minLength":
      return Number(params["limit"]) === 1 ? "must not be empty" : `must be at least ${String(params["limit"])} characters long`;
    case "maxLength":
      return `must be at most ${String(params["limit"])} characters long`;
    case "pattern": {
      const comment = schemaComment(error);
      return comment !== undefined ? `must be ${comment}` : `must match the pattern ${String(params["pattern"])}`;
    }
    case "format":
      return `must be a valid ${String(params["format"])}`;
    case "uniqueItems":
      return `lists the same item twice (items ${String(params["j"])} and ${String(params["i"])})`;
    case "required":
      return "is required";
    case "additionalProperties":
      return "is not allowed";
    case "unevaluatedProperties":
      return "is not allowed by the schema";
    default:
      return error.message ?? `fails the schema's '${error.keyword}' rule`;
  }
}

/**
 * What to do, when the error itself says it: how to write a value of the expected `type`
 * (`Write it as a string in double quotes, e.g. "text".`), or "Did you mean 'x'?" for a
 * string close to one of an `enum`'s strings. `undefined` otherwise.
 */
export function schemaErrorHint(error: SchemaError, actual: unknown): string | undefined {
  if (error.keyword === "type") return typeHint(String(error.params["type"]));
  if (error.keyword === "enum" && typeof actual === "string") {
    const allowed = (error.params["allowedValues"] as readonly unknown[]).filter((v): v is string => typeof v === "string");
    return didYouMeanHint(actual, allowed);
  }
  return undefined;
}

/** The `$comment` of the schema holding the failing keyword, when ajv passed it (`verbose`). */
function schemaComment(error: SchemaError): string | undefined {
  const parent = error.parentSchema;
  if (typeof parent !== "object" || parent === null) return undefined;
  const comment = (parent as { $comment?: unknown }).$comment;
  return typeof comment === "string" ? comment : undefined;
}
