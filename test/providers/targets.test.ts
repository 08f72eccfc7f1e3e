/**
 * Issue 11 item 1: per provider profile, schemas taken from the providers' documented rules —
 * one the target accepts and one it refuses — each asserting the exact code and property path,
 * through the real compile (`compileAgent({ targets })`).
 */
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { agentWithTools, type ToolSpec } from "./helpers.js";

async function compileFor(targets: readonly string[], tools: Readonly<Record<string, ToolSpec>>): Promise<{ ok: boolean; diagnostics: readonly Diagnostic[] }> {
  const result = await compileAgent({ root: agentWithTools(tools), package: false, cache: false, targets });
  return { ok: result.ok, diagnostics: result.diagnostics };
}

/** `code path` pairs of the provider diagnostics (AL47xx), sorted. */
function findings(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.filter((d) => d.code.startsWith("AL47")).map((d) => `${d.code} ${d.path ?? ""}`).sort();
}

/** OpenAI's own strict example (Structured Outputs, "All fields must be required"): closed, every field required, optional as a null union. */
const OPENAI_WEATHER: ToolSpec = {
  inputSchema: {
    type: "object",
    properties: { location: { type: "string", description: "The location to get the weather for" }, unit: { type: ["string", "null"], enum: ["F", "C", null] } },
    additionalProperties: false,
    required: ["location", "unit"],
  },
};

describe("openai-strict", () => {
  it("accepts the guide's strict example: nothing reported, the compile succeeds", async () => {
    const { ok, diagnostics } = await compileFor(["openai-strict"], { get_weather: OPENAI_WEATHER });
    expect(findings(diagnostics)).toEqual([]);
    expect(ok).toBe(true);
  });

  it("refuses an optional field, an open object and allOf, each at its path; the hint says to make the field required and nullable", async () => {
    const { ok, diagnostics } = await compileFor(["openai-strict"], {
      lookup: {
        inputSchema: {
          type: "object",
          properties: { query: { type: "string" }, limit: { type: "integer" }, filter: { allOf: [{ type: "string" }] } },
          required: ["query", "filter"],
        },
      },
    });
    expect(ok).toBe(false);
    expect(findings(diagnostics)).toEqual([
      "AL4703 tools.lookup.inputSchema.properties.filter.allOf",
      "AL4707 tools.lookup.inputSchema.properties.limit",
      "AL4708 tools.lookup.inputSchema",
    ]);
    const optional = diagnostics.find((d) => d.code === "AL4707")!;
    expect(optional.severity).toBe("error");
    expect(optional.hint).toBe("Add 'limit' to `required` and make it nullable (`\"type\": [\"integer\", \"null\"]`): the model then sends null when it has no value, and the tool treats null as absent.");
    // Located where the property is written in the plugin entry.
    expect(optional).toMatchObject({ file: "plugins/tools/ai.assemblyline/index.ts", line: 12, column: 11 });
  });

  it("refuses more than 1000 enum values (the guide's size limit)", async () => {
    const values = Array.from({ length: 1001 }, (_, i) => `v${i}`);
    const { diagnostics } = await compileFor(["openai-strict"], {
      pick: { inputSchema: { type: "object", properties: { choice: { type: "string", enum: values } }, required: ["choice"], additionalProperties: false } },
    });
    expect(findings(diagnostics)).toEqual(["AL4709 tools.pick.inputSchema.properties.choice.enum"]);
    expect(diagnostics.find((d) => d.code === "AL4709")!.message).toContain("has 1001 enum values in the schema; target 'openai-strict' allows at most 1000");
  });
});

describe("openai", () => {
  it("checks no keyword but refuses a surface that starts with more than 128 functions (core tools count)", async () => {
    const tools: Record<string, ToolSpec> = {};
    for (let i = 0; i < 125; i++) tools[`tool_${String(i).padStart(3, "0")}`] = { inputSchema: { type: "object", properties: { x: { type: "string", minLength: 1 } } } };
    const { diagnostics } = await compileFor(["openai"], tools);
    const cap = diagnostics.filter((d) => d.code.startsWith("AL47"));
    expect(cap.map((d) => [d.code, d.file, d.line])).toEqual([["AL4710", "agent.md", 1]]);
    expect(cap[0]!.message).toMatch(/^Surface '\.' starts with 13\d tools \(functions per request\); target 'openai' allows at most 128/);
  });
});

describe("anthropic-strict", () => {
  it("accepts optional properties in a closed object (strict tool use allows them)", async () => {
    const { diagnostics } = await compileFor(["anthropic-strict"], {
      search_flights: { inputSchema: { type: "object", properties: { destination: { type: "string" }, date: { type: "string", format: "date" } }, required: ["destination"], additionalProperties: false } },
    });
    expect(findings(diagnostics)).toEqual([]);
  });

  it("refuses numerical and string constraints and minItems above 1, at their keywords", async () => {
    const { diagnostics } = await compileFor(["anthropic-strict"], {
      list_items: {
        inputSchema: {
          type: "object",
          properties: { limit: { type: "integer", minimum: 1 }, name: { type: "string", maxLength: 10 }, ids: { type: "array", items: { type: "string" }, minItems: 2 } },
          additionalProperties: false,
        },
      },
    });
    expect(findings(diagnostics)).toEqual([
      "AL4703 tools.list_items.inputSchema.properties.ids.minItems",
      "AL4703 tools.list_items.inputSchema.properties.limit.minimum",
      "AL4703 tools.list_items.inputSchema.properties.name.maxLength",
    ]);
  });

  it("refuses more than 20 strict tools and more than 24 optional parameters per request", async () => {
    const tools: Record<string, ToolSpec> = {};
    for (let i = 0; i < 21; i++) tools[`t${i}`] = { inputSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, additionalProperties: false } };
    const { diagnostics } = await compileFor(["anthropic-strict"], tools);
    const surface = diagnostics.filter((d) => d.code === "AL4710" || d.code === "AL4711");
    expect(surface.map((d) => d.code)).toEqual(["AL4710", "AL4711"]);
    expect(surface[0]!.message).toContain("starts with 21 strict tools (authored, visible); target 'anthropic-strict' allows at most 20");
    expect(surface[1]!.message).toContain("has 42 optional parameters across its strict tools (t0 2, t1 2, t10 2, ");
    expect(surface[1]!.message).toContain("t9 2); target 'anthropic-strict' allows at most 24 per request");
    expect(surface[1]!.related).toHaveLength(42);
  });
});

describe("anthropic", () => {
  it("accepts any schema keyword (none is documented as refused)", async () => {
    const { diagnostics } = await compileFor(["anthropic"], { calc: { inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 0, not: { const: 3 } } } } } });
    expect(findings(diagnostics)).toEqual([]);
  });
});

describe("gemini", () => {
  it("says what the Gen AI SDK drops (warning) and rewrites (info), and refuses keywords outside Schema", async () => {
    const { ok, diagnostics } = await compileFor(["gemini"], {
      note: {
        inputSchema: {
          type: "object",
          properties: { text: { type: "string" }, tag: { type: ["string", "null"] }, kind: { const: "memo" } },
          additionalProperties: false,
        },
      },
    });
    expect(ok).toBe(false);
    expect(findings(diagnostics)).toEqual([
      "AL4703 tools.note.inputSchema.properties.kind.const",
      "AL4704 tools.note.inputSchema.additionalProperties",
      "AL4705 tools.note.inputSchema.properties.tag.type",
    ]);
    expect(diagnostics.find((d) => d.code === "AL4704")!.severity).toBe("warning");
    expect(diagnostics.find((d) => d.code === "AL4705")!.severity).toBe("info");
  });

  it("refuses a function name that does not start with a letter or '_'", async () => {
    const { diagnostics } = await compileFor(["gemini"], { "2fa-check": { inputSchema: { type: "object", properties: { code: { type: "string" } } } } });
    expect(findings(diagnostics)).toEqual(["AL4701 tools[\"2fa-check\"]"]);
  });

  it("accepts the OpenAPI subset as written", async () => {
    const { diagnostics } = await compileFor(["gemini"], { find: { inputSchema: { type: "object", properties: { q: { type: "string", maxLength: 80 }, n: { type: "integer", minimum: 1, maximum: 20 } }, required: ["q"] } } });
    expect(findings(diagnostics)).toEqual([]);
  });
});

describe("gemini-json-schema", () => {
  it("reports oneOf as interpreted as anyOf (info) and undocumented keywords as unverified (warning)", async () => {
    const { ok, diagnostics } = await compileFor(["gemini-json-schema"], {
      pick: { inputSchema: { type: "object", properties: { v: { oneOf: [{ type: "string" }, { type: "integer" }] }, w: { type: "string", minLength: 2 } } } },
    });
    expect(ok).toBe(true);
    expect(findings(diagnostics)).toEqual(["AL4705 tools.pick.inputSchema.properties.v.oneOf", "AL4706 tools.pick.inputSchema.properties.w.minLength"]);
  });

  it("accepts $defs, $ref, additionalProperties and prefixItems", async () => {
    const { diagnostics } = await compileFor(["gemini-json-schema"], {
      plan: { inputSchema: { type: "object", $defs: { step: { type: "string" } }, properties: { steps: { type: "array", items: { $ref: "#/$defs/step" } }, pair: { type: "array", prefixItems: [{ type: "string" }] } }, additionalProperties: false } },
    });
    expect(findings(diagnostics)).toEqual([]);
  });
});

describe("mcp-2025-11-25", () => {
  it("accepts every name Assembly Line allows (its rule is stricter than the SHOULD)", async () => {
    const { diagnostics } = await compileFor(["mcp-2025-11-25"], { "get-user_v2": { inputSchema: { type: "object" } } });
    expect(findings(diagnostics)).toEqual([]);
  });
});

describe("targets", () => {
  it("reports an unknown target id once, with a did-you-mean", async () => {
    const { ok, diagnostics } = await compileFor(["openai-stict", "openai-stict"], { echo: { inputSchema: { type: "object" } } });
    expect(ok).toBe(false);
    const unknown = diagnostics.filter((d) => d.code === "AL4712");
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ file: "agent.md", message: "Unknown target 'openai-stict'." });
    expect(unknown[0]!.hint).toContain("Did you mean 'openai-strict'?");
  });

  it("checks deferred tools but not hidden ones", async () => {
    const open = { type: "object", properties: { a: { type: "string" } } };
    const { diagnostics } = await compileFor(["openai-strict"], { later: { inputSchema: open, visibility: "deferred" }, never: { inputSchema: open, visibility: "hidden" } });
    expect(findings(diagnostics)).toEqual(["AL4707 tools.later.inputSchema.properties.a", "AL4708 tools.later.inputSchema"]);
  });
});
