/**
 * `anthropic-strict`: Claude strict tool use (`strict: true`, grammar-constrained sampling).
 * Rules from Structured outputs, "JSON Schema limitations" (shared by JSON outputs and strict
 * tool use) and "Schema complexity limits", read on the profile's date:
 * - supported: basic types, `enum` (strings, numbers, bools or nulls only), `const`, `anyOf`,
 *   `allOf` (not with `$ref`), local `$ref`/`$defs`/`definitions`, `default`, `required`,
 *   `additionalProperties` ("must be set to `false` for objects"), ten string formats, array
 *   `minItems` of 0 or 1, simple `pattern`s;
 * - not supported ("you'll receive a 400 error"): recursive schemas, complex types in enums,
 *   external `$ref`, numerical constraints (`minimum`, `maximum`, `multipleOf`, …), string
 *   constraints (`minLength`, `maxLength`), array constraints beyond `minItems` 0/1,
 *   `additionalProperties` other than `false`; regex backreferences, lookaround and `\b`;
 * - per request: at most 20 strict tools, 24 optional parameters and 16 parameters with union
 *   types across all strict schemas.
 * Optional properties are allowed (unlike OpenAI strict), so `required` is not enforced.
 */
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import { ANTHROPIC_NAME } from "./anthropic.js";
import { removedRuleHint, type KeywordVerdict, type ProviderProfile, type RequestOverrun, type RequestTool } from "./profile.js";
import { refCycles, walkSchema, type SchemaNode, type SchemaPath } from "./schema-walk.js";
import { ANTHROPIC_DEFINE_TOOLS, ANTHROPIC_STRICT_TOOL_USE, ANTHROPIC_STRUCTURED_OUTPUTS, CHECKED } from "./sources.js";

const SOURCE = ANTHROPIC_STRUCTURED_OUTPUTS.title;
const SUPPORTED = new Set(["type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "allOf", "$ref", "$defs", "definitions", "default", "description", "format", "minItems", "pattern"]);
const NUMERIC = new Set(["minimum", "maximum", "multipleOf", "exclusiveMinimum", "exclusiveMaximum"]);
const STRING_BOUNDS = new Set(["minLength", "maxLength"]);
const ARRAY_BOUNDS = new Set(["maxItems", "uniqueItems", "contains", "minContains", "maxContains"]);
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"]);
/** Regex features the page lists as not supported: backreferences, lookaround, word boundaries. */
const UNSUPPORTED_REGEX = /\\[1-9]|\(\?[=!]|\(\?<[=!]|\\[bB]/;

/** The documented per-request limits. */
export const ANTHROPIC_STRICT_LIMITS = { strictTools: 20, optionalParameters: 24, unionParameters: 16 } as const;

const rejected = (reason: string, hint: string): KeywordVerdict => ({ treatment: "rejected", reason, hint, source: SOURCE });

function judgeKeyword(keyword: string, node: SchemaNode, root: JsonObject): KeywordVerdict | undefined {
  const value = node.schema[keyword];
  if (NUMERIC.has(keyword)) return rejected(`strict tool use does not support numerical constraints ('${keyword}')`, removedRuleHint(keyword, "bound"));
  if (STRING_BOUNDS.has(keyword)) return rejected(`strict tool use does not support string constraints ('${keyword}')`, removedRuleHint(keyword, "bound"));
  if (ARRAY_BOUNDS.has(keyword)) return rejected(`strict tool use supports no array constraint beyond minItems 0 or 1 ('${keyword}')`, removedRuleHint(keyword, "constraint"));
  if (keyword === "minItems" && typeof value === "number" && value > 1) return rejected(`strict tool use supports minItems of 0 or 1 only (here ${value})`, "Use minItems 0 or 1 and check the count in the tool.");
  if (keyword === "$ref" && typeof value === "string" && !value.startsWith("#")) return rejected(`external $ref '${value}' is not supported`, "Inline the referenced schema, or move it under $defs.");
  if (keyword === "$ref" && refCycles(root).some((p) => p.join("/") === [...node.path, "$ref"].join("/"))) return rejected("recursive schemas are not supported", "Unroll the recursion to a fixed depth.");
  if (keyword === "enum" && Array.isArray(value) && value.some((v) => v !== null && typeof v === "object")) return rejected("enum values must be strings, numbers, booleans or null", "Use primitive enum values.");
  if (keyword === "allOf" && Array.isArray(value) && value.some((member) => isJsonObject(member) && Object.hasOwn(member, "$ref"))) return rejected("`allOf` with `$ref` is not supported", "Inline the referenced schema into the allOf member.");
  if (keyword === "pattern" && typeof value === "string" && UNSUPPORTED_REGEX.test(value)) return rejected("the pattern uses backreferences, lookaround or word boundaries, which are not supported", "Simplify the pattern.");
  if (keyword === "format" && typeof value === "string" && !FORMATS.has(value)) {
    return { treatment: "unverified", reason: `format '${value}' is not one of the listed formats (${[...FORMATS].join(", ")})`, hint: "Use a listed format or a simple pattern.", source: SOURCE };
  }
  if (!SUPPORTED.has(keyword)) {
    return { treatment: "unverified", reason: `'${keyword}' is not in the documented strict subset, and the page does not say whether it is refused`, hint: `Remove '${keyword}', or check it against the API.`, source: SOURCE };
  }
  return undefined;
}

/** Optional and union-typed parameters of one schema, as the complexity limits count them. */
export function countStrictParameters(schema: JsonObject): { optional: number; union: number } {
  const { optional, union } = strictParameters(schema);
  return { optional: optional.length, union: union.length };
}

/** The schema paths of the optional and of the union-typed parameters of one schema (every property of every object schema). */
export function strictParameters(schema: JsonObject): { optional: SchemaPath[]; union: SchemaPath[] } {
  const optional: SchemaPath[] = [];
  const union: SchemaPath[] = [];
  walkSchema(schema, ({ schema: node, path }) => {
    const props = node["properties"];
    if (!isJsonObject(props)) return;
    const required = Array.isArray(node["required"]) ? node["required"] : [];
    for (const name of Object.keys(props)) {
      const at = [...path, "properties", name];
      if (!required.includes(name)) optional.push(at);
      const property = props[name];
      if (isJsonObject(property) && (Object.hasOwn(property, "anyOf") || Array.isArray(property["type"]))) union.push(at);
    }
  });
  return { optional, union };
}

function requestBudgets(tools: readonly RequestTool[]): RequestOverrun[] {
  const limits = ANTHROPIC_STRICT_LIMITS;
  const counted = tools.map((tool) => ({ tool: tool.name, ...strictParameters(tool.inputSchema) }));
  const total = (pick: (c: (typeof counted)[number]) => readonly SchemaPath[]): number => counted.reduce((sum, c) => sum + pick(c).length, 0);
  // Per tool, largest first, so the message says where to start (new-user trial 129, finding 4).
  const perTool = (pick: (c: (typeof counted)[number]) => readonly SchemaPath[]) =>
    counted.filter((c) => pick(c).length > 0).map((c) => ({ tool: c.tool, paths: pick(c) })).sort((a, b) => b.paths.length - a.paths.length || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  const byTool = (list: ReturnType<typeof perTool>): string => list.map((c) => `${c.tool} ${c.paths.length}`).join(", ");
  const out: RequestOverrun[] = [];
  const optional = total((c) => c.optional);
  const union = total((c) => c.union);
  if (optional > limits.optionalParameters) {
    const list = perTool((c) => c.optional);
    out.push({ what: `optional parameters across its strict tools (${byTool(list)})`, actual: optional, limit: limits.optionalParameters, hint: "Make parameters required (nullable where they may be absent), or set tools to `visibility: \"deferred\"`.", source: SOURCE, counted: list, item: "an optional parameter" });
  }
  if (union > limits.unionParameters) {
    const list = perTool((c) => c.union);
    out.push({ what: `parameters with union types (anyOf or a type array) across its strict tools (${byTool(list)})`, actual: union, limit: limits.unionParameters, hint: "Give those parameters one type, or set tools to `visibility: \"deferred\"`.", source: SOURCE, counted: list, item: "a union-typed parameter" });
  }
  return out;
}

export const anthropicStrictProfile: ProviderProfile = {
  id: "anthropic-strict",
  title: "Anthropic Claude strict tool use (strict: true)",
  version: CHECKED,
  sources: [ANTHROPIC_STRUCTURED_OUTPUTS, ANTHROPIC_STRICT_TOOL_USE, ANTHROPIC_DEFINE_TOOLS],
  name: ANTHROPIC_NAME,
  toolCap: { limit: ANTHROPIC_STRICT_LIMITS.strictTools, counts: "authored", what: "strict tools (authored, visible)", source: SOURCE },
  judgeKeyword,
  strictObjects: { allRequired: false, closed: true, source: SOURCE },
  requestBudgets,
  notes: [
    "The 20/24/16 limits apply across every strict schema of one request; we count the surface's visible authored tools (core tools are not sent strict). The API's further internal grammar-size limits (\"Schema is too complex for compilation\") have no published number and are not checked.",
    "Keywords outside the documented supported list (e.g. `title`, `oneOf`, `not`) are unverified warnings.",
  ],
};
