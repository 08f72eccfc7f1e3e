/**
 * The seed's examples (plugin-tools.md: the minimal echo entry, the defineAssemblyLinePlugin
 * search plugin with configSchema and a factory) analyse clean from disk, read in place from
 * the example agent (examples/support-agent).
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeHost } from "../../common/host.js";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { seedPlugins } from "../helpers/support-agent.js";
import { findLocation } from "../../compiler/location-table.js";

describe("seed plugin entries", () => {
  const analyzer = createStaticAnalyzer(createNodeHost());

  it("reads the minimal echo entry", () => {
    const root = seedPlugins.example;
    const entry = path.join(root, "ai.assemblyline/index.ts");
    const result = analyzer.analyzeEntry(entry, root);
    expect(result.diagnostics).toEqual([]);
    expect(result.wrapped).toBe(false);
    expect(result.entry?.value).toEqual({
      tools: {
        echo: {
          definition: "./ai.assemblyline/echo.ts",
          description: "Echo a message back to the caller.",
          inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
        },
      },
    });
    expect(findLocation(result.entry!.locations, "/tools/echo/inputSchema/properties/message/type")).toEqual({
      value: { file: entry, line: 9, column: 40, endLine: 9, endColumn: 48 },
      key: { file: entry, line: 9, column: 34, endLine: 9, endColumn: 38 },
    });
    expect(result.dependencies).toEqual([entry]);
  });

  it("reads the defineAssemblyLinePlugin search entry and its factory module", () => {
    const root = seedPlugins.privateSearch;
    const result = analyzer.analyzeEntry(path.join(root, "ai.assemblyline/index.ts"), root);
    expect(result.diagnostics).toEqual([]);
    expect(result.wrapped).toBe(true);
    expect(result.entry?.value).toEqual({
      configSchema: { type: "object", properties: { index: { type: "string" } }, required: ["index"], additionalProperties: false },
      tools: {
        search: {
          definition: "./search.ts",
          factory: "createSearchTool",
          description: "Search the selected index.",
          inputSchema: { type: "object" },
          requiredConfig: ["SEARCH_API_URL"],
          config: { limit: 20 },
        },
      },
    });
    const definition = analyzer.analyzeDefinition(path.join(root, "search.ts"), root);
    expect(definition.diagnostics).toEqual([]);
    expect(definition.namedExports).toEqual(["createSearchTool"]);
    expect(definition.hasDefaultExport).toBe(false);
    expect(definition.definedTools).toMatchObject([
      { exportName: "createSearchTool", form: "factory", description: { value: "Search the selected index." }, inputSchema: { value: { type: "object" } }, needsApproval: { value: null } },
    ]);
  });
});
