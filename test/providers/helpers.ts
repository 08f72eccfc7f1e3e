/** Shared fixtures of the provider-profile, token-budget and review tests: agents written from tool maps. */
import { writeFiles, writeTree } from "../helpers/temp-tree.js";

/** One tool descriptor as the plugin entry writes it (the definition is filled in). */
export interface ToolSpec {
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly visibility?: "visible" | "deferred" | "hidden";
  readonly needsApproval?: { readonly reason: string; readonly sideEffect?: string };
  readonly requiredConfig?: readonly string[];
}

/** The files of a local plugin `plugins/<name>/` with these tools (pretty-printed entry, one definition module). */
export function pluginFiles(name: string, tools: Readonly<Record<string, ToolSpec>>): Record<string, string> {
  const entry = Object.fromEntries(
    Object.entries(tools).map(([tool, spec]) => [tool, { definition: "./ai.assemblyline/tool.ts", description: spec.description ?? `The ${tool} tool.`, ...spec }]),
  );
  return {
    [`plugins/${name}/plugin.json`]: JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name, version: "1.0.0" }),
    [`plugins/${name}/ai.assemblyline/index.ts`]: `export default ${JSON.stringify({ tools: entry }, null, 2)};\n`,
    [`plugins/${name}/ai.assemblyline/tool.ts`]: "export default { async execute() { return {}; } };\n",
  };
}

/** `agent.md` selecting the given local plugins. */
export function agentMd(plugins: readonly string[]): string {
  return `---\nname: demo\ncapabilities:\n${plugins.map((p) => `  ${p}: {}\n`).join("")}---\n\nBe helpful.\n`;
}

/** A temporary agent root with one plugin `tools` holding these tools. */
export function agentWithTools(tools: Readonly<Record<string, ToolSpec>>): string {
  return writeTree({ "agent.md": agentMd(["tools"]), ...pluginFiles("tools", tools) }, "al-providers-");
}

/** Rewrites the `tools` plugin of an agent made by {@link agentWithTools}. */
export function rewriteTools(root: string, tools: Readonly<Record<string, ToolSpec>>): void {
  writeFiles(root, pluginFiles("tools", tools));
}
