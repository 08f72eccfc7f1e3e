/**
 * New-user trial 129, finding 5: anthropic-strict's AL4703 hint said "Remove 'minimum' … the tool
 * still validates its input at run time". The runtime validates against the locked inputSchema,
 * the schema as written: once the bound is removed, `limit: -5` reaches the tool. The hint now
 * says where the rule must go instead.
 */
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { agentWithTools } from "./helpers.js";

describe("the hint for a keyword a strict target refuses", () => {
  it.each([
    ["anthropic-strict", { limit: { type: "integer", minimum: 1 } }, "minimum", "bound"],
    ["anthropic-strict", { text: { type: "string", maxLength: 5 } }, "maxLength", "bound"],
    ["anthropic-strict", { tags: { type: "array", items: { type: "string" }, maxItems: 3 } }, "maxItems", "constraint"],
    ["openai-strict", { n: { type: "integer", not: { const: 3 } } }, "not", "rule"],
  ])("%s, %s: says the tool's code must check it, not that the input is still validated", async (target, properties, keyword, what) => {
    const root = agentWithTools({ t: { inputSchema: { type: "object", properties, required: Object.keys(properties), additionalProperties: false } } });
    const result = await compileAgent({ root, package: false, cache: false, targets: [target] });
    const refused = result.diagnostics.find((d) => d.code === "AL4703" && String(d.path).endsWith(`.${keyword}`))!;
    expect(refused.hint).toBe(`Remove '${keyword}', state the ${what} in the description, and check it in the tool's code (throw a RecoverableToolError): the run-time input check uses the schema as written, so once '${keyword}' is gone nothing else enforces it.`);
  });
});
