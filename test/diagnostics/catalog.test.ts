import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { CatalogStages, Diagnostics, allDiagnosticMessages } from "../../diagnostics/catalog/index.js";
import { DIAGNOSTICS_DOC_PATH, exampleOf, renderDiagnosticsDoc } from "../../diagnostics/catalog/docs.js";
import { DiagnosticExamples } from "../../diagnostics/catalog/examples.js";
import { repoRoot } from "../helpers/temp-tree.js";

describe("the diagnostics catalog", () => {
  it("has no duplicate codes", () => {
    const codes = allDiagnosticMessages().map((m) => m.code);
    const duplicates = codes.filter((code, i) => codes.indexOf(code) !== i);
    expect(duplicates).toEqual([]);
  });

  it("has no entry name in two stage tables (the merged catalog would silently drop one)", () => {
    const seen = new Map<string, string>();
    const clashes: string[] = [];
    for (const stage of CatalogStages) {
      for (const name of Object.keys(stage.table)) {
        if (seen.has(name)) clashes.push(`${name} (${seen.get(name)} and ${stage.prefix})`);
        seen.set(name, stage.prefix);
      }
    }
    expect(clashes).toEqual([]);
    expect(Object.keys(Diagnostics)).toHaveLength(seen.size);
  });

  it("keeps every code in its stage's range, with a message and documentation", () => {
    for (const stage of CatalogStages) {
      for (const [name, entry] of Object.entries(stage.table)) {
        expect(entry.code, name).toMatch(new RegExp(`^${stage.prefix}\\d{3}$`));
        expect(entry.message.length, name).toBeGreaterThan(5);
        expect(entry.docs.length, name).toBeGreaterThan(10);
        expect(["error", "warning", "info"]).toContain(entry.severity);
      }
    }
  });

  it("is documented in docs/diagnostics.md (npm run docs regenerates it)", () => {
    const doc = fs.readFileSync(path.join(repoRoot, DIAGNOSTICS_DOC_PATH), "utf8");
    expect(doc).toBe(renderDiagnosticsDoc());
    for (const entry of allDiagnosticMessages()) expect(doc, entry.code).toContain(`| ${entry.code} | ${entry.severity} |`);
  });

  it("keeps examples only for catalog codes, each a filled-in message of its code", () => {
    for (const [code, example] of Object.entries(DiagnosticExamples)) {
      const entry = allDiagnosticMessages().find((m) => m.code === code);
      expect(entry, code).toBeDefined();
      // The template's fixed text before its first placeholder starts the example.
      const fixed = entry!.message.split(/\{\d+\}/)[0]!;
      expect(example.startsWith(fixed), `${code}: ${example}`).toBe(true);
      expect(exampleOf(entry!)).toBe(example);
    }
  });
});
