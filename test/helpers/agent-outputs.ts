/**
 * Test helpers for comparing what compiles wrote: a minimal plugin.json, and every file of an
 * agent's lock and artifact as bytes (the cold/warm/incremental equality checks of issue 14).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { writeFiles } from "./temp-tree.js";

/** A valid plugin.json for the plugin `name` (Agent Plugins v1 schema), with a trailing newline. */
export function pluginJson(name: string, description = `The ${name} plugin.`): string {
  return JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name, version: "1.0.0", description }, null, 2) + "\n";
}

/** A definition module whose one tool returns `text`. */
export function returningDefinition(text: string): string {
  return `import { defineTool } from "@assemblyline-agents/core";\n\nexport default defineTool({\n  async execute() {\n    return "${text}";\n  }\n});\n`;
}

/**
 * Writes at `root` an agent named `name` selecting `capabilities`, with a local plugin of one tool
 * for each of `plugins` (default: the capabilities): the plugin `x` has the tool `x`, defined by
 * `plugins/x/ai.assemblyline/x.ts` ({@link returningDefinition} of its name).
 */
export function writeOneToolPluginsAgent(root: string, name: string, capabilities: readonly string[], plugins: readonly string[] = capabilities): void {
  const plugin = (id: string): Record<string, string> => ({
    [`plugins/${id}/plugin.json`]: pluginJson(id),
    [`plugins/${id}/ai.assemblyline/index.ts`]: `export default { tools: { ${id}: { definition: "./ai.assemblyline/${id}.ts", description: "The ${id} tool.", inputSchema: { type: "object" } } } };\n`,
    [`plugins/${id}/ai.assemblyline/${id}.ts`]: returningDefinition(id),
  });
  writeFiles(root, {
    "agent.md": `---\nname: ${name}\ncapabilities:\n${capabilities.map((c) => `  ${c}: {}\n`).join("")}---\n\nAn agent.\n`,
    ...Object.assign({}, ...plugins.map(plugin)),
  });
}

/** Every file of the lock and the artifact (relative path → base64 bytes); `artifact` defaults to `<root>/.assemblyline/build`. */
export function outputsOf(root: string, artifact = path.join(root, ".assemblyline", "build")): Record<string, string> {
  const out: Record<string, string> = { "plugins.lock": fs.readFileSync(path.join(root, "plugins.lock")).toString("base64") };
  for (const entry of fs.readdirSync(artifact, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(artifact, file).split(path.sep).join("/")] = fs.readFileSync(file).toString("base64");
  }
  return out;
}

/**
 * The entry of the "alpha" plugin the incremental-compile tests share: two tools, `greet` and
 * `count`, each in its own definition module under `ai.assemblyline/` (each test writes its own
 * definitions: what they import is what the test changes).
 */
export const TWO_TOOL_ENTRY =
  "export default {\n  tools: {\n" +
  '    greet: { definition: "./ai.assemblyline/greet.ts", description: "Greet someone.", inputSchema: { type: "object" } },\n' +
  '    count: { definition: "./ai.assemblyline/count.ts", description: "Count things.", inputSchema: { type: "object" } }\n' +
  "  }\n};\n";
