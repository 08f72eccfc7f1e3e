/**
 * New-user trial 129, finding 4: AL4711 (anthropic-strict: more than 16 union-typed parameters
 * per request) sat at agent.md:1:1 and named no tool and no parameter; the user counted 23 by
 * hand. It now says the count per tool and points at every counted parameter.
 */
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { agentWithTools } from "./helpers.js";

const nullable = (n: number, prefix: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { type: ["string", "null"] }]));

describe("AL4711's union-typed parameters", () => {
  it("are counted per tool in the message and each is a related location where the plugin writes it", async () => {
    const root = agentWithTools({
      big: { inputSchema: { type: "object", properties: { ...nullable(10, "b"), nested: { type: "object", properties: { deep: { anyOf: [{ type: "string" }, { type: "null" }] } }, required: ["deep"], additionalProperties: false } }, required: [...Object.keys(nullable(10, "b")), "nested"], additionalProperties: false } },
      small: { inputSchema: { type: "object", properties: nullable(7, "s"), required: Object.keys(nullable(7, "s")), additionalProperties: false } },
    });
    const result = await compileAgent({ root, package: false, cache: false, targets: ["anthropic-strict"] });
    const [budget, ...more] = result.diagnostics.filter((d) => d.code === "AL4711");
    expect(more).toEqual([]);
    expect(budget!.message).toContain("Surface '.' has 18 parameters with union types (anyOf or a type array) across its strict tools (big 11, small 7); target 'anthropic-strict' allows at most 16 per request (");
    const related = budget!.related!;
    expect(related).toHaveLength(18);
    expect(related.map((r) => r.message)).toContain("a union-typed parameter of tool 'big': inputSchema.properties.nested.properties.deep");
    expect(related.map((r) => r.message)).toContain("a union-typed parameter of tool 'small': inputSchema.properties.s6");
    expect(new Set(related.map((r) => r.file))).toEqual(new Set(["plugins/tools/ai.assemblyline/index.ts"]));
    // Each at the property's own key: no two share a line.
    expect(new Set(related.map((r) => r.line)).size).toBe(18);
  });
});
