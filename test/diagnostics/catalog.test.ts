import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { CatalogStages, Diagnostics, allDiagnosticMessages } from "../../diagnostics/catalog/index.js";
import { CODES_END, CODES_START, renderCodesMarkdown } from "../../diagnostics/catalog/docs.js";
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

  it("is documented in the README (npm run docs regenerates the table)", () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const start = readme.indexOf(CODES_START);
    const end = readme.indexOf(CODES_END);
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start + CODES_START.length, end).trim()).toBe(renderCodesMarkdown().trim());
  });
});
