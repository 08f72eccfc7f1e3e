/**
 * Judges one tool definition against one provider profile: its name, every keyword of its
 * input schema at its exact path, the strict-mode object rules and the schema's size budgets.
 * Returns plain findings (no diagnostics, no locations): `check-targets.ts` places and words them.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import type { ProviderProfile, Treatment } from "./profile.js";
import { isObjectSchema, walkSchema, type SchemaPath } from "./schema-walk.js";

/** What one finding is about. */
export type FindingKind = "name" | "keyword" | "property-optional" | "object-open" | "budget";

/** One thing a target will do with a tool definition. */
export interface ToolFinding {
  readonly kind: FindingKind;
  /** How the target treats it; `advisory` is a broken SHOULD (a name rule of MCP). */
  readonly treatment: Treatment | "advisory";
  /** Path inside the input schema (`[]` for the root, and for the name). */
  readonly path: SchemaPath;
  /** The keyword, property name or counted thing. */
  readonly subject: string;
  readonly reason: string;
  readonly hint: string;
  readonly source: string;
  /** For budgets: the count and the limit. */
  readonly actual?: number;
  readonly limit?: number;
}

/** The part of a tool definition a provider sees. */
export interface ToolDefinitionInput {
  readonly name: string;
  readonly inputSchema: JsonObject;
}

/** Every finding for `tool` under `profile`: the name first, then in schema order, budgets last. */
export function checkToolDefinition(profile: ProviderProfile, tool: ToolDefinitionInput): ToolFinding[] {
  const findings: ToolFinding[] = [];
  const name = profile.name;
  if (!name.pattern.test(tool.name)) {
    findings.push({ kind: "name", treatment: name.severity === "error" ? "rejected" : "advisory", path: [], subject: tool.name, reason: name.rule, hint: "", source: name.source });
  }
  const root = tool.inputSchema;
  walkSchema(root, (node) => {
    if (profile.judgeKeyword) {
      for (const keyword of Object.keys(node.schema)) {
        const verdict = profile.judgeKeyword(keyword, node, root);
        if (verdict) findings.push({ kind: "keyword", treatment: verdict.treatment, path: [...node.path, keyword], subject: keyword, reason: verdict.reason, hint: verdict.hint, source: verdict.source });
      }
    }
    const strict = profile.strictObjects;
    if (!strict || !isObjectSchema(node.schema)) return;
    const schema = node.schema;
    if (strict.closed && schema["additionalProperties"] !== false) {
      const present = Object.hasOwn(schema, "additionalProperties");
      findings.push({
        kind: "object-open",
        treatment: "rejected",
        path: present ? [...node.path, "additionalProperties"] : node.path,
        subject: node.path.length === 0 ? "the root object" : "this object",
        reason: present ? "its `additionalProperties` is not `false`" : "it has no `additionalProperties: false`",
        hint: openObjectHint(schema),
        source: strict.source,
      });
    }
    const properties = schema["properties"];
    if (strict.allRequired && isJsonObject(properties)) {
      const required = Array.isArray(schema["required"]) ? schema["required"] : [];
      for (const property of Object.keys(properties)) {
        if (required.includes(property)) continue;
        findings.push({
          kind: "property-optional",
          treatment: "rejected",
          path: [...node.path, "properties", property],
          subject: property,
          reason: "strict mode requires every property to be listed in `required`",
          hint: nullableHint(property, properties[property]),
          source: strict.source,
        });
      }
    }
  });
  for (const overrun of profile.schemaBudgets?.(root) ?? []) {
    findings.push({ kind: "budget", treatment: "rejected", path: overrun.path, subject: overrun.what, reason: `${overrun.actual} ${overrun.what}, more than ${overrun.limit}`, hint: overrun.hint, source: overrun.source, actual: overrun.actual, limit: overrun.limit });
  }
  return findings;
}

/**
 * AL4707's hint for an optional `property` with subschema `schema`, fitted to its shape (new-user
 * trial 129, findings 2, 3 and 14), by OpenAI's Structured Outputs guide ("emulate an optional
 * parameter by using a union type with null"; `anyOf` is supported, `oneOf` is not listed):
 * - already nullable (a type array or `anyOf` member allowing null, and null in its enum if it
 *   has one): only "add it to `required`";
 * - with a `type`: `"type": [<its types>, "null"]`, and `null` added to its `enum` when it has one,
 *   its `const` written as `"enum": [<the value>, null]` when it has one (else null is refused, AL4039);
 * - without a `type`: `null` added to its `enum`, `{ "type": "null" }` added to its `anyOf` (its
 *   `oneOf` written as `anyOf`), else `"anyOf": [<it>, { "type": "null" }]` (a `$ref` shown).
 */
export function nullableHint(property: string, schema: JsonValue | undefined): string {
  const add = `Add '${property}' to \`required\``;
  const absent = "the model then sends null when it has no value, and the tool treats null as absent.";
  if (!isJsonObject(schema)) return `${add} and make it nullable (\`"anyOf": [<its schema>, { "type": "null" }]\`): ${absent}`;
  const type = schema["type"];
  const values = Array.isArray(schema["enum"]) ? schema["enum"] : undefined;
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
  const anyOf = Array.isArray(schema["anyOf"]) ? schema["anyOf"] : undefined;
  const nullMember = anyOf?.some((member) => isJsonObject(member) && (member["type"] === "null" || (Array.isArray(member["type"]) && member["type"].includes("null")))) ?? false;
  const typeAllowsNull = types.includes("null");
  const enumAllowsNull = values?.includes(null) ?? false;
  // A `const` allows one value: one that is not null refuses null whatever the type says (AL4039).
  const constRefusesNull = Object.hasOwn(schema, "const") && schema["const"] !== null;
  if ((typeAllowsNull || nullMember || (types.length === 0 && enumAllowsNull)) && (values === undefined || enumAllowsNull) && !constRefusesNull) return `${add}: it is already nullable, so ${absent}`;
  if (types.length > 0) {
    const nullable = `\`"type": [${[...types.filter((t) => t !== "null"), "null"].map((t) => JSON.stringify(t)).join(", ")}]\``;
    const constant = JSON.stringify(schema["const"]) ?? "";
    const withConst = constRefusesNull ? ` and write its \`const\` as \`"enum": [${constant.length > 40 ? "<its value>" : constant}, null]\` (a type that allows null is not enough: the const refuses it)` : "";
    const withEnum = (values !== undefined && !values.includes(null) ? ` and add \`null\` to its \`enum\` (a type that allows null is not enough: the enum refuses it)` : "") + withConst;
    return typeAllowsNull ? `${add}${withEnum}: ${absent}` : `${add} and make it nullable (${nullable}${withEnum}): ${absent}`;
  }
  if (values !== undefined) return `${add} and make it nullable (add \`null\` to its \`enum\`): ${absent}`;
  if (anyOf !== undefined) return `${add} and make it nullable (add \`{ "type": "null" }\` to its \`anyOf\`): ${absent}`;
  if (Array.isArray(schema["oneOf"])) return `${add} and make it nullable (write its \`oneOf\` as \`anyOf\`, which strict mode supports, and add \`{ "type": "null" }\` to it): ${absent}`;
  const shown = typeof schema["$ref"] === "string" ? `{ "$ref": ${JSON.stringify(schema["$ref"])} }` : "<its schema>";
  return `${add} and make it nullable (\`"anyOf": [${shown}, { "type": "null" }]\`): ${absent}`;
}

/**
 * AL4708's hint for an open object: add `additionalProperties: false`; but for a map (a schema
 * under `additionalProperties` and no listed keys) that would leave an always-empty object
 * (new-user trial 129, finding 10), so a map becomes an array of key/value objects.
 */
export function openObjectHint(schema: JsonObject): string {
  const values = schema["additionalProperties"];
  const listed = isJsonObject(schema["properties"]) && Object.keys(schema["properties"]).length > 0;
  if (!listed && (isJsonObject(values) || values === true)) {
    const value = isJsonObject(values) ? JSON.stringify(values) : "<the value's schema>";
    return `This object is a map (its keys are not listed), which strict mode cannot generate; \`"additionalProperties": false\` would leave it always empty. Make it an array of key/value objects: \`{ "type": "array", "items": { "type": "object", "properties": { "key": { "type": "string" }, "value": ${value} }, "required": ["key", "value"], "additionalProperties": false } }\`.`;
  }
  return "Add `\"additionalProperties\": false` to this object: strict mode only generates the listed keys.";
}

