/**
 * Bad or unusual files never crash the analysis: empty files, byte order marks, CRLF, huge and
 * deeply nested entries, invalid UTF-8, directories, syntax errors, and values that would
 * explode in size (issue 2 item 3).
 */
import { describe, expect, it } from "vitest";
import type { CompilerHost } from "../../common/host.js";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { analyzeSource, brief, DIR, ENTRY, lines, ROOT } from "./helpers.js";
import { createMemoryHost } from "./memory-host.js";
import { findLocation } from "../../compiler/location-table.js";

describe("file problems", () => {
  it("reports an empty file as having no default export", () => {
    const result = analyzeSource("");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3101", line: 1, column: 1 }]);
    expect(result.entry).toBeUndefined();
  });

  it("reports a missing entry", () => {
    const result = createStaticAnalyzer(createMemoryHost({})).analyzeEntry(ENTRY, ROOT);
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3001", line: 1, column: 1 }]);
    expect(result.diagnostics[0]!.message).toBe("'ai.assemblyline/index.ts' does not exist.");
    expect(result.dependencies).toEqual([]);
  });

  it("reports a directory instead of a file", () => {
    const result = createStaticAnalyzer(createMemoryHost({}, {}, [ENTRY])).analyzeEntry(ENTRY, ROOT);
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3002", line: 1, column: 1, file: `${ENTRY}/` }]);
    expect(result.diagnostics[0]!.message).toBe("'ai.assemblyline/index.ts' is a directory, not a source file.");
  });

  it("reports an unreadable file with the reason", () => {
    const host: CompilerHost = { ...createMemoryHost({}), read: () => ({ kind: "unreadable", reason: "EACCES: permission denied" }) };
    const result = createStaticAnalyzer(host).analyzeEntry(ENTRY, ROOT);
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3003", line: 1, column: 1 }]);
    expect(result.diagnostics[0]!.message).toBe("'ai.assemblyline/index.ts' could not be read: EACCES: permission denied.");
  });

  it("reports invalid UTF-8 at the first replacement character and still analyses the file", () => {
    const host = createMemoryHost({});
    host.write(ENTRY, lines("export default {", '  tools: { echo: { description: "caf\uFFFD" } },', "};"), { invalidUtf8: true });
    const result = createStaticAnalyzer(host).analyzeEntry(ENTRY, ROOT);
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3004", line: 2, column: 37 }]);
    expect(result.diagnostics[0]!.hint).toBe("Save the file as UTF-8.");
    expect(result.entry?.value).toEqual({ tools: { echo: { description: "caf\uFFFD" } } });
  });
});

describe("syntax errors", () => {
  it("reports a syntax error with its position and reads nothing", () => {
    const result = analyzeSource(lines("export default {", "  tools: {", "};"));
    expect(result.diagnostics.map(brief)).toEqual([
      { code: "AL3005", line: 3, column: 2 },
      { code: "AL3005", line: 3, column: 3 },
    ]);
    expect(result.diagnostics.map((d) => d.message)).toEqual(["Syntax error: ',' expected.", "Syntax error: '}' expected."]);
    expect(result.entry).toBeUndefined();
  });

  it("reports at most 100 syntax errors and summarises the rest", () => {
    const result = analyzeSource("export default 1;\n" + ") ".repeat(150));
    const codes = result.diagnostics.map((d) => d.code);
    expect(codes.filter((c) => c === "AL3005")).toHaveLength(100);
    const summary = result.diagnostics.find((d) => d.code === "AL3006")!;
    expect(summary).toMatchObject({ severity: "info", line: 2, column: 199, message: "50 more syntax errors in this file are not shown." });
  });
});

describe("byte order marks and line endings", () => {
  it("gives a BOM no column", () => {
    const result = analyzeSource("\uFEFFexport default { v: make(), w: 1 };");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 1, column: 21, path: "v" }]);
    expect(findLocation(result.entry!.locations, "/w")).toMatchObject({ value: { line: 1, column: 32 }, key: { line: 1, column: 29 } });
  });

  it("counts CRLF as one line end", () => {
    const result = analyzeSource(["export default {", "  tools: {", "    echo: make(),", "    ok: 1,", "  },", "};"].join("\r\n"));
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 3, column: 11, path: "tools.echo" }]);
    expect(findLocation(result.entry!.locations, "/tools/ok")).toMatchObject({ value: { line: 4, column: 9 }, key: { line: 4, column: 5 } });
  });

  it("combines a BOM with CRLF, for values and for syntax errors", () => {
    const ok = analyzeSource("\uFEFF// header\r\nexport default {\r\n  v: `${x}`,\r\n};\r\n");
    expect(ok.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 3, column: 6, path: "v" }]);
    const broken = analyzeSource("\uFEFFexport default {\r\n  v: 1\r\n  w: 2,\r\n};");
    expect(broken.diagnostics.map(brief)).toEqual([{ code: "AL3005", line: 3, column: 3 }]);
    expect(broken.diagnostics[0]!.message).toBe("Syntax error: ',' expected.");
  });

  it("counts CR and LF line ends in imported files too", () => {
    const result = analyzeSource(lines('import { shared } from "./shared.js";', "export default { v: shared };"), {
      [`${DIR}/shared.ts`]: "\uFEFF// a\r// b\r\nexport const shared = { a: make() };",
    });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 3, column: 28, path: "v.a", file: `${DIR}/shared.ts` }]);
  });
});

describe("size and depth", () => {
  it("analyses a 5 MB entry", () => {
    const tools: string[] = [];
    const description = "d".repeat(200);
    for (let i = 0; i < 20_000; i++) {
      tools.push(`    t${i}: { definition: "./t.ts", description: "${description}", inputSchema: { type: "object" } },`);
    }
    const source = lines("export default {", "  tools: {", ...tools, "  },", "};");
    expect(source.length).toBeGreaterThan(5_000_000);
    const result = analyzeSource(source);
    expect(result.diagnostics).toEqual([]);
    expect(Object.keys(result.entry?.value["tools"] as object)).toHaveLength(20_000);
    expect(findLocation(result.entry!.locations, "/tools/t19999/inputSchema/type")).toMatchObject({ value: { line: 20_002 } });
  });

  it("reports 2,000-deep nesting the parser cannot take, at the first bracket beyond the limit", () => {
    const depth = 2_000;
    const result = analyzeSource(`export default ${"{a:".repeat(depth)}1${"}".repeat(depth)};`);
    // The 257th "{" starts at offset 15 + 256 * 3.
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3007", line: 1, column: 15 + 256 * 3 + 1 }]);
    expect(result.diagnostics[0]!.message).toBe("This value is nested (directly or through constants) more than 256 levels deep.");
    expect(result.entry).toBeUndefined();
  });

  it("reports 2,000-deep arrays too", () => {
    const result = analyzeSource(`export default { v: ${"[".repeat(2_000)}${"]".repeat(2_000)} };`);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL3007"]);
  });

  it("reports nesting beyond the limit that still parses, keeping the outer levels", () => {
    const depth = 300;
    const result = analyzeSource(`export default ${"{a:".repeat(depth)}1${"}".repeat(depth)};`);
    // The object at depth 256 is the 257th "{", like the parser's limit above.
    expect(result.diagnostics.map((d) => ({ code: d.code, line: d.line, column: d.column }))).toEqual([{ code: "AL3007", line: 1, column: 15 + 256 * 3 + 1 }]);
    expect(result.diagnostics[0]!.path).toBe(Array(256).fill("a").join("."));
    expect(findLocation(result.entry!.locations, `/${Array(255).fill("a").join("/")}`)).toBeDefined();
  });

  it("reports a chain of constants deeper than the limit", () => {
    const consts = Array.from({ length: 1000 }, (_, i) => (i === 0 ? "const c0 = 1;" : `const c${i} = c${i - 1};`));
    const result = analyzeSource(lines(...consts, "export default { v: c999 };"));
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL3007"]);
    expect(result.entry?.value).toEqual({});
  });

  it("reports deep nesting in an imported JSON file", () => {
    const result = analyzeSource(lines('import data from "./data.json";', "export default { v: data };"), {
      [`${DIR}/data.json`]: `${"[".repeat(400)}${"]".repeat(400)}`,
    });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3007", line: 1, column: 257, file: `${DIR}/data.json`, path: "v" }]);
  });

  it("stops values that references multiply beyond a million parts", () => {
    const consts = ["const a0 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];"];
    for (let i = 1; i <= 6; i++) consts.push(`const a${i} = [${Array(10).fill(`a${i - 1}`).join(", ")}];`);
    const result = analyzeSource(lines(...consts, "export default { v: a6 };"));
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL3009"]);
    expect(result.diagnostics[0]!.message).toBe("The evaluated value has more than 1000000 parts.");
    expect(result.entry).toBeUndefined();
  });
});
