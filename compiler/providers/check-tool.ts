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
        hint: "Add `\"additionalProperties\": false` to this object: strict mode only generates the listed keys.",
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
          hint: `Add '${property}' to \`required\` and make it nullable (\`"type": [${nullableTypes(properties[property])}]\`): the model then sends null when it has no value, and the tool treats null as absent.`,
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

/** `"string", "null"` for a property typed `string`: the nullable form a hint suggests. */
function nullableTypes(schema: JsonValue | undefined): string {
  const type = isJsonObject(schema) ? schema["type"] : undefined;
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
  const list = types.length > 0 ? types : ["string"];
  return [...list.filter((t) => t !== "null"), "null"].map((t) => JSON.stringify(t)).join(", ");
}
