/**
 * helper-83's trial of schema checking, through the real CLI: a configSchema default that breaks
 * its own schema is reported at the plugin and not blamed on agent.md (E3a), an inputSchema
 * default its subschema rejects is refused (E3b), three independent mistakes of one schema are
 * reported by one compile (E5), and the near value is named where it is known (E8).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { writeTree } from "../helpers/temp-tree.js";

const PLUGIN_JSON = (name: string) => JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name });
const LOOKUP = `import { defineTool } from "@assemblyline-agents/core";
export const kbLookup = (config: { index: string; limit?: number }) =>
  defineTool({ description: "Looks up.", inputSchema: { type: "object" }, async execute() { return config.index; } });
`;

/** helper-83's kb plugin: `limit`'s default (100) is above its own maximum (50). */
const KB_ENTRY = `export default {
  configSchema: {
    type: "object",
    properties: {
      index: { type: "string", enum: ["products", "docs"] },
      limit: { type: "integer", minimum: 1, maximum: 50, default: 100 },
    },
    required: ["index"],
    additionalProperties: false,
  },
  tools: {
    kb_lookup: { definition: "./ai.assemblyline/lookup.ts", factory: "kbLookup", description: "Looks up.", inputSchema: { type: "object" } },
  },
};
`;

function kbAgent(config: string, entry = KB_ENTRY): string {
  return writeTree({
    "agent.md": `---\nname: trial\ncapabilities:\n  kb:\n    config: ${config}\n---\n\nTrial.\n`,
    "plugins/kb/plugin.json": PLUGIN_JSON("kb"),
    "plugins/kb/ai.assemblyline/index.ts": entry,
    "plugins/kb/ai.assemblyline/lookup.ts": LOOKUP,
  });
}

describe("schema mistakes through the CLI (helper-83's trial)", () => {
  it("reports a configSchema default that breaks its own schema at the plugin, and names it as the plugin's at agent.md (E3a)", () => {
    const root = kbAgent("{ index: docs }");
    const entryLines = KB_ENTRY.split("\n");
    const defaultLine = entryLines.findIndex((line) => line.includes("default: 100")) + 1;
    const validate = runCliJson(["validate", path.join(root, "plugins/kb")]);
    expect(validate.status).toBe(1);
    expect(validate.json.diagnostics).toMatchObject([{ code: "AL4033", path: "configSchema.properties.limit.default", line: defaultLine, column: entryLines[defaultLine - 1]!.indexOf("100") + 1 }]);

    const compile = runCliJson(["compile", root]);
    expect(compile.status).toBe(1);
    const byCode = Object.fromEntries(compile.json.diagnostics.map((d: { code: string }) => [d.code, d]));
    expect(Object.keys(byCode).sort()).toEqual(["AL4033", "AL5002"]);
    expect(byCode["AL4033"]).toMatchObject({ file: "plugins/kb/ai.assemblyline/index.ts", path: "configSchema.properties.limit.default", line: defaultLine });
    expect(byCode["AL5002"]).toMatchObject({ file: "agent.md", path: "capabilities.kb.config" });
    expect(byCode["AL5002"].message).toContain("the default 100 that kb's configSchema gives 'limit' (agent.md does not set it)");
    // Related: the plugin's default itself, which the editor shows as relatedInformation (helper-88).
    expect(byCode["AL5002"].related).toEqual([{ file: "plugins/kb/ai.assemblyline/index.ts", line: defaultLine, column: byCode["AL4033"].column, message: "the default of 'limit': configSchema.properties.limit.default" }]);
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
  });

  it("suggests the enum value a config value nearly is (E8)", () => {
    const fixed = KB_ENTRY.replace("default: 100", "default: 10");
    const run = runCliJson(["compile", kbAgent("{ index: doc }", fixed)]);
    expect(run.status).toBe(1);
    expect(run.json.diagnostics).toMatchObject([{ code: "AL5002", file: "agent.md", path: "capabilities.kb.config.index", hint: "Did you mean 'docs'?" }]);
  });

  it("refuses an inputSchema default its own subschema rejects, and reports a bad pattern, format and required name of one schema together (E3b, E5, E8)", () => {
    const schema = `{
    type: "object",
    properties: {
      n: { type: "integer", default: "five" },
      email: { type: "string", format: "emial" },
      code: { type: "string", pattern: "[a-" },
    },
    required: ["emali"],
  }`;
    const root = writeTree({
      "agent.md": "---\nname: trial\ncapabilities:\n  files: {}\n---\n\nTrial.\n",
      "plugins/files/plugin.json": PLUGIN_JSON("files"),
      "plugins/files/ai.assemblyline/bad-schema.ts": `export const badSchema = ${schema} as const;\n`,
      "plugins/files/ai.assemblyline/bad.ts": `import { defineTool } from "@assemblyline-agents/core";\nimport { badSchema } from "./bad-schema.js";\nexport default defineTool({ description: "Bad.", inputSchema: badSchema, async execute() { return "ok"; } });\n`,
      "plugins/files/ai.assemblyline/index.ts": `import { badSchema } from "./bad-schema.js";\nexport default { tools: { bad_schema: { definition: "./ai.assemblyline/bad.ts", description: "Bad.", inputSchema: badSchema } } };\n`,
    });
    const run = runCliJson(["compile", root]);
    expect(run.status).toBe(1);
    const found = run.json.diagnostics.map((d: { code: string; path: string; hint?: string }) => [d.code, d.path, d.hint ?? null]);
    expect(found).toEqual(
      expect.arrayContaining([
        ["AL4033", "tools.bad_schema.inputSchema.properties.n.default", expect.any(String)],
        ["AL4022", "tools.bad_schema.inputSchema.properties.email.format", "Did you mean 'email'?"],
        ["AL4021", "tools.bad_schema.inputSchema.properties.code.pattern", null],
        ["AL4023", "tools.bad_schema.inputSchema.required[0]", "Did you mean 'email'?"],
      ]),
    );
    expect(found).toHaveLength(4);
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
    // The pretty output places each in bad-schema.ts, where it is written.
    const pretty = runCli(["compile", root]).stderr;
    expect(pretty).toMatch(/bad-schema\.ts:4:\d+ - error AL4033: In the inputSchema, the default "five" does not match its own schema: it must be an integer, but it is a string\./);
  });
});
