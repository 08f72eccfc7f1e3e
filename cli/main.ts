/**
 * The `assembly-line` command line (DESIGN §7). Each command is a module in `./commands/`
 * that returns an exit code; this file only wires flags to them.
 *
 * Exit codes: 0 success (warnings allowed), 1 the input has errors or `--check` found drift,
 * 2 usage or internal failure.
 */
import * as path from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { isTargetId, TARGET_IDS } from "../compiler/providers/index.js";
import { unknownTargetHint } from "../compiler/providers/check-targets.js";
import { registerCatalogCommands } from "./commands/tools.js";
import { toolVersion } from "./version.js";
import { Diagnostics, type DiagnosticMessage } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { toJsonDiagnostic } from "../diagnostics/format-machine.js";
import { registerRuntimeCommands } from "./commands/runtime-commands.js";

/** Output formats of `compile`. */
const COMPILE_FORMATS = ["pretty", "json", "sarif", "github"] as const;

/**
 * Runs the CLI with `argv` (without `node` and the script path) and resolves to the exit code.
 * Never throws: an internal failure is printed and becomes exit code 2.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command()
    .name("assembly-line")
    .description("Compile, lock, package and run agents built from Agent Plugins v1 packages.")
    .version(toolVersion(), "-v, --version")
    .exitOverride()
    .showHelpAfterError("(run 'assembly-line --help' for usage)")
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
      // Command-line mistakes carry their code like every other diagnostic (AL9001).
      outputError: (text, write) => write(text.replace(/^error: /, "error AL9001: ")),
    });

  program
    .command("compile")
    .description("Check the agent, write plugins.lock and package the tools into the artifact.")
    .argument("[root]", "agent root (the folder with agent.md)", ".")
    .option("--check", "write nothing; fail when plugins.lock is missing, stale or hand-edited")
    .option("--out <dir>", "artifact directory (default: <root>/.assemblyline/build)")
    .option("--no-package", "skip packaging: check and lock only")
    .option("--no-cache", "do not read or write the analysis cache (.assemblyline/cache/)")
    .option("--target <id>", `check every tool against a model API's rules (repeatable): ${TARGET_IDS.join(", ")}`, collectTarget, [])
    .option("--token-budget <n>", "the most tokens a surface's initial snapshot may cost (o200k_base)", parseTokenBudget)
    .addOption(new Option("--format <format>", "output format").choices(COMPILE_FORMATS).default("pretty"))
    .action(async (root: string, options: { check?: boolean; out?: string; package: boolean; cache: boolean; target: string[]; tokenBudget?: number; format: (typeof COMPILE_FORMATS)[number] }) => {
      const { runCompile } = await import("./commands/compile.js");
      exitCode = await runCompile(root, options);
    });

  program
    .command("validate")
    .description("Check one plugin package on its own (for plugin authors, before publishing).")
    .argument("<pluginDir>", "the plugin root (the folder with plugin.json)")
    .addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"))
    .action(async (pluginDir: string, options: { format: "pretty" | "json" }) => {
      const { runValidate } = await import("./commands/validate.js");
      exitCode = runValidate(pluginDir, options);
    });

  program
    .command("add")
    .description("Install a published plugin with the project's package manager, select it in agent.md and pin it in plugins.lock.")
    .argument("<plugin>", "a short name (openui → @assemblyline-agents/openui), a package name[@version], a file: tarball or a path")
    .argument("[root]", "agent root", ".")
    .option("--as <key>", "capability key (default: the plugin's plugin.json name)")
    .action(async (spec: string, root: string, options: { as?: string }) => {
      const { runAdd } = await import("./commands/add.js");
      exitCode = await runAdd(spec, root, options);
    });

  program
    .command("review")
    .description("Show what the next plugins.lock changes for the model (tools, descriptions, schemas, approvals) against the committed one.")
    .argument("[root]", "agent root", ".")
    .addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"))
    .action(async (root: string, options: { format: "pretty" | "json" }) => {
      const { runReview } = await import("./commands/review.js");
      exitCode = await runReview(root, options);
    });

  const write = (output: { stdout: string; stderr: string; exitCode: number }): void => {
    if (output.stdout) process.stdout.write(output.stdout);
    if (output.stderr) process.stderr.write(output.stderr);
    exitCode = output.exitCode;
  };
  registerCatalogCommands(program, { ensureArtifact: ensureCompiled }, write);
  registerRuntimeCommands(program, { ensureArtifact: ensureCompiled }, write);

  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return 0;
      printFailureJson(argv, Diagnostics.UsageError, error.message.replace(/^error: /, ""));
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`assembly-line: internal error: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
    printFailureJson(argv, Diagnostics.InternalError, message);
    return 2;
  }
}

/** Commander parser of a repeatable `--target`: refuses an unknown id as a usage error (AL9001, exit 2). */
function collectTarget(value: string, previous: string[]): string[] {
  if (!isTargetId(value)) throw new InvalidArgumentError(`Unknown target '${value}'. ${unknownTargetHint(value)}`);
  return [...previous, value];
}

/** Commander parser of `--token-budget`: a positive whole number of tokens. */
function parseTokenBudget(value: string): number {
  const budget = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(budget) || budget <= 0) throw new InvalidArgumentError("Expected a positive whole number of tokens, e.g. --token-budget 8000.");
  return budget;
}

/**
 * With `--format json`, a usage or internal failure still prints exactly one JSON object on
 * stdout (DESIGN §7): `{ ok: false, diagnostics }`, or for `call`/`approve` the call shape
 * `{ status: "failed", error, diagnostics, events: [] }`.
 */
function printFailureJson(argv: readonly string[], message: DiagnosticMessage, text: string): void {
  const formatAt = argv.findIndex((arg) => arg === "--format" || arg.startsWith("--format="));
  const format = formatAt < 0 ? undefined : argv[formatAt]!.includes("=") ? argv[formatAt]!.split("=")[1] : argv[formatAt + 1];
  if (format !== "json") return;
  const diagnostic = toJsonDiagnostic(createDiagnostic(message, { file: "", line: 1, column: 1 }, [text]));
  const command = argv.find((arg) => !arg.startsWith("-"));
  const document =
    command === "call" || command === "approve"
      ? { status: "failed", error: diagnostic["message"], diagnostics: [diagnostic], events: [] }
      : { ok: false, diagnostics: [diagnostic] };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

/**
 * The host commands run the compiled artifact, compiling first when it is missing or stale
 * (`ensure-artifact.ts`). When that compile changed the lock, a note on stderr says so (the
 * lock is committed; the user should see it moved).
 */
async function ensureCompiled(root: string): Promise<readonly Diagnostic[]> {
  const { ensureArtifact } = await import("./ensure-artifact.js");
  const ensured = await ensureArtifact(root);
  if (ensured.lockChanged) process.stderr.write(`assembly-line: compiled ${root} first: ${path.join(root, "plugins.lock")} was updated.\n`);
  return ensured.diagnostics;
}
