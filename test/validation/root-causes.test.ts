/**
 * Issue 13 item 6: messages put root causes before consequences and give advice that works.
 * - a schema typo in a descriptor is reported as the schema error (AL4020), not also as drift
 *   from defineTool (AL4026), which only restated it and printed first;
 * - AL3201 on a computed inputSchema names what works (a literal, a top-level const, a
 *   relative import of a static const or JSON file), not "compute it in the definition module";
 * - the credential messages say what a connection is and where the README explains it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { repoRoot, writeTree } from "../helpers/temp-tree.js";

const PLUGIN_JSON = JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "p", version: "1.0.0", description: "Test plugin." });

function agent(entry: string, definition: string, agentConfig = "p: {}"): string {
  return writeTree({
    "agent.md": `---\nname: a\ncapabilities:\n  ${agentConfig}\n---\nTest.\n`,
    "plugins/p/plugin.json": PLUGIN_JSON,
    "plugins/p/ai.assemblyline/index.ts": entry,
    "plugins/p/ai.assemblyline/tool.ts": definition,
  });
}

const GOOD_SCHEMA = `{ type: "object", properties: { n: { type: "integer", minimum: 1 } } }`;
const DEFINITION = `import { defineTool } from "@assemblyline-agents/core";\nexport default defineTool({ description: "Count.", inputSchema: ${GOOD_SCHEMA}, async execute() { return 1; } });\n`;

describe("root causes before consequences", () => {
  it("a schema typo in the descriptor is the schema error alone, not also drift", async () => {
    const typo = `{ type: "object", properties: { n: { type: "integer", min: 1 } } }`;
    const root = agent(`export default { tools: { count: { definition: "./ai.assemblyline/tool.ts", description: "Count.", inputSchema: ${typo} } } };\n`, DEFINITION);
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    const codes = result.diagnostics.filter((d) => d.severity === "error").map((d) => d.code);
    expect(codes).toEqual(["AL4020"]);
    expect(result.diagnostics[0]).toMatchObject({ code: "AL4020", hint: "Did you mean 'minimum'?", path: "tools.count.inputSchema.properties.n.min" });
  });

  it("the same schema typo in defineTool() too is named beside the descriptor's error (new-user trial C8)", async () => {
    const typo = `{ type: "object", properties: { n: { type: "strng" } } }`;
    const definition = `import { defineTool } from "@assemblyline-agents/core";\nexport default defineTool({ description: "Count.", inputSchema: ${typo}, async execute() { return 1; } });\n`;
    const root = agent(`export default { tools: { count: { definition: "./ai.assemblyline/tool.ts", description: "Count.", inputSchema: ${typo} } } };\n`, definition);
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL4019"]);
    expect(result.diagnostics[0]).toMatchObject({
      hint: "Did you mean 'string'?",
      related: [{ file: "plugins/p/ai.assemblyline/tool.ts", line: 2, column: 65, message: "defineTool() in tool.ts says the same inputSchema: correct it there too" }],
    });
    // Only the descriptor wrong: nothing to name in tool.ts (and no drift: the root cause alone).
    const alone = agent(`export default { tools: { count: { definition: "./ai.assemblyline/tool.ts", description: "Count.", inputSchema: ${typo} } } };\n`, DEFINITION);
    const first = (await compileAgent({ root: alone, package: false, displayRoot: "." })).diagnostics;
    expect(first.map((d) => d.code)).toEqual(["AL4019"]);
    expect(first[0]!.related).toBeUndefined();
  });

  it("drift is still reported when the descriptor's schema is valid", async () => {
    const other = `{ type: "object", properties: { n: { type: "integer", minimum: 2 } } }`;
    const root = agent(`export default { tools: { count: { definition: "./ai.assemblyline/tool.ts", description: "Count.", inputSchema: ${other} } } };\n`, DEFINITION);
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL4026"]);
  });

  it("AL3201 on a computed inputSchema says what works", async () => {
    const root = agent(`const make = () => (${GOOD_SCHEMA});\nexport default { tools: { count: { definition: "./ai.assemblyline/tool.ts", description: "Count.", inputSchema: make() } } };\n`, DEFINITION);
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    const notStatic = result.diagnostics.find((d) => d.code === "AL3201");
    expect(notStatic?.path).toBe("tools.count.inputSchema");
    expect(notStatic?.hint).toContain("a literal, a top-level const, or a relative import of a static const or a JSON file");
    expect(notStatic?.hint).not.toContain("definition module");
  });

  it("credential messages say what a connection is and link the README section that explains it", async () => {
    const root = agent(
      `export default { tools: { count: { definition: "./ai.assemblyline/tool.ts", description: "Count.", inputSchema: ${GOOD_SCHEMA}, requiredConfig: ["WEATHER_API_KEY"] } } };\n`,
      DEFINITION,
    );
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    const credential = result.diagnostics.find((d) => d.code === "AL4029");
    expect(credential?.hint).toContain("A connection is a reviewed integration owned by the host");
    expect(credential?.hint).toContain("'Credentials and connections' in the README (docs/connections.md)");
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    expect(readme).toMatch(/^## Credentials and connections$/m);
    expect(readme).toContain("(docs/connections.md)");
    expect(fs.existsSync(path.join(repoRoot, "docs", "connections.md"))).toBe(true);
  });
});
