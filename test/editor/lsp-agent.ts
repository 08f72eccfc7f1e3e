/**
 * Test helper: a small agent for the language-server tests — one local plugin `example` with
 * a `configSchema`, an `echo` tool and an `mcp.json` — written to a temp folder and compiled
 * once (`--no-package`), so its `plugins.lock` is current.
 */
import * as fs from "node:fs";
import { runCli } from "../helpers/run-cli.js";
import { tempDir, writeTree } from "../helpers/temp-tree.js";

/** The texts of the agent's files, by path relative to the root. */
export const AGENT_FILES = {
  "agent.md": "---\nname: demo\ncapabilities:\n  example:\n    config:\n      greeting: hello\n---\n\nSay hello.\n",
  "plugins/example/plugin.json": `${JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "example", version: "1.0.0", description: "One echo tool." }, null, 2)}\n`,
  "plugins/example/mcp.json": `${JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", mcpServers: { docs: { type: "stdio", command: "node", args: ["server.js"] } } }, null, 2)}\n`,
  "plugins/example/ai.assemblyline/index.ts": [
    "export default {",
    '  configSchema: { type: "object", properties: { greeting: { type: "string" } } },',
    "  tools: {",
    "    echo: {",
    '      definition: "./ai.assemblyline/echo.ts",',
    '      description: "Echo a message back to the caller.",',
    '      inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },',
    "    },",
    "  },",
    "};",
    "",
  ].join("\n"),
  "plugins/example/ai.assemblyline/echo.ts": [
    'import { defineTool } from "@assemblyline-agents/core";',
    "",
    "export default defineTool({",
    '  description: "Echo a message back to the caller.",',
    '  inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },',
    "  async execute(input: { message: string }) {",
    "    return { message: input.message };",
    "  },",
    "});",
    "",
  ].join("\n"),
} as const;

/** The agent compiled once (by the first {@link writeLspAgent} of a test file), which later calls copy. */
let compiled: string | undefined;

/**
 * Writes the agent, runs `compile --no-package` on it (so plugins.lock is current) and returns its
 * root. The compile runs once per test file: later calls copy that compiled agent (lock, cache
 * and timestamps as the compile left them) into a fresh folder, which saves a CLI compile (about
 * 0.6 s of CPU) per call. (The temp folders go after each test file, so a later file in the
 * same worker compiles again.)
 */
export function writeLspAgent(): string {
  if (compiled !== undefined && fs.existsSync(compiled)) {
    const root = tempDir("al-lsp-");
    fs.cpSync(compiled, root, { recursive: true, preserveTimestamps: true });
    return root;
  }
  const root = writeTree({ ...AGENT_FILES }, "al-lsp-");
  const run = runCli(["compile", root, "--no-package"]);
  if (run.status !== 0) throw new Error(`compile failed:\n${run.stdout}\n${run.stderr}`);
  // The template is a copy the tests never touch (the root returned here is changed by its test).
  compiled = tempDir("al-lsp-compiled-");
  fs.cpSync(root, compiled, { recursive: true, preserveTimestamps: true });
  return root;
}
