/**
 * Plugin code is never imported or evaluated (DESIGN §1): modules that would write a marker
 * file if they ran are analysed, and the markers do not exist afterwards.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createNodeHost } from "../../common/host.js";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { tempDir } from "../helpers/temp-tree.js";

describe("no plugin code runs", () => {
  let root: string;
  beforeEach(() => {
    root = tempDir("al-static-analysis-");
  });

  const marker = (name: string): string => path.join(root, `${name}.ran`);
  const write = (relative: string, text: string): string => {
    const file = path.join(root, relative);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  };

  it("analyses an entry, the modules it imports and a definition without running any of them", () => {
    const entry = write(
      "ai.assemblyline/index.ts",
      [
        'import { writeFileSync } from "node:fs";',
        'import { shared } from "./shared.js";',
        `writeFileSync(${JSON.stringify(marker("entry-import"))}, "ran");`,
        `require("fs").writeFileSync(${JSON.stringify(marker("entry-require"))}, "ran");`,
        `export default { tools: { echo: { definition: "./ai.assemblyline/echo.ts", description: shared, inputSchema: { type: "object" } } }, side: (() => writeFileSync(${JSON.stringify(marker("entry-iife"))}, "ran"))() };`,
      ].join("\n"),
    );
    write(
      "ai.assemblyline/shared.ts",
      [`import { writeFileSync } from "node:fs";`, `writeFileSync(${JSON.stringify(marker("shared"))}, "ran");`, 'export const shared = "Echo.";'].join("\n"),
    );
    const definition = write(
      "ai.assemblyline/echo.ts",
      [
        'import { defineTool } from "@assemblyline-agents/core";',
        'import { writeFileSync } from "node:fs";',
        `writeFileSync(${JSON.stringify(marker("definition"))}, "ran");`,
        `export default defineTool({ description: "Echo.", inputSchema: { type: "object" }, execute() { writeFileSync(${JSON.stringify(marker("execute"))}, "ran"); return {}; } });`,
      ].join("\n"),
    );
    const analyzer = createStaticAnalyzer(createNodeHost());
    const entryResult = analyzer.analyzeEntry(entry, root);
    const definitionResult = analyzer.analyzeDefinition(definition, root);

    expect(entryResult.entry?.value["tools"]).toEqual({ echo: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" } } });
    expect(entryResult.diagnostics.map((d) => [d.code, d.path])).toEqual([["AL3201", "side"]]);
    expect(definitionResult.definedTools[0]?.description?.value).toBe("Echo.");
    for (const name of ["entry-import", "entry-require", "entry-iife", "shared", "definition", "execute"]) {
      expect(fs.existsSync(marker(name)), name).toBe(false);
    }
    expect(fs.readdirSync(root).filter((f) => f.endsWith(".ran"))).toEqual([]);
  });
});
