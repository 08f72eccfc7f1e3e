/**
 * The files `assembly-line init` writes (issue 10 item 3): an MD-first agent (`agent.md`, DESIGN
 * §2) with one local plugin (`plugins/hello/`, an Agent Plugins v1 package with a working
 * `hello` tool), a `tsconfig.json` wired for the authoring API, its asset declarations and the
 * editor plugin, and a `.gitignore` for the toolchain's output.
 *
 * Pure data: {@link agentTemplate} returns the file map; `init-agent.ts` writes it.
 */

/** The comment above {@link GITIGNORE_LINES}, in a new `.gitignore` or added to a project's. */
export const GITIGNORE_HEADER = "# Written by assembly-line compile: the analysis cache and the packaged artifact.";

/** The capability key, plugin folder and tool of the starter agent. */
export const STARTER_PLUGIN = "hello";
export const STARTER_TOOL = "hello";

/** The name of the tsserver plugin (DESIGN §7) that `tsconfig.json` enables. */
export const TS_PLUGIN_NAME = "@assemblyline-agents/assembly-line/ts-plugin";

/** Where the authoring API's declarations are, as paths relative to the new agent root. */
export interface AuthoringTypes {
  /** The module `@assemblyline-agents/core` maps to (`…/runtime-min/authoring/index.d.ts`). */
  readonly core: string;
  /** The ambient asset declarations (`…/runtime-min/authoring/assets.d.ts`). */
  readonly assets: string;
}

/**
 * The starter agent's files.
 *
 * @param agentName the agent's `name` (already a valid Agent Plugins name, see {@link agentNameFor}).
 * @param types POSIX paths, relative to the agent root, of the authoring declarations.
 * @returns POSIX path (relative to the agent root) → file text (LF line ends), sorted by path.
 */
export function agentTemplate(agentName: string, types: AuthoringTypes): ReadonlyMap<string, string> {
  const files = new Map<string, string>([
    [".gitignore", `${GITIGNORE_HEADER}\n${GITIGNORE_LINES.join("\n")}\n`],
    ["agent.md", agentMd(agentName)],
    [`plugins/${STARTER_PLUGIN}/plugin.json`, `${JSON.stringify(pluginJson(), null, 2)}\n`],
    [`plugins/${STARTER_PLUGIN}/ai.assemblyline/index.ts`, entryTs()],
    [`plugins/${STARTER_PLUGIN}/ai.assemblyline/${STARTER_TOOL}.ts`, definitionTs()],
    ["tsconfig.json", `${JSON.stringify(tsconfig(types), null, 2)}\n`],
  ]);
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * A valid agent name (Agent Plugins v1 §5.5: lowercase letters, digits, `-` and `.`, no
 * leading/trailing punctuation) made from a folder name; `my-agent` when nothing is left.
 */
export function agentNameFor(folderName: string): string {
  const name = folderName
    // Accented letters keep their base letter (`My Agënt` → `my-agent`, not `my-ag-nt`; helper-73).
    .normalize("NFKD")
    .replace(/\p{Mn}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[.-]+|[.-]+$/g, "");
  return name === "" ? "my-agent" : name;
}

function agentMd(name: string): string {
  return `---
name: ${name}
description: A new agent. Say here what it does; the description is shown to the model.
capabilities:
  # The local plugin in plugins/${STARTER_PLUGIN}/ (an Agent Plugins v1 package).
  ${STARTER_PLUGIN}: {}
---

You are ${name}. When someone introduces themselves, greet them with the \`${STARTER_TOOL}\` tool.
`;
}

function pluginJson(): Record<string, string> {
  return {
    $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
    name: STARTER_PLUGIN,
    version: "0.1.0",
    description: "A starter plugin with one tool. Rename it, or add tools next to it.",
  };
}

const DESCRIPTION = "Greet a person by name.";
const INPUT_SCHEMA = `{
        type: "object",
        properties: { name: { type: "string", description: "Who to greet." } },
        required: ["name"],
        additionalProperties: false,
      }`;

function entryTs(): string {
  return `// The plugin's entry: read at compile time, never run. Keys under \`tools\` are the names the
// model sees; each points at the module that implements the tool. defineAssemblyLinePlugin
// makes tsc reject a misspelt descriptor key too.
import { defineAssemblyLinePlugin } from "@assemblyline-agents/core";

export default defineAssemblyLinePlugin({
  tools: {
    ${STARTER_TOOL}: {
      definition: "./ai.assemblyline/${STARTER_TOOL}.ts",
      description: "${DESCRIPTION}",
      inputSchema: ${INPUT_SCHEMA},
    },
  },
});
`;
}

function definitionTs(): string {
  return `// The implementation of the \`${STARTER_TOOL}\` tool, bundled by \`assembly-line compile\`.
// Its description and inputSchema must match the entry (ai.assemblyline/index.ts).
import { defineTool } from "@assemblyline-agents/core";

export default defineTool({
  description: "${DESCRIPTION}",
  inputSchema: ${INPUT_SCHEMA.replace(/^ {8}/gm, "    ").replace(/ {6}}$/, "  }")},
  async execute(input: { name: string }) {
    return { greeting: \`Hello, \${input.name}!\` };
  },
});
`;
}

/**
 * What a project's own `tsconfig.json` needs for the starter plugin (AL9103's hint): the
 * authoring API's `paths` entry and the editor plugin, as JSON members to add to its
 * `compilerOptions`.
 */
export function tsconfigAdditions(types: AuthoringTypes): string {
  const { paths, plugins } = (tsconfig(types) as { compilerOptions: { paths: unknown; plugins: unknown } }).compilerOptions;
  return `"paths": ${JSON.stringify(paths)}, "plugins": ${JSON.stringify(plugins)}`;
}

/** The `.gitignore` lines of a new agent: the toolchain's output and installed packages. */
export const GITIGNORE_LINES = [".assemblyline/", "node_modules/"] as const;

function tsconfig(types: AuthoringTypes): unknown {
  return {
    compilerOptions: {
      target: "ES2022",
      module: "preserve",
      moduleResolution: "bundler",
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      resolveJsonModule: true,
      skipLibCheck: true,
      types: [],
      paths: { "@assemblyline-agents/core": [types.core] },
      plugins: [{ name: TS_PLUGIN_NAME }],
    },
    include: ["plugins/**/*.ts", "subagents/**/*.ts", types.assets],
  };
}
