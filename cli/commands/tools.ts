/**
 * `assembly-line tools [root] [--surface PATH] [--run ID] [--format pretty|json]` (DESIGN §7):
 * prints the capability snapshot the model starts with on a surface —
 * `{ tools: [{ name, description, inputSchema, source, visibility, tokens }], tokens }` in JSON, with
 * each tool's token count (o200k_base, the tool JSON as OpenAI receives it; issue 11). It acts as the
 * host on the root's compiled artifact (the CLI entry's `ensureArtifact` hook compiles first).
 * `--run` (an extension) adds the deferred tools that run activated with `tool_search`.
 *
 * Exit codes: 0 — printed; 1 — the artifact was refused (AL8001–AL8014) or the compile
 * failed; 2 — usage errors (unknown surface AL8020, bad run id AL8022) and internal failures.
 *
 * {@link registerCatalogCommands} adds both `tools` and `search` to a commander program.
 */
import { Option, type Command } from "commander";
import { paletteFor } from "../../diagnostics/terminal-color.js";
import { formatSnapshotWarnings, formatTools, toolsJson } from "../format-catalog.js";
import { defaultWrite, refusalOutput, terminalColor, withHostRuntime, type CommandOutput, type OutputColor, type RuntimeCommandHooks } from "./runtime-commands.js";
import { registerSearchCommand } from "./search.js";
import { loadTokenCounter } from "../../compiler/providers/tokens.js";

/** Options of `assembly-line tools`. */
export interface ToolsCommandOptions {
  readonly root?: string;
  /** Surface id: `.` (default) or `subagents/<name>`. */
  readonly surface?: string;
  /** A run whose `tool_search` activations are loaded into the snapshot. */
  readonly run?: string;
  /** `pretty` (default) or `json`. */
  readonly format?: string;
  /** Colour for pretty output (default: plain). */
  readonly color?: OutputColor;
}

/** Runs `assembly-line tools`; returns its output and exit code. Never throws. */
export async function runToolsCommand(options: ToolsCommandOptions, hooks: RuntimeCommandHooks = {}): Promise<CommandOutput> {
  const json = options.format === "json";
  try {
    return await withHostRuntime(options.root, {}, hooks, async (runtime) => {
      const snapshot = runtime.snapshot({ surface: options.surface ?? ".", ...(options.run === undefined ? {} : { runId: options.run }) });
      const count = await loadTokenCounter();
      const stdout = json ? toolsJson(snapshot, count) : formatTools(snapshot, options.root ?? ".", paletteFor(options.color?.stdout ?? false), count);
      return { exitCode: 0, stdout, stderr: formatSnapshotWarnings(snapshot.warnings, paletteFor(options.color?.stderr ?? false)) };
    }, options.color);
  } catch (error) {
    return refusalOutput(error, json, options.color, "diagnostics");
  }
}

/** Adds `tools` to a commander program; `write` receives the output (default: stdout, stderr, exit code). */
export function registerToolsCommand(program: Command, hooks: RuntimeCommandHooks = {}, write: (output: CommandOutput) => void = defaultWrite): void {
  program
    .command("tools")
    .description("Print the tools the model starts with on a surface: the capability snapshot.")
    .argument("[root]", "agent root", ".")
    .option("--surface <path>", "surface id: . or subagents/<name>", ".")
    .option("--run <id>", "include the deferred tools this run activated with tool_search")
    .addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"))
    .action(async (root: string, flags: Omit<ToolsCommandOptions, "root">) => {
      write(await runToolsCommand({ ...flags, root, color: terminalColor() }, hooks));
    });
}

/**
 * Adds `tools` and `search` to a commander program. `hooks.ensureArtifact` compiles the root
 * first (DESIGN §7); `write` receives each command's output.
 */
export function registerCatalogCommands(program: Command, hooks: RuntimeCommandHooks = {}, write: (output: CommandOutput) => void = defaultWrite): void {
  registerToolsCommand(program, hooks, write);
  registerSearchCommand(program, hooks, write);
}
