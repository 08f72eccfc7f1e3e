/** The ai.assemblyline/ extension directory (Agent Plugins v1 §8.2; DESIGN §2). */
import { describe, expect, it } from "vitest";
import { summarizePluginPackage } from "../../compiler/plugin-package/index.js";
import { expectDiagnostic, load, ROOT } from "./helpers.js";

describe("ai.assemblyline/", () => {
  it.each(["index.ts", "index.mts", "index.js", "index.mjs"])("finds the entry %s", (name) => {
    const pkg = load({ [`ai.assemblyline/${name}`]: "export default { tools: {} };", "ai.assemblyline/echo.ts": "" });
    expect(pkg.entryFile).toBe(`${ROOT}/ai.assemblyline/${name}`);
    expect(pkg.diagnostics).toEqual([]);
    expect(summarizePluginPackage(pkg).entryFile).toBe(`ai.assemblyline/${name}`);
  });

  it("no directory means no entry and no diagnostic", () => {
    const pkg = load({});
    expect(pkg.entryFile).toBeUndefined();
    expect(pkg.diagnostics).toEqual([]);
  });

  it("a rejected plugin has no entry", () => {
    const pkg = load({ "plugin.json": "{}", "ai.assemblyline/index.ts": "" });
    expect(pkg.rejected).toBe(true);
    expect(pkg.entryFile).toBeUndefined();
  });

  it("AL2401: the directory exists without an entry (with a hint for near-miss names)", () => {
    const pkg = load({ "ai.assemblyline/index.cjs": "", "ai.assemblyline/echo.ts": "" });
    expect(pkg.entryFile).toBeUndefined();
    const d = expectDiagnostic(pkg, { code: "AL2401", file: "ai.assemblyline/", line: 1, column: 1 });
    expect(d.hint).toBe("Found index.cjs; the entry must be named index.ts, index.mts, index.js, index.mjs.");
  });

  it("AL2402: several entries are ambiguous", () => {
    const pkg = load({ "ai.assemblyline/index.ts": "", "ai.assemblyline/index.js": "" });
    expect(pkg.entryFile).toBeUndefined();
    const d = expectDiagnostic(pkg, { code: "AL2402", file: "ai.assemblyline/index.ts", line: 1, column: 1 });
    expect(d.message).toContain("(index.ts, index.js)");
    expect(d.related?.map((r) => r.file)).toEqual([`${ROOT}/ai.assemblyline/index.js`]);
  });

  it("AL2403: an entry that is not a regular file", () => {
    const pkg = load({ "ai.assemblyline/index.ts/x": "" });
    expect(pkg.entryFile).toBeUndefined();
    // A folder there is placed on the folder (common/positions.ts folderStart; helper-88).
    expectDiagnostic(pkg, { code: "AL2403", file: "ai.assemblyline/index.ts/", line: 1, column: 1 });
  });

  it("AL2404: a near-miss directory name is reported", () => {
    const pkg = load({ "AI.AssemblyLine/index.ts": "" });
    expect(pkg.entryFile).toBeUndefined();
    expectDiagnostic(pkg, { code: "AL2404", file: "AI.AssemblyLine/", line: 1, column: 1, severity: "warning" });
    expect(load({ "ai-assemblyline/index.ts": "" }).diagnostics.map((d) => d.code)).toEqual(["AL2404"]);
    expect(load({ "com.example.client/hooks.json": "{}" }).diagnostics).toEqual([]);
  });

  it("AL2009: ai.assemblyline must be a directory", () => {
    const pkg = load({ "ai.assemblyline": "x" });
    expectDiagnostic(pkg, { code: "AL2009", file: "ai.assemblyline", line: 1, column: 1 });
  });

  it("AL2003: the directory and the entry must stay inside the plugin root", () => {
    const outsideDirectory = load({ "ai.assemblyline": { symlink: "../elsewhere" } }, { "/work/elsewhere/index.ts": "" });
    expect(outsideDirectory.entryFile).toBeUndefined();
    // A linked folder is placed on the folder (common/positions.ts folderStart; helper-88).
    expectDiagnostic(outsideDirectory, { code: "AL2003", file: "ai.assemblyline/", line: 1, column: 1 });
    const outsideEntry = load({ "ai.assemblyline/index.ts": { symlink: "../../elsewhere/index.ts" } }, { "/work/elsewhere/index.ts": "" });
    expect(outsideEntry.entryFile).toBeUndefined();
    expectDiagnostic(outsideEntry, { code: "AL2003", file: "ai.assemblyline/index.ts", line: 1, column: 1 });
    const inside = load({ "ai.assemblyline/index.ts": { symlink: "../src/index.ts" }, "src/index.ts": "" });
    expect(inside.entryFile).toBe(`${ROOT}/ai.assemblyline/index.ts`);
  });

  it("AL2004: a dangling directory link", () => {
    const pkg = load({ "ai.assemblyline": { symlink: "missing" } });
    expectDiagnostic(pkg, { code: "AL2004", file: "ai.assemblyline", line: 1, column: 1 });
  });
});
