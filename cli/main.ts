/**
 * The `assembly-line` command line (DESIGN §7). Each command is a module in `./commands/`
 * that returns an exit code; this file only wires flags to them.
 *
 * Exit codes: 0 success (warnings allowed), 1 the input has errors or `--check` found drift,
 * 2 usage or internal failure.
 *
 * Start-up (issue 14 item 3, docs/performance.md): this file and what it imports statically
 * hold only the command-line definitions (commander, the target ids, the version). Every
 * command's work — the compiler, the runtime, the project configuration, the diagnostics
 * catalogue and formatters — is imported by the command's action when it runs, so `--version`
 * and `--help` load almost nothing and `tools` loads neither TypeScript nor esbuild.
 */
import * as path from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import type { CompileFlags } from "./commands/compile.js";
import { isTargetId, TARGET_IDS, unknownTargetHint } from "../compiler/providers/profile.js";
import { registerCatalogCommands, registerRuntimeCommands } from "./commands/host-commands.js";
import { toolVersion } from "./version.js";
import type { DiagnosticMessage } from "../diagnostics/catalog/index.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { registerLspCommand, type ServeLanguageServer } from "./commands/lsp.js";
import type { EarlySandboxStart } from "../runtime-min/execution/early-start.js";

/** What the binary supplies from the layers beside `cli/` (the editor's language server), and what it started. */
export interface CliServices {
  /** Starts `assembly-line lsp --stdio` (`editor/lsp/`); without it, `lsp` says it is not available. */
  readonly serveLanguageServer?: ServeLanguageServer;
  /** The sandbox process the binary started for this `call` (`./early-call.ts`): its run id is the call's, and its runtime may adopt it. */
  readonly earlyStart?: EarlySandboxStart;
}

/** Output formats of `compile`. */
const COMPILE_FORMATS = ["pretty", "json", "sarif", "github"] as const;

/**
 * Runs the CLI with `argv` (without `node` and the script path) and resolves to the exit code.
 * Never throws: an internal failure is printed and becomes exit code 2.
 */
export async function main(argv: readonly string[], services: CliServices = {}): Promise<number> {
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
    .argument("[root...]", "agent roots (folders with agent.md) or globs such as 'agents/*'", ["."])
    .option("--check", "write nothing; fail when plugins.lock is missing, stale or hand-edited")
    .option("--watch", "compile again whenever an input changes (Ctrl-C stops)")
    .option("--out <dir>", "artifact directory (default: outDir of the configuration, else <root>/.assemblyline/build)")
    .option("--no-package", "skip packaging: check and lock only")
    .option("--no-cache", "do not read or write the compile caches (.assemblyline/cache/)")
    .option("--fail-on-change", "exit 1 when plugins.lock (or an --out artifact) changed, so a Git hook stops the commit until it is staged")
    .option("--max-warnings <n>", "fail (exit 1, nothing written) with more than n warnings", parseCount)
    .option("--config <file>", "the project configuration file to use (default: searched from the root upwards)")
    .option("--no-config", "use no project configuration file")
    .option("--target <id>", `check every tool against a model API's rules (repeatable; default: targets of the configuration): ${TARGET_IDS.join(", ")}`, collectTarget)
    .option("--token-budget <n>", "the most tokens a surface's initial snapshot may cost (o200k_base; default: tokenBudget of the configuration)", parseTokenBudget)
    .addOption(new Option("--format <format>", "output format (default: format of the configuration, else pretty)").choices(COMPILE_FORMATS))
    .action(async (roots: string[], options: CompileFlags, command: Command) => {
      if (options.watch && options.check) command.error("error: --watch and --check cannot be combined", { exitCode: 2 });
      const { runCompile } = await import("./commands/compile.js");
      exitCode = await runCompile(roots, options);
    });

  program
    .command("inputs")
    .description("Print every file a compile of the root reads (for build systems with remote caching).")
    .argument("[root]", "agent root", ".")
    .option("--config <file>", "the project configuration file to use")
    .option("--no-config", "use no project configuration file")
    .addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"))
    .action(async (root: string, options: { format: "pretty" | "json"; config?: string | boolean }) => {
      const { runInputs } = await import("./commands/inputs.js");
      exitCode = await runInputs(root, options);
    });

  program
    .command("init")
    .description("Start an agent: agent.md, a local plugin with one tool, tsconfig.json and .gitignore.")
    .argument("[dir]", "the new agent root (created when missing)", ".")
    .action(async (dir: string) => {
      const { runInit } = await import("./commands/init.js");
      exitCode = runInit(dir);
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
  registerRuntimeCommands(program, { ensureArtifact: ensureCompiled, ...(services.earlyStart === undefined ? {} : { earlyStart: services.earlyStart }) }, write);
  registerLspCommand(program, services.serveLanguageServer, (code) => (exitCode = code));

  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return 0;
      const { Diagnostics } = await import("../diagnostics/catalog/index.js");
      await printFailureJson(program, argv, Diagnostics.UsageError, error.message.replace(/^error: /, ""));
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`assembly-line: internal error: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
    const { Diagnostics } = await import("../diagnostics/catalog/index.js");
    await printFailureJson(program, argv, Diagnostics.InternalError, message);
    return 2;
  }
}

/** Commander parser of a repeatable `--target`: refuses an unknown id as a usage error (AL9001, exit 2). */
function collectTarget(value: string, previous: string[] | undefined): string[] {
  if (!isTargetId(value)) throw new InvalidArgumentError(`Unknown target '${value}'. ${unknownTargetHint(value)}`);
  return [...(previous ?? []), value];
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
 * `{ status: "failed", error, diagnostics, events: [] }`. The format is the flag's, else — for
 * `compile`, whose default format the project configuration sets (docs/configuration.md) — the
 * configuration's `format` (`failureFormat`).
 */
async function printFailureJson(program: Command, argv: readonly string[], message: DiagnosticMessage, text: string): Promise<void> {
  if ((await failureFormat(program, argv)) !== "json") return;
  const [{ createDiagnostic }, { toJsonDiagnostic }] = await Promise.all([import("../diagnostics/diagnostic.js"), import("../diagnostics/format-machine.js")]);
  const diagnostic = toJsonDiagnostic(createDiagnostic(message, { file: "", line: 1, column: 1 }, [text]));
  const command = argv.find((arg) => !arg.startsWith("-"));
  const document =
    command === "call" || command === "approve"
      ? { status: "failed", error: diagnostic["message"], diagnostics: [diagnostic], events: [] }
      : { ok: false, diagnostics: [diagnostic] };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

/**
 * The output format of a command whose arguments may not have parsed: `--format` as typed;
 * else, for `compile`, the `format` of the configuration its first root uses (`--config FILE`,
 * `--no-config`, or the search from that root; a configuration that cannot be loaded counts
 * as none); else `undefined` (pretty).
 */
async function failureFormat(program: Command, argv: readonly string[]): Promise<string | undefined> {
  const formatAt = argv.findIndex((arg) => arg === "--format" || arg.startsWith("--format="));
  if (formatAt >= 0) return argv[formatAt]!.includes("=") ? argv[formatAt]!.slice(argv[formatAt]!.indexOf("=") + 1) : argv[formatAt + 1];
  const words = commandWords(program, argv);
  if (words?.command !== "compile") return undefined;
  try {
    const [{ loadProjectConfig }, { configSelection }] = await Promise.all([import("../build/project-config/load-project-config.js"), import("./config-selection.js")]);
    const config = words.options.get("config");
    const selection = configSelection({ ...(config === undefined ? {} : { config: config === "" ? false : config }) });
    const loaded = await loadProjectConfig(path.resolve(words.operands[0] ?? "."), selection);
    return loaded.diagnostics.length === 0 ? loaded.config.format : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The command, its operands and its option values as far as `argv` can be read without
 * parsing it (a usage error stopped the parse): options that take a value (by the command's
 * own definitions) consume the next word; `--no-x` is recorded as `x` with value `""`.
 */
function commandWords(program: Command, argv: readonly string[]): { command: string; operands: string[]; options: Map<string, string> } | undefined {
  const name = argv.find((arg) => !arg.startsWith("-"));
  const command = program.commands.find((c) => c.name() === name);
  if (!command) return undefined;
  const operands: string[] = [];
  const options = new Map<string, string>();
  for (let i = argv.indexOf(name!) + 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      operands.push(arg);
      continue;
    }
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const option = command.options.find((o) => o.long === flag || o.short === flag);
    if (!option) continue;
    const key = option.attributeName();
    if (option.negate) options.set(key, "");
    else if (option.required || option.optional) options.set(key, inline ?? argv[++i] ?? "");
    else options.set(key, "true");
  }
  return { command: command.name(), operands, options };
}

/**
 * The host commands run the compiled artifact, compiling first when it is missing or stale
 * (`ensure-artifact.ts`). When that compile changed the lock, a note on stderr says so (the
 * lock is committed; the user should see it moved).
 */
async function ensureCompiled(root: string, artifactDir?: string): Promise<readonly Diagnostic[]> {
  const { ensureArtifact } = await import("./ensure-artifact.js");
  const ensured = await ensureArtifact(root, artifactDir);
  if (ensured.lockChanged) process.stderr.write(`assembly-line: compiled ${root} first: ${path.join(root, "plugins.lock")} was updated.\n`);
  return ensured.diagnostics;
}

/** A non-negative integer option value (`--max-warnings`). */
function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a whole number (0 or more)");
  return Number(value);
}
