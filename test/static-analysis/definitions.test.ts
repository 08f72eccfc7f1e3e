/**
 * `analyzeDefinition`: syntax-only facts about tool definition modules (exports, `export *`,
 * statically readable `defineTool({...})` fields) for the factory and drift checks.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeHost } from "../../common/host.js";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { seedPlugins, seedTools } from "../helpers/support-agent.js";
import { analyzeDefinitionSource, brief, DIR, lines, ROOT } from "./helpers.js";
import { createMemoryHost } from "./memory-host.js";

const TOOL = `${DIR}/tool.ts`;
const IMPORT = 'import { approvalRequired, defineTool } from "@assemblyline-agents/core";';
/** The seed's "Safe Model Output" snippet as the seed prints it: without the import line. */
const SAFE_MODEL_OUTPUT_SNIPPET = path.resolve(import.meta.dirname, "../fixtures/static-analysis/seed-definitions/safe-model-output.ts");

describe("seed definitions (examples/support-agent)", () => {
  const analyzer = createStaticAnalyzer(createNodeHost());
  const analyze = (file: string, pluginRoot = seedPlugins.supportTools) => analyzer.analyzeDefinition(file, pluginRoot);

  it("reads the echo definition", () => {
    const file = seedTools.echo;
    const result = analyze(file, seedPlugins.example);
    expect(result).toMatchObject({ parsed: true, hasDefaultExport: true, namedExports: [], hasExportStar: false, diagnostics: [] });
    expect(result.definedTools).toEqual([
      {
        exportName: "default",
        form: "value",
        description: { value: "Echo a message back to the caller.", location: { file, line: 5, column: 16, endLine: 5, endColumn: 52 } },
        inputSchema: {
          value: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
          location: { file, line: 6, column: 16, endLine: 12, endColumn: 4 },
        },
        needsApproval: { value: null, location: { file, line: 4, column: 27, endLine: 16, endColumn: 2 } },
      },
    ]);
  });

  it("reads the recoverable-error definition", () => {
    const result = analyze(seedTools.acceptDocument);
    expect(result.diagnostics).toEqual([]);
    expect(result.definedTools[0]).toMatchObject({
      exportName: "default",
      description: { value: "Accept a complete document." },
      inputSchema: { value: { type: "object", properties: { document: { type: "string" } }, required: ["document"] } },
      needsApproval: { value: null },
    });
  });

  it("reads approvalRequired(reason, sideEffect) in the approval-note definition", () => {
    const result = analyze(seedTools.recordNote);
    expect(result.diagnostics).toEqual([]);
    expect(result.definedTools[0]!.needsApproval).toEqual({
      value: { reason: "Recording a note is a durable side effect.", sideEffect: "idempotent" },
      location: { file: seedTools.recordNote, line: 10, column: 18, endLine: 10, endColumn: 94 },
    });
  });

  it("reads the durable-step definition", () => {
    const result = analyze(seedTools.hydrateCustomer);
    expect(result.diagnostics).toEqual([]);
    expect(result.definedTools[0]).toMatchObject({ description: { value: "Hydrate a customer profile once per run." }, needsApproval: { value: null } });
  });

  it.each([
    ["the example's safe-model-output definition", seedTools.lookupRecord, seedPlugins.supportTools],
    ["the seed's safe-model-output snippet, which omits the import", SAFE_MODEL_OUTPUT_SNIPPET, path.dirname(SAFE_MODEL_OUTPUT_SNIPPET)],
  ])("reads %s", (_what, file, pluginRoot) => {
    const result = analyze(file, pluginRoot);
    expect(result.diagnostics).toEqual([]);
    expect(result.definedTools[0]).toMatchObject({
      exportName: "default",
      description: { value: "Look up a record and return a safe summary." },
      inputSchema: { value: { type: "object", properties: { lookup: { type: "string" } }, required: ["lookup"] } },
    });
  });
});

describe("where defineTool is found", () => {
  it("reads `export const x = defineTool({...})`", () => {
    const result = analyzeDefinitionSource(lines(IMPORT, 'export const echo = defineTool({ description: "E", inputSchema: { type: "object" }, execute() {} });'));
    expect(result.namedExports).toEqual(["echo"]);
    expect(result.hasDefaultExport).toBe(false);
    expect(result.definedTools).toMatchObject([{ exportName: "echo", form: "value", description: { value: "E" }, inputSchema: { value: { type: "object" } } }]);
  });

  it("reads `const t = defineTool({...}); export default t` and `export { t as name }`", () => {
    const result = analyzeDefinitionSource(lines(IMPORT, 'const t = defineTool({ description: "T", inputSchema: {}, execute() {} });', "export default t;", "export { t as named };"));
    expect(result.definedTools.map((t) => [t.exportName, t.form, t.description?.value])).toEqual([
      ["default", "value", "T"],
      ["named", "value", "T"],
    ]);
  });

  it("reads a factory function declaration, leaving out fields that depend on its arguments", () => {
    const result = analyzeDefinitionSource(
      lines(
        IMPORT,
        "export function createSearchTool(config: { index: string }) {",
        "  return defineTool({",
        "    description: `Search ${config.index}.`,",
        '    inputSchema: { type: "object" },',
        "    execute() { return config; },",
        "  });",
        "}",
      ),
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.namedExports).toEqual(["createSearchTool"]);
    expect(result.definedTools).toEqual([
      {
        exportName: "createSearchTool",
        form: "factory",
        inputSchema: { value: { type: "object" }, location: { file: TOOL, line: 5, column: 18, endLine: 5, endColumn: 36 } },
        needsApproval: { value: null, location: { file: TOOL, line: 3, column: 21, endLine: 7, endColumn: 4 } },
      },
    ]);
  });

  it("reads arrow and function-expression factories", () => {
    const result = analyzeDefinitionSource(
      lines(
        IMPORT,
        'export const a = (c: unknown) => defineTool({ description: "A", inputSchema: {}, execute() {} });',
        "export const b = function (c: unknown) {",
        "  if (c) {",
        '    return defineTool({ description: "B", inputSchema: {}, execute() {} });',
        "  }",
        '  return defineTool({ description: "B", inputSchema: { type: "object" }, execute() {} });',
        "};",
      ),
    );
    expect(result.definedTools.map((t) => ({ name: t.exportName, form: t.form, description: t.description?.value, schema: t.inputSchema?.value }))).toEqual([
      { name: "a", form: "factory", description: "A", schema: {} },
      // The two returns agree on the description but not on the schema.
      { name: "b", form: "factory", description: "B", schema: undefined },
    ]);
  });

  it("finds returns in nested blocks, try/catch and switch of a factory parsed without parent pointers", () => {
    // The source store parses without parent pointers (docs/performance.md, "Fifth round");
    // `ts.isStatement` of a block reads its parent, so every kind of nested block is exercised.
    const result = analyzeDefinitionSource(
      lines(
        IMPORT,
        "export function f(c: number) {",
        "  {",
        '    if (c === 1) return defineTool({ description: "F", inputSchema: { type: "object" }, execute() {} });',
        "  }",
        "  try {",
        '    if (c === 2) return defineTool({ description: "F", inputSchema: { type: "object" }, execute() {} });',
        "  } catch {",
        '    return defineTool({ description: "F", inputSchema: { type: "object" }, execute() {} });',
        "  }",
        "  switch (c) {",
        '    case 3: { return defineTool({ description: "F", inputSchema: {}, execute() {} }); }',
        "  }",
        "  const g = () => 1;",
        '  return defineTool({ description: "F", inputSchema: { type: "object" }, execute() { return g(); } });',
        "}",
      ),
    );
    expect(result.diagnostics).toEqual([]);
    // The switch's return disagrees on the schema, so the schema is left out: all five were found.
    expect(result.definedTools.map((t) => ({ form: t.form, description: t.description?.value, schema: t.inputSchema?.value }))).toEqual([
      { form: "factory", description: "F", schema: undefined },
    ]);
  });

  it("reads a factory that returns a const holding defineTool(...), and a default-exported factory", () => {
    const result = analyzeDefinitionSource(
      lines(IMPORT, "export default function (config: unknown) {", '  const tool = defineTool({ description: "D", inputSchema: {}, execute() {} });', "  return tool;", "}"),
    );
    expect(result.hasDefaultExport).toBe(true);
    expect(result.definedTools.map((t) => [t.exportName, t.form, t.description?.value])).toEqual([["default", "factory", "D"]]);
  });

  it("recognises renamed and namespace imports of defineTool, but not a local function of that name", () => {
    const renamed = analyzeDefinitionSource(lines('import { defineTool as tool } from "@assemblyline-agents/core";', 'export default tool({ description: "R", inputSchema: {}, execute() {} });'));
    expect(renamed.definedTools[0]?.description?.value).toBe("R");
    const namespace = analyzeDefinitionSource(lines('import * as core from "@assemblyline-agents/core";', 'export default core.defineTool({ description: "N", inputSchema: {}, execute() {} });'));
    expect(namespace.definedTools[0]?.description?.value).toBe("N");
    const local = analyzeDefinitionSource(lines("function defineTool<T>(t: T) { return t; }", 'export default defineTool({ description: "L", inputSchema: {}, execute() {} });'));
    expect(local.definedTools).toEqual([]);
  });

  it("reads a defineTool argument held in a top-level const", () => {
    const result = analyzeDefinitionSource(lines(IMPORT, 'const definition = { description: "C", inputSchema: {}, execute() {} };', "export default defineTool(definition);"));
    expect(result.definedTools[0]?.description?.value).toBe("C");
  });
});

describe("which fields are reported", () => {
  const tool = (body: string, prelude: string[] = []) => analyzeDefinitionSource(lines(IMPORT, ...prelude, `export default defineTool({ ${body}, execute() {} });`));

  it("defaults approvalRequired's side effect to 'external'", () => {
    expect(tool('needsApproval: approvalRequired("Sends mail.")').definedTools[0]!.needsApproval?.value).toEqual({ reason: "Sends mail.", sideEffect: "external" });
  });

  it("reads a literal approval policy, defaulting its side effect", () => {
    expect(tool('needsApproval: { reason: "R" }').definedTools[0]!.needsApproval?.value).toEqual({ reason: "R", sideEffect: "external" });
    expect(tool('needsApproval: { reason: "R", sideEffect: "idempotent" }').definedTools[0]!.needsApproval?.value).toEqual({ reason: "R", sideEffect: "idempotent" });
  });

  it("reads needsApproval: undefined or null as no approval", () => {
    expect(tool("needsApproval: undefined").definedTools[0]!.needsApproval?.value).toBeNull();
    expect(tool("needsApproval: null").definedTools[0]!.needsApproval?.value).toBeNull();
  });

  it("leaves out an approval policy that depends on run time", () => {
    expect(tool("needsApproval: policy()").definedTools[0]!.needsApproval).toBeUndefined();
    expect(tool("needsApproval: approvalRequired(reason)", ["let reason = 'x';"]).definedTools[0]!.needsApproval).toBeUndefined();
  });

  it("does not claim 'no approval' when an unreadable spread could set it", () => {
    const result = tool('...base(), description: "S"');
    expect(result.definedTools[0]!.needsApproval).toBeUndefined();
    expect(result.definedTools[0]!.description?.value).toBe("S");
  });

  it("reads fields from a static spread, and lets later properties win", () => {
    const result = tool('...shared, description: "Own"', ['const shared = { description: "Shared", inputSchema: { type: "object" } };']);
    expect(result.definedTools[0]).toMatchObject({ description: { value: "Own" }, inputSchema: { value: { type: "object" }, location: { line: 2, column: 54 } } });
  });

  it("leaves out a field that an unreadable spread after it may override", () => {
    expect(tool('description: "Early", ...later()').definedTools[0]!.description).toBeUndefined();
  });

  it("leaves out run-time values without reporting anything", () => {
    const result = tool("description: `d ${1}`, inputSchema: makeSchema()");
    expect(result.diagnostics).toEqual([]);
    expect(result.definedTools[0]).toEqual({ exportName: "default", form: "value", needsApproval: { value: null, location: expect.anything() } });
  });

  it("leaves out a partially readable inputSchema", () => {
    expect(tool('inputSchema: { type: "object", properties: computed() }').definedTools[0]!.inputSchema).toBeUndefined();
  });

  it("reads an inputSchema imported from a relative module, recording the dependency", () => {
    const result = analyzeDefinitionSource(lines(IMPORT, 'import { schema } from "./schema.js";', 'export default defineTool({ description: "I", inputSchema: schema, execute() {} });'), {
      [`${DIR}/schema.ts`]: 'export const schema = { type: "object" };',
    });
    expect(result.definedTools[0]!.inputSchema).toEqual({ value: { type: "object" }, location: { file: TOOL, line: 3, column: 60, endLine: 3, endColumn: 66 } });
    expect(result.dependencies).toEqual([`${DIR}/schema.ts`, TOOL]);
  });
});

describe("exports", () => {
  it("lists value exports sorted, without types or declarations", () => {
    const result = analyzeDefinitionSource(
      lines(
        "export function f() {}",
        "export const a = 1, b = 2;",
        "export const { c, d: [e] } = { c: 1, d: [2] };",
        "const g = 1;",
        "export { g as h };",
        'export { x, type Y } from "./y.js";',
        'export * as ns from "./ns.js";',
        "export class K {}",
        "export enum E { A }",
        "export type T = string;",
        "export interface I {}",
        "interface J {}",
        "export { type J as J2 };",
        "export type { J as J3 };",
        "export { J as J4 };",
        "export declare const z: number;",
        "export default 1;",
      ),
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.hasDefaultExport).toBe(true);
    expect(result.namedExports).toEqual(["E", "K", "a", "b", "c", "e", "f", "h", "ns", "x"]);
    expect(result.hasExportStar).toBe(false);
  });

  it("reports export * from", () => {
    const result = analyzeDefinitionSource('export * from "./other.js";');
    expect(result).toMatchObject({ parsed: true, hasExportStar: true, hasDefaultExport: false, namedExports: [] });
  });

  it("does not count export type * as a value star export", () => {
    expect(analyzeDefinitionSource('export type * from "./types.js";').hasExportStar).toBe(false);
  });
});

describe("problems", () => {
  it("reports a field defineTool() does not have, with a did-you-mean, as the entry's unknown fields are (AL4001; helper-75 C6)", () => {
    const result = analyzeDefinitionSource(lines(IMPORT, 'export default defineTool({ descripton: "x", inputSchema: { type: "object" }, async execute() { return {}; }, helper() {} });'));
    expect(result.diagnostics.map((d) => ({ ...brief(d), endColumn: d.endColumn, message: d.message, hint: d.hint }))).toEqual([
      { code: "AL4001", line: 2, column: 29, endColumn: 39, path: "descripton", file: TOOL, message: "Unknown field 'descripton' in the defineTool({...}) call.", hint: "Did you mean 'description'?" },
      {
        code: "AL4001",
        line: 2,
        column: 111,
        endColumn: 117,
        path: "helper",
        file: TOOL,
        message: "Unknown field 'helper' in the defineTool({...}) call.",
        hint: "Known fields: description, inputSchema, needsApproval, execute, toModelOutput.",
      },
    ]);
    // A factory's defineTool(), through a const, reported once although two exports name it.
    const factory = analyzeDefinitionSource(
      lines(IMPORT, "const tool = defineTool({ description: 'd', inputSchema: { type: 'object' }, execute() {}, toModelOuput() {} });", "export default tool;", "export const named = tool;", "export function make() { return defineTool({ descripton: 'd', inputSchema: {}, execute() {} }); }"),
    );
    expect(factory.diagnostics.map((d) => [d.code, d.path, d.hint])).toEqual([
      ["AL4001", "toModelOuput", "Did you mean 'toModelOutput'?"],
      ["AL4001", "descripton", "Did you mean 'description'?"],
    ]);
    // Spreads, computed keys and the fields themselves are not reported.
    const fine = analyzeDefinitionSource(lines(IMPORT, "const base = { description: 'd' };", "export default defineTool({ ...base, ['inputSchema']: {}, needsApproval: null, execute() {}, toModelOutput(o) { return o; } });"));
    expect(fine.diagnostics).toEqual([]);
  });

  it("reports a misspelt key that reaches defineTool() through a spread of an object literal of the file, once, at the key (helper-76)", () => {
    const result = analyzeDefinitionSource(
      lines(
        IMPORT,
        "const base = { descripton: 'd', label: 'shared data' };",
        "const wrapped = { ...base, inputSchema: { type: 'object' } };",
        "export const a = defineTool({ ...wrapped, execute() {} });",
        "export const b = defineTool({ ...base, inputSchema: {}, execute() {} });",
        "export const c = defineTool({ ...{ needsAproval: null }, description: 'd', inputSchema: {}, execute() {} });",
      ),
    );
    expect(result.diagnostics.map((d) => ({ ...brief(d), message: d.message, hint: d.hint, related: d.related?.map((r) => [r.line, r.column, r.message]) }))).toEqual([
      {
        code: "AL4001",
        line: 2,
        column: 16,
        path: "descripton",
        file: TOOL,
        message: "Unknown field 'descripton' in an object spread into a defineTool({...}) call.",
        hint: "Did you mean 'description'?",
        // The first call it reaches, through `wrapped`.
        related: [[4, 31, "Spread into the defineTool({...}) call here"]],
      },
      {
        code: "AL4001",
        line: 6,
        column: 36,
        path: "needsAproval",
        file: TOOL,
        message: "Unknown field 'needsAproval' in an object spread into a defineTool({...}) call.",
        hint: "Did you mean 'needsApproval'?",
        related: [[6, 31, "Spread into the defineTool({...}) call here"]],
      },
    ]);
    // A key of a spread that is no near miss ('label', data the object carries for others) is not reported; nor is a spread of what is not an object literal of the file.
    const imported = analyzeDefinitionSource(lines(IMPORT, "import { base } from './base.js';", "export default defineTool({ ...base, ...makeBase(), execute() {} });"));
    expect(imported.diagnostics.filter((d) => d.code === "AL4001")).toEqual([]);
  });

  it("follows a spread's source imported by name from a relative module of the plugin, statically, and reports its near misses at the key there (helper-88)", () => {
    const base = `${DIR}/shared/base.ts`;
    const host = createMemoryHost({
      [base]: lines("export const common = { descripton: 'd', label: 'shared data' };", "const approval = { needsAproval: null };", "export { approval };", "export const nested = { ...common };"),
      [TOOL]: lines(
        IMPORT,
        "import { common, approval, nested as again } from './shared/base.js';",
        "export const a = defineTool({ ...common, inputSchema: {}, execute() {} });",
        "export const b = defineTool({ ...approval, ...again, description: 'd', inputSchema: {}, execute() {} });",
      ),
    });
    const result = createStaticAnalyzer(host).analyzeDefinition(TOOL, ROOT);
    expect(result.diagnostics.map((d) => ({ code: d.code, file: d.file, line: d.line, column: d.column, path: d.path, hint: d.hint, related: d.related?.map((r) => [r.file, r.line, r.column]) }))).toEqual([
      // Once at the key, in the module that writes it; related: the spread in the definition.
      { code: "AL4001", file: base, line: 1, column: 25, path: "descripton", hint: "Did you mean 'description'?", related: [[TOOL, 3, 31]] },
      { code: "AL4001", file: base, line: 2, column: 20, path: "needsAproval", hint: "Did you mean 'needsApproval'?", related: [[TOOL, 4, 31]] },
    ]);
    // 'label' is no near miss; a package import, a default import and a module that does not exist are not followed, and nothing is reported about them here.
    const others = createStaticAnalyzer(createMemoryHost({ [TOOL]: lines(IMPORT, "import { base } from 'some-package';", "import other from './other.js';", "import { gone } from './gone.js';", "export default defineTool({ ...base, ...other, ...gone, execute() {} });") })).analyzeDefinition(TOOL, ROOT);
    expect(others.diagnostics.filter((d) => d.code === "AL4001")).toEqual([]);
  });

  it("follows a spread's named import through re-exports (export { x } from, export { x as y } from, export *, import-then-export), and stops at a cycle", () => {
    const base = `${DIR}/shared/base.ts`;
    const host = createMemoryHost({
      [base]: lines("export const common = { descripton: 'd' };", "export const other = { needsAproval: null };"),
      [`${DIR}/shared/index.ts`]: lines("export { common as shared } from './base.js';", "export * from './more.js';"),
      [`${DIR}/shared/more.ts`]: lines("import { other as renamed } from './base.js';", "export { renamed };"),
      [`${DIR}/loop-a.ts`]: "export { looped } from './loop-b.js';",
      [`${DIR}/loop-b.ts`]: lines("export { looped } from './loop-a.js';", "export * from './loop-b.js';"),
      [TOOL]: lines(
        IMPORT,
        "import { shared as base, renamed } from './shared/index.js';",
        "import { looped } from './loop-a.js';",
        "export const a = defineTool({ ...base, inputSchema: {}, execute() {} });",
        "export const b = defineTool({ ...renamed, ...looped, description: 'd', inputSchema: {}, execute() {} });",
      ),
    });
    const analyzer = createStaticAnalyzer(host);
    const result = analyzer.analyzeDefinition(TOOL, ROOT);
    expect(result.diagnostics.map((d) => ({ code: d.code, file: d.file, line: d.line, column: d.column, path: d.path, related: d.related?.map((r) => [r.file, r.line, r.column]) }))).toEqual([
      { code: "AL4001", file: base, line: 1, column: 25, path: "descripton", related: [[TOOL, 4, 31]] },
      { code: "AL4001", file: base, line: 2, column: 24, path: "needsAproval", related: [[TOOL, 5, 31]] },
    ]);
    // Every module of the chain is a dependency: fixing the key in base.ts re-runs the analysis.
    expect(result.dependencies).toEqual(expect.arrayContaining([base, `${DIR}/shared/index.ts`, `${DIR}/shared/more.ts`]));
    host.write(base, lines("export const common = { description: 'd' };", "export const other = { needsAproval: null };"));
    expect(analyzer.analyzeDefinition(TOOL, ROOT).diagnostics.map((d) => d.path)).toEqual(["needsAproval"]);
  });

  it("follows at most eight modules for one spread's import", () => {
    const chain = (length: number): Record<string, string> => {
      const files: Record<string, string> = { [`${DIR}/m${length}.ts`]: "export const base = { descripton: 'd' };" };
      for (let i = 1; i < length; i++) files[`${DIR}/m${i}.ts`] = `export { base } from './m${i + 1}.js';`;
      files[TOOL] = lines(IMPORT, "import { base } from './m1.js';", "export default defineTool({ ...base, inputSchema: {}, execute() {} });");
      return files;
    };
    const codes = (length: number) => createStaticAnalyzer(createMemoryHost(chain(length))).analyzeDefinition(TOOL, ROOT).diagnostics.map((d) => d.code);
    expect(codes(8)).toEqual(["AL4001"]);
    expect(codes(9)).toEqual([]);
  });

  it("reports syntax errors and no other facts", () => {
    const result = analyzeDefinitionSource(lines(IMPORT, "export default defineTool({ description: 'x', "));
    expect(result.parsed).toBe(false);
    expect(result.diagnostics.map((d) => ({ ...brief(d), file: d.file }))).toEqual([{ code: "AL3005", line: 2, column: 47, file: TOOL }]);
    expect(result).toMatchObject({ hasDefaultExport: false, namedExports: [], hasExportStar: false, definedTools: [] });
  });

  it("reports a missing definition module", () => {
    const result = createStaticAnalyzer(createMemoryHost({})).analyzeDefinition(TOOL, ROOT);
    expect(result.parsed).toBe(false);
    expect(result.diagnostics.map((d) => [d.code, d.message])).toEqual([["AL3001", "'ai.assemblyline/tool.ts' does not exist."]]);
  });

  it("reports a directory", () => {
    const result = createStaticAnalyzer(createMemoryHost({}, {}, [TOOL])).analyzeDefinition(TOOL, ROOT);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL3002"]);
  });

  it("positions syntax errors after a BOM and CRLF", () => {
    const result = analyzeDefinitionSource("\uFEFFexport const a = 1;\r\nexport const b = ;\r\n");
    expect(result.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["AL3005", 2, 18]]);
  });

  it("does not report problems of modules a definition imports", () => {
    const result = analyzeDefinitionSource(lines(IMPORT, 'import { schema } from "./broken.js";', 'export default defineTool({ description: "B", inputSchema: schema, execute() {} });'), {
      [`${DIR}/broken.ts`]: "export const schema = {;",
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.definedTools[0]!.inputSchema).toBeUndefined();
    expect(result.definedTools[0]!.description?.value).toBe("B");
  });
});
