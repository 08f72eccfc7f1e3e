/**
 * Issue 11 item 2: token counts of tool definitions (o200k_base via gpt-tokenizer, pinned for a
 * known tool) and the tokenBudget diagnostics.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { countToolTokens, loadTokenCounter, tokenCountLabel, toolWireJson } from "../../compiler/providers/tokens.js";
import { agentMd, agentWithTools, pluginFiles } from "./helpers.js";
import { writeTree } from "../helpers/temp-tree.js";

/** The seed's echo tool ("Minimal Example"). */
const ECHO = { name: "echo", description: "Echo a message back to the caller.", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } };

describe("token counts", () => {
  it("pins the seed's echo tool at 42 o200k_base tokens as OpenAI receives it (36 as Anthropic's input_schema form, an estimate)", async () => {
    const count = await loadTokenCounter();
    expect(toolWireJson(ECHO)).toBe('{"type":"function","function":{"name":"echo","description":"Echo a message back to the caller.","parameters":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}}');
    expect(countToolTokens([ECHO], count)).toEqual({ tools: [{ name: "echo", tokens: 42 }], total: 42 });
    expect(countToolTokens([ECHO], count, "anthropic").total).toBe(36);
    expect(tokenCountLabel("anthropic")).toBe("o200k_base, an estimate for anthropic");
    expect(tokenCountLabel()).toBe("o200k_base, the tool JSON as OpenAI receives it");
  });
});

describe("tokenBudget", () => {
  const big = (words: number) => ({ description: `Does a thing. ${"Detail word ".repeat(words)}`, inputSchema: { type: "object", properties: { q: { type: "string" } } } });

  it("reports a surface over its budget (AL4720), naming its three largest authored tools and the core tools' share", async () => {
    const root = agentWithTools({ huge: big(400), large: big(200), medium: big(100), small: big(1) });
    const result = await compileAgent({ root, package: false, cache: false, tokenBudget: 2000 });
    expect(result.ok).toBe(false);
    const over = result.diagnostics.filter((d) => d.code === "AL4720");
    expect(over).toHaveLength(1);
    expect(over[0]).toMatchObject({ severity: "error", file: "agent.md", line: 1, column: 1 });
    expect(over[0]!.message).toMatch(/^Surface '\.' starts with \d+ tokens of tool definitions \(o200k_base, the tool JSON as OpenAI receives it\), over its tokenBudget of 2000\. Largest tools: huge \(\d+\), large \(\d+\), medium \(\d+\); the core tools take \d+\.$/);
    expect(over[0]!.hint).toContain('visibility: "deferred"');
    // Deferring the largest tools brings the snapshot under a budget that fits the rest.
    const deferred = agentWithTools({ huge: { ...big(400), visibility: "deferred" }, large: { ...big(200), visibility: "deferred" }, medium: big(100), small: big(1) });
    const under = await compileAgent({ root: deferred, package: false, cache: false, tokenBudget: { ".": 4000 } });
    expect(under.diagnostics.filter((d) => d.code.startsWith("AL472"))).toEqual([]);
  });

  it("takes budgets per surface path and warns about a key that names no surface (AL4721)", async () => {
    const root = writeTree({
      "agent.md": agentMd(["tools"]),
      ...pluginFiles("tools", { a: big(10) }),
      "subagents/helper/agent.md": agentMd([]),
    });
    const result = await compileAgent({ root, package: false, cache: false, tokenBudget: { ".": 100_000, "subagents/helper": 10, "subagents/nope": 5 } });
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([
      ["AL4721", "agent.md"],
      ["AL4720", path.join("subagents", "helper", "agent.md").split(path.sep).join("/")],
    ]);
    expect(result.diagnostics[0]!.message).toBe("tokenBudget names surface 'subagents/nope', which this agent does not have (its surfaces: \".\", \"subagents/helper\").");
    expect(result.diagnostics[1]!.message).toContain("Largest tools: none of the surface's own tools; the core tools take");
  });
});
