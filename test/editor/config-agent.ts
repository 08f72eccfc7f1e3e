/**
 * Test helper: the language-server test agent (`./lsp-agent.ts`) with two warnings and a project
 * configuration that changes what `compile` reports for it (docs/configuration.md): `rules` turns
 * AL4032 (a near-miss `sideEffect`, in the entry and the definition module) off and raises AL4039
 * (a nullable `type` whose `enum` refuses null, in the entry) to an error, `targets` adds gemini's
 * AL4705 (in the entry) and `tokenBudget` AL4720 (at agent.md). The editor must show per file what
 * `compile --format json` reports (editor/engine, editor/lsp, editor/ts-plugin).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { runCliJson } from "../helpers/run-cli.js";
import { AGENT_FILES } from "./lsp-agent.js";

/** The entry, the definition module and agent.md, relative to the root. */
export const CONFIG_AGENT_FILES = {
  entry: "plugins/example/ai.assemblyline/index.ts",
  definition: "plugins/example/ai.assemblyline/echo.ts",
  agent: "agent.md",
} as const;

const SCHEMA = '{ type: "object", properties: { message: { type: "string" }, mood: { type: ["string", "null"], enum: ["calm"] } }, required: ["message"] }';

/** `text` with `from` replaced by `to`; throws when `from` is not in it (the base agent changed). */
function replaced(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`config-agent: the language-server agent no longer has ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

const BASE_SCHEMA = '{ type: "object", properties: { message: { type: "string" } }, required: ["message"] }';

/** The texts written over the agent's entry and definition module: the language-server agent's, with the schema above and a near-miss `sideEffect`. */
export const CONFIG_AGENT_TEXTS: Readonly<Record<string, string>> = {
  [CONFIG_AGENT_FILES.entry]: replaced(AGENT_FILES[CONFIG_AGENT_FILES.entry], `      inputSchema: ${BASE_SCHEMA},\n`, `      inputSchema: ${SCHEMA},\n      needsApproval: { reason: "Echoes.", sideEffect: "extrenal" },\n`),
  [CONFIG_AGENT_FILES.definition]: replaced(
    replaced(AGENT_FILES[CONFIG_AGENT_FILES.definition], 'import { defineTool } from "@assemblyline-agents/core";', 'import { approvalRequired, defineTool } from "@assemblyline-agents/core";'),
    `  inputSchema: ${BASE_SCHEMA},\n`,
    `  inputSchema: ${SCHEMA},\n  needsApproval: approvalRequired("Echoes.", "extrenal"),\n`,
  ),
};

/** The configuration: one code off, one warning raised to an error, a target and a token budget. */
export const CONFIG = { rules: { AL4032: "off", AL4039: "error" }, targets: ["gemini"], tokenBudget: 10 } as const;

/** The configuration after the edit on disk: AL4039 off, AL4032 back, another target, no budget. */
export const EDITED_CONFIG = { rules: { AL4039: "off" }, targets: ["openai-strict"] } as const;

/** Writes the texts and `assembly-line.config.json` (`config`) into the agent at `root`. */
export function writeConfigAgent(root: string, config: object = CONFIG): void {
  for (const [relative, text] of Object.entries(CONFIG_AGENT_TEXTS)) fs.writeFileSync(path.join(root, relative), text);
  writeConfig(root, config);
}

/** Writes `assembly-line.config.json` in `root`. */
export function writeConfig(root: string, config: object): void {
  fs.writeFileSync(path.join(root, "assembly-line.config.json"), `${JSON.stringify(config, null, 2)}\n`);
}

/** A diagnostic as the tests compare them: code, severity and 0-based span start and end. */
export interface ComparedDiagnostic {
  readonly code: string;
  readonly severity: "error" | "warning" | "info";
  readonly line: number;
  readonly character: number;
  readonly endLine: number;
  readonly endCharacter: number;
}

/**
 * What the real CLI's `compile --format json --no-package` (run in `root`, so with the
 * configuration it finds there) reports for each of {@link CONFIG_AGENT_FILES}, by relative
 * path, with 0-based positions (as LSP and tsserver lines go).
 */
export function compiledByFile(root: string): Record<string, ComparedDiagnostic[]> {
  const { json } = runCliJson(["compile", ".", "--no-package"], { cwd: root });
  type Reported = { file: string; code: string; severity: "error" | "warning" | "info"; line: number; column: number; endLine?: number; endColumn?: number };
  const reported = json.diagnostics as Reported[];
  return Object.fromEntries(
    Object.values(CONFIG_AGENT_FILES).map((file) => [
      file,
      reported
        .filter((d) => d.file === file)
        .map((d) => ({ code: d.code, severity: d.severity, line: d.line - 1, character: d.column - 1, endLine: (d.endLine ?? d.line) - 1, endCharacter: (d.endColumn ?? d.column) - 1 })),
    ]),
  );
}
