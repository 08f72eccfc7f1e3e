/**
 * The profiles' rules one by one (`checkToolDefinition`), with schemas from the providers'
 * documented rules, and the diagnostics no compile can produce on its own (a name only MCP
 * advises against: Assembly Line's own name rule is stricter).
 */
import { describe, expect, it } from "vitest";
import { checkToolDefinition } from "../../compiler/providers/check-tool.js";
import { checkProviderTargets } from "../../compiler/providers/check-targets.js";
import { PROVIDER_PROFILES, profileOf, TARGET_IDS } from "../../compiler/providers/index.js";
import type { SurfaceTools } from "../../compiler/providers/surface-tools.js";
import type { AgentAnalysis } from "../../compiler/analyze-agent.js";
import { refCycles } from "../../compiler/providers/schema-walk.js";
import { openaiStrictBudgets } from "../../compiler/providers/openai-strict.js";

const at = (target: (typeof TARGET_IDS)[number], inputSchema: object, name = "tool") =>
  checkToolDefinition(profileOf(target), { name, inputSchema: inputSchema as never }).map((f) => `${f.treatment} ${f.path.join(".")}`);

describe("the profiles", () => {
  it("are the seven issue 11 names, each dated, versioned and with sources", () => {
    expect(PROVIDER_PROFILES.map((p) => p.id)).toEqual(["openai", "openai-strict", "anthropic", "anthropic-strict", "gemini", "gemini-json-schema", "mcp-2025-11-25"]);
    for (const profile of PROVIDER_PROFILES) {
      expect(profile.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(profile.sources.length).toBeGreaterThan(0);
      for (const source of profile.sources) expect(source.url).toMatch(/^https:\/\//);
    }
  });
});

describe("openai-strict rules", () => {
  it("refuses an anyOf root, and each documented unsupported keyword", () => {
    expect(at("openai-strict", { type: "object", anyOf: [{ required: ["a"] }], properties: {}, additionalProperties: false })).toEqual(["rejected anyOf"]);
    for (const keyword of ["not", "if", "then", "else", "dependentRequired", "dependentSchemas"]) {
      expect(at("openai-strict", { type: "object", properties: { a: { type: "string", [keyword]: {} } }, required: ["a"], additionalProperties: false })).toContain(`rejected properties.a.${keyword}`);
    }
  });

  it("counts nesting: 10 levels of objects pass, 11 are refused at the first level too deep", () => {
    const nest = (levels: number): object => (levels === 1 ? { type: "object", properties: {}, additionalProperties: false } : { type: "object", properties: { n: nest(levels - 1) }, required: ["n"], additionalProperties: false });
    expect(openaiStrictBudgets(nest(10) as never)).toEqual([]);
    const over = openaiStrictBudgets(nest(11) as never);
    expect(over.map((o) => [o.what, o.actual, o.limit, o.path.join(".")])).toEqual([["levels of object nesting", 11, 10, Array(10).fill("properties.n").join(".")]]);
  });

  it("reports an unlisted format and an undocumented keyword as unverified, never as refused", () => {
    expect(at("openai-strict", { type: "object", properties: { u: { type: "string", format: "uri" }, d: { type: "string", default: "x" } }, required: ["u", "d"], additionalProperties: false })).toEqual([
      "unverified properties.u.format",
      "unverified properties.d.default",
    ]);
  });
});

describe("anthropic-strict rules", () => {
  it("refuses recursion, external refs, complex enums and unsupported regex features", () => {
    expect(at("anthropic-strict", { type: "object", properties: { child: { $ref: "#" } }, additionalProperties: false })).toEqual(["rejected properties.child.$ref"]);
    expect(at("anthropic-strict", { type: "object", properties: { a: { $ref: "https://example.com/a.json" } }, additionalProperties: false })).toEqual(["rejected properties.a.$ref"]);
    expect(at("anthropic-strict", { type: "object", properties: { a: { enum: [{ x: 1 }] } }, additionalProperties: false })).toEqual(["rejected properties.a.enum"]);
    expect(at("anthropic-strict", { type: "object", properties: { a: { type: "string", pattern: "^(a)\\1$" } }, additionalProperties: false })).toEqual(["rejected properties.a.pattern"]);
    expect(at("anthropic-strict", { type: "object", properties: { a: { type: "string", pattern: "^[a-z]+$" } }, additionalProperties: false })).toEqual([]);
  });

  it("requires additionalProperties: false on every object, nested ones included", () => {
    expect(at("anthropic-strict", { type: "object", properties: { o: { type: "object", additionalProperties: true } }, additionalProperties: false })).toEqual(["rejected properties.o.additionalProperties"]);
  });
});

describe("gemini rules", () => {
  it("sends a schema with $schema as parametersJsonSchema (info) and judges it by the JSON Schema list", () => {
    expect(at("gemini", { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { a: { type: "string" } }, additionalProperties: false })).toEqual(["transformed $schema"]);
  });

  it("refuses type: null alone and type beside anyOf (the SDK throws), and non-string enums", () => {
    expect(at("gemini", { type: "object", properties: { a: { type: "null" }, b: { type: "string", anyOf: [{ type: "string" }] }, c: { type: "integer", enum: [1, 2] } } })).toEqual([
      "rejected properties.a.type",
      "rejected properties.b.type",
      "rejected properties.c.enum",
    ]);
  });

  it("reports an anyOf member {type: null} as rewritten into nullable", () => {
    expect(at("gemini", { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "null" }] } } })).toEqual(["transformed properties.a.anyOf"]);
  });
});

describe("gemini-json-schema rules", () => {
  it("reports a recursive reference as unrolled (info)", () => {
    expect(refCycles({ type: "object", $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } }, properties: { head: { $ref: "#/$defs/node" } } } as never).map((p) => p.join("."))).toEqual([
      "$defs.node.properties.next.$ref",
      "properties.head.$ref",
    ]);
    expect(at("gemini-json-schema", { type: "object", properties: { child: { $ref: "#" } } })).toEqual(["transformed properties.child.$ref"]);
  });
});

describe("mcp-2025-11-25 rules", () => {
  it("advises against names outside 1–128 characters of A-Z, a-z, 0-9, '_', '-', '.' (a SHOULD: a warning, AL4702)", () => {
    expect(checkToolDefinition(profileOf("mcp-2025-11-25"), { name: "search docs", inputSchema: { type: "object" } }).map((f) => [f.kind, f.treatment])).toEqual([["name", "advisory"]]);
    // As a diagnostic: a tool as the compile would hand it over, with its key's location.
    const location = { file: "/agent/plugins/x/ai.assemblyline/index.ts", line: 3, column: 5 };
    const surface = { id: ".", agentFile: "/agent/agent.md" };
    const surfaces = [{ surface, tools: [{ name: "search docs", description: "d", inputSchema: { type: "object" }, visibility: "visible", source: "x", authored: { tool: { location }, capability: { entry: undefined } } }] }] as unknown as SurfaceTools[];
    const analysis = { root: "/agent", agent: { surfaces: [surface] } } as unknown as AgentAnalysis;
    const [diagnostic] = checkProviderTargets(analysis, ["mcp-2025-11-25"], surfaces);
    expect(diagnostic).toMatchObject({ code: "AL4702", severity: "warning", path: "tools[\"search docs\"]", ...location });
    expect(diagnostic!.message).toContain("names should be 1–128 characters of A-Z, a-z, 0-9, '_', '-' and '.'");
  });
});
