/**
 * Every form the static evaluator accepts (DESIGN §3, issue 2 item 3): one test each, asserting
 * the evaluated value, no diagnostics, and locations where they matter.
 */
import { describe, expect, it } from "vitest";
import { analyzeSource, brief, DIR, ENTRY, lines, where } from "./helpers.js";
import { findLocation } from "../../compiler/location-table.js";

/** Analyses `export default { v: <expression> };` and returns `v` (asserting no diagnostics). */
function valueOf(expression: string, prelude: string[] = []): unknown {
  const result = analyzeSource(lines(...prelude, `export default { v: ${expression} };`));
  expect(result.diagnostics.map(brief)).toEqual([]);
  return result.entry?.value["v"];
}

describe("default export forms", () => {
  it("reads a plain object default export", () => {
    const result = analyzeSource(lines("export default {", '  tools: { echo: { description: "Echo." } }', "};"));
    expect(result.diagnostics).toEqual([]);
    expect(result.wrapped).toBe(false);
    expect(result.entry?.value).toEqual({ tools: { echo: { description: "Echo." } } });
    expect(result.file).toBe(ENTRY);
    expect(result.dependencies).toEqual([ENTRY]);
  });

  it("reads defineAssemblyLinePlugin({...}) imported from @assemblyline-agents/core", () => {
    const result = analyzeSource(
      lines('import { defineAssemblyLinePlugin } from "@assemblyline-agents/core";', "export default defineAssemblyLinePlugin({ tools: {} });"),
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.wrapped).toBe(true);
    expect(result.entry?.value).toEqual({ tools: {} });
    expect(where(result, "")).toBe("2:41");
  });

  it("reads the wrapper under another name and through a namespace import", () => {
    const renamed = analyzeSource(lines('import { defineAssemblyLinePlugin as plugin } from "@assemblyline-agents/core";', "export default plugin({ tools: {} });"));
    expect(renamed.wrapped).toBe(true);
    expect(renamed.diagnostics).toEqual([]);
    const namespace = analyzeSource(lines('import * as core from "@assemblyline-agents/core";', "export default core.defineAssemblyLinePlugin({ tools: {} });"));
    expect(namespace.wrapped).toBe(true);
    expect(namespace.entry?.value).toEqual({ tools: {} });
  });

  it("reads the wrapper through a const and `satisfies`", () => {
    const result = analyzeSource(
      lines(
        'import { defineAssemblyLinePlugin, type AssemblyLinePlugin } from "@assemblyline-agents/core";',
        "const plugin = defineAssemblyLinePlugin({ tools: {} }) satisfies AssemblyLinePlugin;",
        "export default plugin;",
      ),
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.wrapped).toBe(true);
    expect(result.entry?.value).toEqual({ tools: {} });
  });

  it("reads `export default x` of a top-level const", () => {
    const result = analyzeSource(lines("const plugin = { tools: {} };", "export default plugin;"));
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ tools: {} });
    expect(where(result, "")).toBe("1:16");
  });

  it("reads `export { x as default }`", () => {
    const result = analyzeSource(lines("export { plugin as default };", "const plugin = { tools: { a: {} } };"));
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ tools: { a: {} } });
  });

  it("reads `export { default } from` a relative module", () => {
    const result = analyzeSource('export { default } from "./plugin.js";', { [`${DIR}/plugin.ts`]: "export default { tools: {} };" });
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ tools: {} });
    expect(result.dependencies).toEqual([ENTRY, `${DIR}/plugin.ts`]);
  });

  it("reads .js and .mjs entries", () => {
    for (const name of ["index.js", "index.mjs"]) {
      const result = analyzeSource("export default { tools: {} };", {}, `${DIR}/${name}`);
      expect(result.diagnostics).toEqual([]);
      expect(result.entry?.value).toEqual({ tools: {} });
    }
  });
});

describe("literals", () => {
  it("reads strings with either quote and escapes", () => {
    expect(valueOf(`["a", 'b', "c\\n\\u0041"]`)).toEqual(["a", "b", "c\nA"]);
  });

  it("reads negative numbers", () => {
    expect(valueOf("[-1, -2.5, +3]")).toEqual([-1, -2.5, 3]);
  });

  it("reads hex, binary and octal numbers", () => {
    expect(valueOf("[0x1F, 0b101, 0o17, -0x10]")).toEqual([31, 5, 15, -16]);
  });

  it("reads numeric separators, exponents and leading dots", () => {
    expect(valueOf("[1_000_000, 1e3, .5, 2.5e-3]")).toEqual([1_000_000, 1000, 0.5, 0.0025]);
  });

  it("reads -0 as 0", () => {
    expect(Object.is(valueOf("-0"), 0)).toBe(true);
  });

  it("reads booleans and null", () => {
    expect(valueOf("[true, false, null]")).toEqual([true, false, null]);
  });

  it("reads no-substitution template literals", () => {
    expect(valueOf("`multi\nline`")).toBe("multi\nline");
  });

  it("reads nested object and array literals", () => {
    expect(valueOf('{ a: [{ b: [1, [2]] }], c: {} }')).toEqual({ a: [{ b: [1, [2]] }], c: {} });
  });
});

describe("type-only syntax", () => {
  it("ignores `as const`", () => {
    expect(valueOf('{ type: "object" } as const')).toEqual({ type: "object" });
  });

  it("ignores `satisfies T`", () => {
    expect(valueOf('{ type: "object" } satisfies Record<string, string>')).toEqual({ type: "object" });
  });

  it("ignores parentheses", () => {
    expect(valueOf("((1))")).toBe(1);
  });

  it("ignores `<T>x` and `x as T` assertions", () => {
    expect(valueOf("[<number>1, 2 as number, 3 as unknown as string]")).toEqual([1, 2, 3]);
  });

  it("ignores non-null assertions", () => {
    expect(valueOf("shared!", ["const shared = 1;"])).toBe(1);
  });
});

describe("keys", () => {
  it("reads quoted keys", () => {
    expect(valueOf('{ "my key": 1, \'other-key\': 2 }')).toEqual({ "my key": 1, "other-key": 2 });
  });

  it("reads numeric keys as JavaScript names them", () => {
    expect(valueOf("{ 1: 'a', 0x10: 'b', 1.50: 'c' }")).toEqual({ 1: "a", 16: "b", "1.5": "c" });
  });

  it("keeps the last of duplicate keys, at the first key's position", () => {
    expect(valueOf("{ a: 1, b: 2, a: 3 }")).toEqual({ a: 3, b: 2 });
  });

  it("records key and value locations for every member", () => {
    const result = analyzeSource(lines("export default {", "  tools: {", '    "echo": { description: "Echo." },', "  },", "};"));
    expect(where(result, "/tools")).toBe("2:10 key 2:3");
    expect(where(result, "/tools/echo")).toBe("3:13 key 3:5");
    expect(where(result, "/tools/echo/description")).toBe("3:28 key 3:15");
  });

  it("escapes '/' and '~' in JSON Pointers", () => {
    const result = analyzeSource('export default { "a/b": { "c~d": 1 } };');
    expect(result.entry?.value).toEqual({ "a/b": { "c~d": 1 } });
    expect(where(result, "/a~1b/c~0d")).toBe("1:34 key 1:27");
  });
});

describe("references and spreads", () => {
  it("reads references to top-level consts, with locations where the value is written", () => {
    const result = analyzeSource(lines('const schema = { type: "object" };', "export default { tools: { echo: { inputSchema: schema } } };"));
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ tools: { echo: { inputSchema: { type: "object" } } } });
    expect(where(result, "/tools/echo/inputSchema")).toBe("1:16 key 2:35");
    expect(where(result, "/tools/echo/inputSchema/type")).toBe("1:24 key 1:18");
  });

  it("reads a const referenced twice (each use located)", () => {
    const result = analyzeSource(lines("const tag = 'x';", "export default { a: tag, b: [tag] };"));
    expect(result.entry?.value).toEqual({ a: "x", b: ["x"] });
    expect(where(result, "/a")).toBe("1:13 key 2:18");
    expect(where(result, "/b/0")).toBe("1:13");
  });

  it("reads chains of consts", () => {
    expect(valueOf("c", ["const a = 1;", "const b = [a];", "const c = { b };"])).toEqual({ b: [1] });
  });

  it("reads shorthand properties", () => {
    expect(valueOf("{ description, tags }", ['const description = "d";', 'const tags = ["t"];'])).toEqual({ description: "d", tags: ["t"] });
  });

  it("reads spreads of static objects; later keys win", () => {
    const result = analyzeSource(lines('const base = { type: "object", required: ["a"] };', 'export default { v: { ...base, required: ["b"] } };'));
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value["v"]).toEqual({ type: "object", required: ["b"] });
    expect(where(result, "/v/type")).toBe("1:22 key 1:16");
    expect(where(result, "/v/required/0")).toBe("2:43");
    expect(where(result, "/v/required/1")).toBe("none");
  });

  it("reads spreads of static arrays and inline literals", () => {
    expect(valueOf('[...base, "c", ...["d"]]', ['const base = ["a", "b"];'])).toEqual(["a", "b", "c", "d"]);
    expect(valueOf("{ ...{ a: 1 }, b: 2 }")).toEqual({ a: 1, b: 2 });
  });
});

describe("relative imports", () => {
  const shared = { [`${DIR}/shared.ts`]: 'export const shared = { type: "string" };' };

  it("resolves './x.js' to x.ts and locates values in the imported file", () => {
    const result = analyzeSource(lines('import { shared } from "./shared.js";', "export default { v: shared };"), shared);
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ v: { type: "string" } });
    const located = findLocation(result.entry!.locations, "/v/type");
    expect(located?.value).toMatchObject({ file: `${DIR}/shared.ts`, line: 1, column: 31 });
    expect(located?.key).toMatchObject({ file: `${DIR}/shared.ts`, line: 1, column: 25 });
    expect(result.dependencies).toEqual([ENTRY, `${DIR}/shared.ts`]);
  });

  it("resolves './x.mjs' to x.mts, './x.js' to x.mts and extensionless specifiers", () => {
    const mts = { [`${DIR}/shared.mts`]: "export const shared = 1;" };
    for (const specifier of ["./shared.mjs", "./shared.js", "./shared", "./shared.mts"]) {
      const result = analyzeSource(lines(`import { shared } from "${specifier}";`, "export default { v: shared };"), mts);
      expect(result.diagnostics).toEqual([]);
      expect(result.entry?.value).toEqual({ v: 1 });
    }
  });

  it("resolves a directory's index file for an extensionless specifier", () => {
    const result = analyzeSource(lines('import { shared } from "./lib";', "export default { v: shared };"), { [`${DIR}/lib/index.ts`]: "export const shared = 2;" });
    expect(result.entry?.value).toEqual({ v: 2 });
  });

  it("reads renamed imports and `export { a as b }` in the imported module", () => {
    const result = analyzeSource(lines('import { b as local } from "./shared.js";', "export default { v: local };"), {
      [`${DIR}/shared.ts`]: lines("const a = [1];", "export { a as b };"),
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ v: [1] });
  });

  it("reads the default export of a relative module", () => {
    const result = analyzeSource(lines('import tools from "./tools.js";', "export default { tools };"), { [`${DIR}/tools.ts`]: "export default { echo: {} };" });
    expect(result.entry?.value).toEqual({ tools: { echo: {} } });
  });

  it("follows re-exports and `export *`", () => {
    const result = analyzeSource(lines('import { a, b } from "./barrel.js";', "export default { a, b };"), {
      [`${DIR}/barrel.ts`]: lines('export { a } from "./a.js";', 'export * from "./b.js";'),
      [`${DIR}/a.ts`]: "export const a = 'A';",
      [`${DIR}/b.ts`]: "export const b = 'B';",
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ a: "A", b: "B" });
  });

  it("reads JSON files with and without import attributes", () => {
    const json = { [`${DIR}/schema.json`]: '{\n  "type": "object",\n  "__proto__": { "x": [1, -2.5e1, null, true] }\n}' };
    for (const attributes of ["", ' with { type: "json" }', ' assert { type: "json" }']) {
      const result = analyzeSource(lines(`import schema from "./schema.json"${attributes};`, "export default { v: schema };"), json);
      expect(result.diagnostics).toEqual([]);
      const value = result.entry?.value["v"] as Record<string, unknown>;
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.hasOwn(value, "__proto__")).toBe(true);
      expect(JSON.stringify(value)).toBe('{"type":"object","__proto__":{"x":[1,-25,null,true]}}');
      expect(findLocation(result.entry!.locations, "/v/type")?.value).toMatchObject({ file: `${DIR}/schema.json`, line: 2, column: 11 });
    }
  });

  it("follows a symlink that stays inside the plugin root", async () => {
    const { createMemoryHost } = await import("./memory-host.js");
    const { createStaticAnalyzer } = await import("../../compiler/static-analysis/static-analyzer.js");
    const host = createMemoryHost(
      { [ENTRY]: lines('import { shared } from "./link.js";', "export default { v: shared };"), "/plugin/lib/real.ts": "export const shared = 3;" },
      { [`${DIR}/link.ts`]: "/plugin/lib/real.ts" },
    );
    const result = createStaticAnalyzer(host).analyzeEntry(ENTRY, "/plugin");
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ v: 3 });
  });
});
