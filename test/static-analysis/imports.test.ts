/**
 * Relative imports of static values: what is rejected (packages, escapes from the plugin root,
 * missing modules and names, non-value imports) and where it is reported.
 */
import { describe, expect, it } from "vitest";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { analyzeSource, brief, DIR, ENTRY, lines, ROOT } from "./helpers.js";
import { createMemoryHost } from "./memory-host.js";
import { findLocation } from "../../compiler/location-table.js";

/** `import { shared } from "<specifier>"; export default { v: shared };` */
function importShared(specifier: string, files: Record<string, string> = {}, clause = "{ shared }") {
  return analyzeSource(lines(`import ${clause} from "${specifier}";`, "export default { v: shared };"), files);
}

/** Column of the specifier's opening quote in `import { shared } from "…";`. */
const SPECIFIER_COLUMN = 24;

describe("rejected imports", () => {
  it("rejects a value imported from a package, at the use, with the import as related location", () => {
    const result = importShared("lodash/fp");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3302", line: 2, column: 21, path: "v" }]);
    expect(result.diagnostics[0]!.message).toBe("'shared' is imported from the package 'lodash', which the static analysis does not read.");
    expect(result.diagnostics[0]!.related).toEqual([{ file: ENTRY, line: 1, column: 10, endLine: 1, endColumn: 16, message: "'shared' is imported here." }]);
    expect(result.entry?.value).toEqual({});
  });

  it("rejects node: built-ins and scoped packages by name", () => {
    expect(importShared("node:fs").diagnostics[0]!.message).toContain("the package 'node:fs'");
    expect(importShared("@scope/pkg/deep").diagnostics[0]!.message).toContain("the package '@scope/pkg'");
  });

  it("rejects an import that leaves the plugin root", () => {
    const result = importShared("../../outside.js", { "/outside.ts": "export const shared = 1;" });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3301", line: 1, column: SPECIFIER_COLUMN, path: "v" }]);
    expect(result.diagnostics[0]!.message).toBe("The import '../../outside.js' resolves to '../outside.js', which is outside the plugin root.");
    expect(result.dependencies).toEqual([ENTRY]);
  });

  it("rejects an import through a symlink whose target is outside the plugin root", () => {
    const host = createMemoryHost(
      { [ENTRY]: lines('import { shared } from "./link.js";', "export default { v: shared };"), "/elsewhere/secret.ts": "export const shared = 1;" },
      { [`${DIR}/link.ts`]: "/elsewhere/secret.ts" },
    );
    const result = createStaticAnalyzer(host).analyzeEntry(ENTRY, ROOT);
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3301", line: 1, column: SPECIFIER_COLUMN, path: "v" }]);
    expect(result.diagnostics[0]!.message).toBe("The import './link.js' resolves to '../elsewhere/secret.ts', which is outside the plugin root.");
    expect(result.entry?.value).toEqual({});
  });

  it("reports a module that does not exist, listing what was tried", () => {
    const result = importShared("./missing.js");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3303", line: 1, column: SPECIFIER_COLUMN, path: "v" }]);
    expect(result.diagnostics[0]!.message).toBe("Cannot find the module './missing.js' (looked for missing.ts, missing.mts, missing.js).");
  });

  it("reports a missing export with a did-you-mean hint", () => {
    const result = importShared("./shared.js", { [`${DIR}/shared.ts`]: "export const shard = 1;" });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3304", line: 1, column: 10, path: "v" }]);
    expect(result.diagnostics[0]!.message).toBe("'./shared.js' has no export named 'shared'.");
    expect(result.diagnostics[0]!.hint).toBe("Did you mean 'shard'?");
  });

  it("reports a missing default export of an imported module", () => {
    const result = importShared("./shared.js", { [`${DIR}/shared.ts`]: "export const other = 1;" }, "shared");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3304", line: 1, column: 8, path: "v" }]);
    expect(result.diagnostics[0]!.message).toBe("'./shared.js' has no export named 'default'.");
  });

  it("rejects a type-only import", () => {
    const result = importShared("./shared.js", { [`${DIR}/shared.ts`]: "export const shared = 1;" }, "type { shared }");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 2, column: 21, path: "v" }]);
    expect(result.diagnostics[0]!.message).toContain("a reference to 'shared', which is a type-only import");
  });

  it("rejects a namespace import used as a value", () => {
    const result = importShared("./shared.js", { [`${DIR}/shared.ts`]: "export const a = 1;" }, "* as shared");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 2, column: 21, path: "v" }]);
    expect(result.diagnostics[0]!.message).toContain("which is a namespace import");
    expect(result.diagnostics[0]!.hint).toBe("Import the const you need by name: import { value } from '…'.");
  });

  it("rejects an imported value that is not static, reporting it in the imported file", () => {
    const result = importShared("./shared.js", { [`${DIR}/shared.ts`]: "export const shared = { a: compute() };" });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 1, column: 28, path: "v.a", file: `${DIR}/shared.ts` }]);
    expect(result.entry?.value).toEqual({ v: {} });
  });

  it("rejects an imported function", () => {
    const result = importShared("./shared.js", { [`${DIR}/shared.ts`]: "export function shared() { return 1; }" });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 1, column: 17, path: "v", file: `${DIR}/shared.ts` }]);
    expect(result.diagnostics[0]!.message).toContain("a reference to 'shared', which is a function");
  });

  it("reports syntax errors of an imported module in that module", () => {
    const result = importShared("./shared.js", { [`${DIR}/shared.ts`]: "export const shared = {;" });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3005", line: 1, column: 24, file: `${DIR}/shared.ts` }]);
  });

  it("reports a cycle of re-exports", () => {
    const result = importShared("./a.js", { [`${DIR}/a.ts`]: 'export { shared } from "./b.js";', [`${DIR}/b.ts`]: 'export { shared } from "./a.js";' });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL3202"]);
    expect(result.diagnostics[0]!.message).toBe("'shared' refers to itself: shared (a.ts) → shared (b.ts) → shared (a.ts).");
  });

  it("rejects importing a non-JSON asset and CommonJS modules", () => {
    const asset = importShared("./prompt.md", { [`${DIR}/prompt.md`]: "# hi" }, "shared");
    expect(asset.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 1, column: 20, path: "v" }]);
    expect(asset.diagnostics[0]!.message).toContain("an import of the non-JSON file 'prompt.md'");
    const cjs = importShared("./shared.cjs", { [`${DIR}/shared.cjs`]: "module.exports = 1;" }, "shared");
    expect(cjs.diagnostics[0]!.message).toContain("an import of a CommonJS module");
  });
});

describe("JSON imports", () => {
  it("rejects named imports from a JSON file", () => {
    const result = importShared("./schema.json", { [`${DIR}/schema.json`]: '{ "shared": 1 }' });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 1, column: 10, path: "v" }]);
    expect(result.diagnostics[0]!.message).toContain("a named import from a JSON file");
  });

  it("rejects a JSON file imported with another type", () => {
    const result = analyzeSource(lines('import shared from "./schema.json" with { type: "text" };', "export default { v: shared };"), { [`${DIR}/schema.json`]: "{}" });
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3201", line: 1, column: 20, path: "v" }]);
  });

  it("reports invalid JSON at its position in the JSON file", () => {
    const result = importShared("./schema.json", { [`${DIR}/schema.json`]: '{\n  "type": "object",\n}' }, "shared");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3008", line: 3, column: 1, file: `${DIR}/schema.json`, path: "v" }]);
    expect(result.diagnostics[0]!.message).toBe("Invalid JSON: a property name in double quotes is expected.");
    expect(result.entry?.value).toEqual({});
  });

  it("rejects comments in JSON, as Node.js does", () => {
    const result = importShared("./schema.json", { [`${DIR}/schema.json`]: '{ /* no */ "a": 1 }' }, "shared");
    expect(result.diagnostics.map(brief)).toEqual([{ code: "AL3008", line: 1, column: 3, file: `${DIR}/schema.json`, path: "v" }]);
    expect(result.diagnostics[0]!.message).toBe("Invalid JSON: comments are not allowed in JSON.");
  });

  it("ignores a byte order mark in JSON and counts columns without it", () => {
    const result = importShared("./schema.json", { [`${DIR}/schema.json`]: '\uFEFF{"a": 1}' }, "shared");
    expect(result.diagnostics).toEqual([]);
    expect(findLocation(result.entry!.locations, "/v/a")?.value).toMatchObject({ line: 1, column: 7 });
  });
});
