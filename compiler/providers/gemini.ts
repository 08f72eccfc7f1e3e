/**
 * `gemini`: Gemini function calling through `FunctionDeclaration.parameters`, as the Google Gen
 * AI SDK sends it. `parameters` is "a select subset of an OpenAPI 3.0 schema object" (API
 * reference, `Schema`), whose fields are `type` (one type), `format`, `title`, `description`,
 * `nullable`, `enum` (strings), `maxItems`, `minItems`, `properties`, `required`,
 * `minProperties`, `maxProperties`, `minLength`, `maxLength`, `pattern`, `example`, `anyOf`,
 * `propertyOrdering`, `default`, `items`, `minimum`, `maximum`.
 *
 * Before sending, the SDK's `processJsonSchema` (src/_transformers.ts) rewrites the schema: a
 * `type` array and an `anyOf` member `{type: "null"}` become `nullable: true` (accepted after a
 * known transformation: info); `additionalProperties` is dropped (silently ignored: warning); a
 * schema with `$schema` goes to `parametersJsonSchema` instead (info, then judged by the
 * `gemini-json-schema` rules). `type: "null"` alone and `type` beside `anyOf` make the SDK
 * throw (rejected). Any other keyword is passed through but is not a field of `Schema`, and
 * the API refuses unknown fields (rejected).
 */
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import { geminiJsonSchemaKeyword } from "./gemini-json-schema.js";
import { GEMINI_NAME, GEMINI_TOOL_CAP } from "./gemini-rules.js";
import type { KeywordVerdict, ProviderProfile } from "./profile.js";
import type { SchemaNode } from "./schema-walk.js";
import { CHECKED, GEMINI_CLI_22210, GEMINI_SCHEMA_REFERENCE, GEMINI_SDK_TRANSFORMERS, VERTEX_FUNCTION_CALLING } from "./sources.js";

const SCHEMA_FIELDS = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
  "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
]);
const SDK = GEMINI_SDK_TRANSFORMERS.title;
const REFERENCE = GEMINI_SCHEMA_REFERENCE.title;

/** True when the SDK sends this schema as `parametersJsonSchema` (it has `$schema`). */
export function sentAsJsonSchema(root: JsonObject): boolean {
  return Object.hasOwn(root, "$schema");
}

function judgeKeyword(keyword: string, node: SchemaNode, root: JsonObject): KeywordVerdict | undefined {
  if (sentAsJsonSchema(root)) {
    if (node.path.length === 0 && keyword === "$schema") {
      return { treatment: "transformed", reason: "the schema has `$schema`, so the Gen AI SDK sends it as `parametersJsonSchema` instead of `parameters`", hint: "Nothing to do: the `gemini-json-schema` rules apply to it.", source: SDK };
    }
    return geminiJsonSchemaKeyword(keyword, node, root);
  }
  const schema = node.schema;
  const value = schema[keyword];
  if (keyword === "type") {
    // An anyOf member `{type: "null"}` is removed by the SDK (the anyOf is reported instead).
    if (value === "null" && node.via === "anyOf") return undefined;
    if (value === "null") return { treatment: "rejected", reason: "`type: \"null\"` cannot be the only type (the SDK throws)", hint: "Give the property a real type and `nullable: true`.", source: SDK };
    if (Object.hasOwn(schema, "anyOf")) return { treatment: "rejected", reason: "`type` and `anyOf` cannot both be set (the SDK throws)", hint: "Move `type` into each anyOf member.", source: SDK };
    if (Array.isArray(value)) return { treatment: "transformed", reason: "a `type` array is rewritten by the SDK (`null` becomes `nullable: true`, several types become `anyOf`)", hint: "Nothing to do, or write `nullable: true` yourself.", source: SDK };
    return undefined;
  }
  if (keyword === "anyOf" && Array.isArray(value) && value.some((member) => isJsonObject(member) && member["type"] === "null")) {
    return { treatment: "transformed", reason: "an `anyOf` member `{type: \"null\"}` is rewritten by the SDK into `nullable: true`", hint: "Nothing to do, or write `nullable: true` yourself.", source: SDK };
  }
  if (keyword === "additionalProperties") {
    return { treatment: "ignored", reason: "the SDK drops `additionalProperties` from `parameters`, so the model is not held to it", hint: "State the allowed keys in the description, or add `$schema` so the SDK sends the schema as `parametersJsonSchema` (target `gemini-json-schema`).", source: SDK };
  }
  if (keyword === "enum" && Array.isArray(value) && value.some((v) => typeof v !== "string")) {
    return { treatment: "rejected", reason: "`Schema.enum` is a list of strings; other values are refused", hint: "Use string enum values, or a string with a pattern.", source: REFERENCE };
  }
  if (!SCHEMA_FIELDS.has(keyword)) {
    return { treatment: "rejected", reason: `'${keyword}' is not a field of the OpenAPI-subset \`Schema\`; the SDK passes it through and the API refuses unknown fields`, hint: `${replacementOf(keyword)}, or add \`$schema\` so the SDK sends the schema as \`parametersJsonSchema\` (target \`gemini-json-schema\`).`, source: REFERENCE };
  }
  return undefined;
}

export const geminiProfile: ProviderProfile = {
  id: "gemini",
  title: "Gemini function calling, `parameters` (OpenAPI 3.0 subset) via the Google Gen AI SDK",
  version: CHECKED,
  sources: [GEMINI_SCHEMA_REFERENCE, GEMINI_SDK_TRANSFORMERS, VERTEX_FUNCTION_CALLING, GEMINI_CLI_22210],
  name: GEMINI_NAME,
  toolCap: GEMINI_TOOL_CAP,
  judgeKeyword,
  notes: [
    "That the API refuses keywords outside the `Schema` field list (\"Invalid JSON payload received. Unknown name …\") is what clients report (e.g. gemini-cli#22210); the reference lists the fields but does not state the refusal.",
    "The 128-declaration cap and the first-character rule come from the Vertex AI function-calling reference.",
    "No size budget (depth, property count) is published for function declarations; none is checked.",
  ],
};

/**
 * What to write instead of a keyword `Schema` does not have (new-user trial 129, finding 9:
 * "Remove '$ref'" left the definition unused and the property without a schema): a reference is
 * replaced by what it names, a `oneOf` is an `anyOf`, a `const` a one-value enum; else the keyword goes.
 */
function replacementOf(keyword: string): string {
  switch (keyword) {
    case "$ref":
      return "Replace the `$ref` with a copy of the definition it names (inline it), then remove `$defs` once nothing refers to it";
    case "$defs":
    case "definitions":
      return `Inline each definition where a \`$ref\` names it, then remove '${keyword}'`;
    case "oneOf":
      return "Write `oneOf` as `anyOf` (a field of `Schema`)";
    case "const":
      return "Write `const: x` as `enum: [x]` (a string)";
    default:
      return `Remove '${keyword}'`;
  }
}

