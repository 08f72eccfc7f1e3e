/**
 * `openai-strict`: OpenAI function calling with `strict: true` (Structured Outputs). Every rule
 * is from the Structured Outputs guide, "Supported schemas", read on the profile's date:
 * - supported: `pattern`, `format` (nine formats), `multipleOf`, `maximum`, `exclusiveMaximum`,
 *   `minimum`, `exclusiveMinimum`, `minItems`, `maxItems`, plus `anyOf`, `enum`, `const`,
 *   `$defs`/`$ref` (recursion allowed);
 * - "Root objects must not be `anyOf` and must be an object";
 * - "All fields must be `required`" (emulate an optional one with a `null` union);
 * - "`additionalProperties: false` must always be set in objects";
 * - not supported: `allOf`, `not`, `dependentRequired`, `dependentSchemas`, `if`, `then`,
 *   `else` ("you will receive an error");
 * - "up to 5000 object properties total, with up to 10 levels of nesting"; "total string
 *   length of all property names, definition names, enum values, and const values cannot
 *   exceed 120,000 characters"; "up to 1000 enum values across all enum properties"; one
 *   string enum of more than 250 values: at most 15,000 characters.
 * A keyword the guide lists neither as supported nor as unsupported (`minLength`, `default`,
 * `title`, `oneOf`, …) is reported as unverified (warning), never guessed either way.
 */
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import { OPENAI_NAME, OPENAI_TOOL_CAP } from "./openai.js";
import { removedRuleHint, type BudgetOverrun, type KeywordVerdict, type ProviderProfile } from "./profile.js";
import { walkSchema, type SchemaNode } from "./schema-walk.js";
import { CHECKED, OPENAI_API_REFERENCE, OPENAI_FUNCTION_CALLING, OPENAI_STRUCTURED_OUTPUTS } from "./sources.js";

const SOURCE = OPENAI_STRUCTURED_OUTPUTS.title;
const SUPPORTED = new Set([
  "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const", "description",
  "$defs", "definitions", "$ref",
  "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems",
]);
const UNSUPPORTED = new Set(["allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else"]);
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

/** The documented size limits. */
export const OPENAI_STRICT_LIMITS = { properties: 5000, nesting: 10, stringLength: 120_000, enumValues: 1000, largeEnumValues: 250, largeEnumLength: 15_000 } as const;

function judgeKeyword(keyword: string, node: SchemaNode): KeywordVerdict | undefined {
  if (node.path.length === 0 && keyword === "anyOf") {
    return { treatment: "rejected", reason: "the root of a strict schema must be an object, not `anyOf`", hint: "Make the root one object schema and move the alternatives into one of its properties.", source: SOURCE };
  }
  if (UNSUPPORTED.has(keyword)) {
    const hint = keyword === "allOf" ? "Merge the allOf members into one schema." : removedRuleHint(keyword, "rule");
    return { treatment: "rejected", reason: `OpenAI strict mode does not support '${keyword}'`, hint, source: SOURCE };
  }
  const format = node.schema["format"];
  if (keyword === "format" && typeof format === "string" && !FORMATS.has(format)) {
    return { treatment: "unverified", reason: `format '${format}' is not one of the formats the guide lists (${[...FORMATS].join(", ")})`, hint: "Use a listed format, or a `pattern`.", source: SOURCE };
  }
  if (!SUPPORTED.has(keyword)) {
    return { treatment: "unverified", reason: `'${keyword}' is not in OpenAI's documented strict subset, and the guide does not say whether it is refused or ignored`, hint: `Remove '${keyword}', or check it against the API before relying on it.`, source: SOURCE };
  }
  return undefined;
}

/** Counts what the guide limits; reports each limit once, where it is first exceeded. */
export function openaiStrictBudgets(root: JsonObject): BudgetOverrun[] {
  const limits = OPENAI_STRICT_LIMITS;
  const out: BudgetOverrun[] = [];
  const seen = new Set<string>();
  const once = (key: string, overrun: BudgetOverrun): void => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push(overrun);
  };
  let properties = 0;
  let strings = 0;
  let enumValues = 0;
  walkSchema(root, (node) => {
    const { schema, path } = node;
    if (node.objectDepth > limits.nesting) once("nesting", { path, what: "levels of object nesting", actual: node.objectDepth, limit: limits.nesting, hint: "Flatten the nested objects.", source: SOURCE });
    const props = schema["properties"];
    if (isJsonObject(props)) {
      const names = Object.keys(props);
      properties += names.length;
      strings += names.reduce((sum, name) => sum + name.length, 0);
      if (properties > limits.properties) once("properties", { path: [...path, "properties"], what: "object properties in the schema", actual: properties, limit: limits.properties, hint: "Split the tool, or move rarely used fields into another (deferred) tool.", source: SOURCE });
    }
    for (const defs of ["$defs", "definitions"]) {
      const value = schema[defs];
      if (isJsonObject(value)) strings += Object.keys(value).reduce((sum, name) => sum + name.length, 0);
    }
    const values = schema["enum"];
    if (Array.isArray(values)) {
      enumValues += values.length;
      const texts = values.filter((v): v is string => typeof v === "string");
      const length = texts.reduce((sum, v) => sum + v.length, 0);
      strings += length;
      if (enumValues > limits.enumValues) once("enum", { path: [...path, "enum"], what: "enum values in the schema", actual: enumValues, limit: limits.enumValues, hint: "Replace long enums with a string and describe the allowed values.", source: SOURCE });
      if (texts.length > limits.largeEnumValues && length > limits.largeEnumLength) {
        once(`large-enum:${path.join("/")}`, { path: [...path, "enum"], what: `characters in one enum of more than ${limits.largeEnumValues} string values`, actual: length, limit: limits.largeEnumLength, hint: "Shorten the values, or use a plain string.", source: SOURCE });
      }
    }
    const constant = schema["const"];
    if (typeof constant === "string") strings += constant.length;
    if (strings > limits.stringLength) once("strings", { path, what: "characters of property names, definition names, enum and const values", actual: strings, limit: limits.stringLength, hint: "Shorten names and enum values, or split the tool.", source: SOURCE });
  });
  return out;
}

export const openaiStrictProfile: ProviderProfile = {
  id: "openai-strict",
  title: "OpenAI function calling (strict: true, Structured Outputs)",
  version: CHECKED,
  sources: [OPENAI_STRUCTURED_OUTPUTS, OPENAI_FUNCTION_CALLING, OPENAI_API_REFERENCE],
  name: OPENAI_NAME,
  toolCap: OPENAI_TOOL_CAP,
  judgeKeyword,
  strictObjects: { allRequired: true, closed: true, source: SOURCE },
  schemaBudgets: openaiStrictBudgets,
  notes: [
    "\"Levels of nesting\" is not defined by the guide; we count nested object schemas from the root (the root object is level 1).",
    "Keywords outside the guide's supported and unsupported lists (e.g. `minLength`, `maxLength`, `default`, `title`, `oneOf`, `$schema`) are unverified warnings: the guide does not say whether they are refused or ignored.",
    "Earlier versions of the guide said 100 properties and 5 levels; the current 5000 and 10 are checked.",
  ],
};
