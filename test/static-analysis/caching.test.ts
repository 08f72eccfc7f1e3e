/**
 * Results are reused while neither a file nor anything it depends on changed version, and a
 * change in an imported file (or a file appearing where an import looked) invalidates them.
 */
import { describe, expect, it } from "vitest";
import { createOverlayHost } from "../../common/host.js";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { DIR, ENTRY, lines, ROOT } from "./helpers.js";
import { createMemoryHost } from "./memory-host.js";

const SHARED = `${DIR}/shared.ts`;
const SCHEMA = `${DIR}/schema.json`;
const ENTRY_SOURCE = lines('import { shared } from "./shared.js";', 'import schema from "./schema.json";', "export default { v: shared, schema };");

function setup() {
  const host = createMemoryHost({ [ENTRY]: ENTRY_SOURCE, [SHARED]: "export const shared = 1;", [SCHEMA]: '{ "type": "object" }' });
  return { host, analyzer: createStaticAnalyzer(host) };
}

describe("entry results", () => {
  it("reuses the result while nothing changed, reading each dependency once to check", () => {
    const { host, analyzer } = setup();
    const first = analyzer.analyzeEntry(ENTRY, ROOT);
    expect(first.entry?.value).toEqual({ v: 1, schema: { type: "object" } });
    expect(first.dependencies).toEqual([ENTRY, SCHEMA, SHARED]);
    host.resetCounts();
    const second = analyzer.analyzeEntry(ENTRY, ROOT);
    expect(second).toBe(first);
    expect(Object.fromEntries(host.reads)).toEqual({ [ENTRY]: 1, [SHARED]: 1, [SCHEMA]: 1 });
  });

  it("re-analyses the entry when an imported module changes", () => {
    const { host, analyzer } = setup();
    const first = analyzer.analyzeEntry(ENTRY, ROOT);
    host.write(SHARED, "export const shared = 2;");
    const second = analyzer.analyzeEntry(ENTRY, ROOT);
    expect(second).not.toBe(first);
    expect(second.entry?.value).toEqual({ v: 2, schema: { type: "object" } });
    expect(analyzer.analyzeEntry(ENTRY, ROOT)).toBe(second);
  });

  it("re-analyses the entry when an imported JSON file changes", () => {
    const { host, analyzer } = setup();
    analyzer.analyzeEntry(ENTRY, ROOT);
    host.write(SCHEMA, '{ "type": "string" }');
    expect(analyzer.analyzeEntry(ENTRY, ROOT).entry?.value).toEqual({ v: 1, schema: { type: "string" } });
  });

  it("re-analyses the entry when the entry itself changes", () => {
    const { host, analyzer } = setup();
    analyzer.analyzeEntry(ENTRY, ROOT);
    host.write(ENTRY, "export default { changed: true };");
    const result = analyzer.analyzeEntry(ENTRY, ROOT);
    expect(result.entry?.value).toEqual({ changed: true });
    expect(result.dependencies).toEqual([ENTRY]);
  });

  it("notices a file appearing where an import looked before", () => {
    const host = createMemoryHost({ [ENTRY]: lines('import { shared } from "./later.js";', "export default { v: shared };") });
    const analyzer = createStaticAnalyzer(host);
    expect(analyzer.analyzeEntry(ENTRY, ROOT).diagnostics.map((d) => d.code)).toEqual(["AL3303"]);
    host.write(`${DIR}/later.mts`, "export const shared = 'now';");
    const result = analyzer.analyzeEntry(ENTRY, ROOT);
    expect(result.diagnostics).toEqual([]);
    expect(result.entry?.value).toEqual({ v: "now" });
  });

  it("keeps results per plugin root", () => {
    const { analyzer } = setup();
    const inside = analyzer.analyzeEntry(ENTRY, ROOT);
    const narrower = analyzer.analyzeEntry(ENTRY, `${DIR}/nested`);
    expect(inside.diagnostics).toEqual([]);
    expect(narrower.diagnostics.map((d) => d.code)).toEqual(["AL3301", "AL3301"]);
    expect(analyzer.analyzeEntry(ENTRY, ROOT)).toBe(inside);
  });

  it("reads unsaved editor buffers through the host", () => {
    const { host } = setup();
    const overlays = new Map([[SHARED, { text: "export const shared = 'unsaved';", version: "1" }]]);
    const result = createStaticAnalyzer(createOverlayHost(host, overlays)).analyzeEntry(ENTRY, ROOT);
    expect(result.entry?.value).toEqual({ v: "unsaved", schema: { type: "object" } });
  });
});

describe("definition results", () => {
  const TOOL = `${DIR}/tool.ts`;
  const SOURCE = lines(
    'import { defineTool } from "@assemblyline-agents/core";',
    'import { schema } from "./schema-module.js";',
    'export default defineTool({ description: "D", inputSchema: schema, execute() {} });',
  );

  it("reuses the result and invalidates it when an imported module changes", () => {
    const host = createMemoryHost({ [TOOL]: SOURCE, [`${DIR}/schema-module.ts`]: "export const schema = { type: 'object' };" });
    const analyzer = createStaticAnalyzer(host);
    const first = analyzer.analyzeDefinition(TOOL, ROOT);
    expect(analyzer.analyzeDefinition(TOOL, ROOT)).toBe(first);
    host.write(`${DIR}/schema-module.ts`, "export const schema = { type: 'array' };");
    const second = analyzer.analyzeDefinition(TOOL, ROOT);
    expect(second).not.toBe(first);
    expect(second.definedTools[0]!.inputSchema?.value).toEqual({ type: "array" });
  });
});

describe("parsed files", () => {
  it("re-parses a file only when its version changes, and strips the BOM only for the parser", async () => {
    const { SourceStore } = await import("../../compiler/static-analysis/source-store.js");
    const store = new SourceStore();
    const first = store.module(ENTRY, "1", "\uFEFFexport default {};");
    expect(store.module(ENTRY, "1", "ignored: same version")).toBe(first);
    const second = store.module(ENTRY, "2", "export default { a: 1 };");
    expect(second).not.toBe(first);
    expect(second.sourceFile?.text).toBe("export default { a: 1 };");
    expect(first.bomShift).toBe(1);
    expect(second.bomShift).toBe(0);
  });
});
