/**
 * `gemini-json-schema`: Gemini function calling through `FunctionDeclaration.parametersJsonSchema`
 * (mutually exclusive with `parameters`). The Gemini API documents the JSON Schema keywords its
 * JSON Schema fields support: `$id`, `$defs`, `$ref`, `$anchor`, `type`, `format`, `title`,
 * `description`, `enum`, `items`, `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`,
 * `anyOf`, `oneOf` ("interpreted as `anyOf`"), `properties`, `additionalProperties`,
 * `required`, and the non-standard `propertyOrdering`; cyclic references are "unrolled to a
 * limited degree, and only within non-required properties".
 *
 * `oneOf` and recursion are accepted after a known transformation (info). Whether another
 * keyword is refused or ignored is not documented, so it is reported as unverified (warning).
 */
import type { JsonObject } from "../../common/json-value.js";
import { GEMINI_NAME, GEMINI_TOOL_CAP } from "./gemini-rules.js";
import type { KeywordVerdict, ProviderProfile } from "./profile.js";
import { refCycles, type SchemaNode } from "./schema-walk.js";
import { CHECKED, GEMINI_JSON_SCHEMA, GEMINI_SCHEMA_REFERENCE, VERTEX_FUNCTION_CALLING } from "./sources.js";

const SUPPORTED = new Set([
  "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum", "items", "prefixItems", "minItems", "maxItems",
  "minimum", "maximum", "anyOf", "oneOf", "properties", "additionalProperties", "required", "propertyOrdering",
]);
const SOURCE = GEMINI_JSON_SCHEMA.title;

/**
 * The `gemini-json-schema` verdict on one keyword (also used by `gemini` for a schema the SDK
 * sends as `parametersJsonSchema`). A root `$schema` is accepted: it is what selects the field.
 */
export function geminiJsonSchemaKeyword(keyword: string, node: SchemaNode, root: JsonObject): KeywordVerdict | undefined {
  if (keyword === "$schema" && node.path.length === 0) return undefined;
  if (keyword === "oneOf") return { treatment: "transformed", reason: "`oneOf` is interpreted as `anyOf`", hint: "Write `anyOf` when more than one alternative may match.", source: SOURCE };
  if (keyword === "$ref" && refCycles(root).some((p) => p.join("/") === [...node.path, "$ref"].join("/"))) {
    return { treatment: "transformed", reason: "cyclic references are unrolled to a limited depth, and only within non-required properties", hint: "Keep the recursive property optional, or unroll it yourself.", source: SOURCE };
  }
  if (!SUPPORTED.has(keyword)) {
    return { treatment: "unverified", reason: `'${keyword}' is not in the documented JSON Schema keyword list, and whether it is refused or ignored is not documented`, hint: `Remove '${keyword}', or state the rule in the description.`, source: SOURCE };
  }
  return undefined;
}

export const geminiJsonSchemaProfile: ProviderProfile = {
  id: "gemini-json-schema",
  title: "Gemini function calling, `parametersJsonSchema` (JSON Schema)",
  version: CHECKED,
  sources: [GEMINI_JSON_SCHEMA, GEMINI_SCHEMA_REFERENCE, VERTEX_FUNCTION_CALLING],
  name: GEMINI_NAME,
  toolCap: GEMINI_TOOL_CAP,
  judgeKeyword: geminiJsonSchemaKeyword,
  notes: [
    "The keyword list is documented for Gemini's JSON Schema fields (structured output); we apply it to `parametersJsonSchema`, which the reference describes as the same JSON Schema form.",
    "No size budget is published; none is checked.",
  ],
};
