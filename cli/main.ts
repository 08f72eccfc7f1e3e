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
 * and `--help` load almost nothing and `tools` loads neither TypeScript nor esbuild. The program
 * itself (name, version, usage errors, failures) is `./program.ts`, shared with the host
 * commands' own entry (`./host-main.ts`), which the package's bin runs for them.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import type { CompileFlags } from "./commands/compile.js";
import type { ReviewFlags } from "./commands/review.js";
import type { ValidateFlags } from "./commands/validate.js";
import { isTargetId, TARGET_IDS, unknownTargetHint } from "../compiler/providers/profile.js";
import { compileFirst, registerHostCommands } from "./commands/host-commands.js";
import { createProgram, runProgram } from "./program.js";
import type { CompilerLoader } from "./ensure-artifact.js";
import { sourceStacks } from "./source-stacks.js";
import { printCommandOutput, type CommandOutput } from "./commands/command-output.js";
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
  const program = createProgram();

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
    .option("--target <id>", `check every tool against a model API's rules, as compile does (repeatable; default: targets of the configuration): ${TARGET_IDS.join(", ")}`, collectTarget)
    .option("--config <file>", "the project configuration file to use (default: searched from the plugin folder upwards)")
    .option("--no-config", "use no project configuration file")
    .addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"))
    .action(async (pluginDir: string, options: ValidateFlags) => {
      const { runValidate } = await import("./commands/validate.js");
      exitCode = await runValidate(pluginDir, options);
    });

  program
    .command("add")
    .description("Install a published plugin with the project's package manager, select it in agent.md and pin it in plugins.lock.")
    .argument("<plugin>", "a short name (openui → @assemblyline-agents/openui), a package name[@version], a file: tarball or a path")
    .argument("[root]", "agent root", ".")
    .option("--as <key>", "capability key (default: the plugin's plugin.json name)")
    .option("--config <file>", "the project configuration file to use (default: searched from the root upwards)")
    .option("--no-config", "use no project configuration file")
    .action(async (spec: string, root: string, options: { as?: string; config?: string | false }) => {
      const { runAdd } = await import("./commands/add.js");
      exitCode = await runAdd(spec, root, options);
    });

  program
    .command("review")
    .description("Show what the next plugins.lock changes for the model (tools, descriptions, schemas, approvals) against the committed one.")
    .argument("[root]", "agent root", ".")
    .addOption(new Option("--format <format>", "output format (github and sarif: each change placed on plugins.lock)").choices(["pretty", "json", "github", "sarif"]).default("pretty"))
    .option("--base <revision>", "compare with the plugins.lock of this Git revision (a pull request's base, e.g. origin/main) instead of HEAD's")
    .option("--config <file>", "the project configuration file to use (default: searched from the root upwards)")
    .option("--no-config", "use no project configuration file")
    .option("--target <id>", `check every tool against a model API's rules, as compile does (repeatable; default: targets of the configuration): ${TARGET_IDS.join(", ")}`, collectTarget)
    .option("--token-budget <n>", "the most tokens a surface's initial snapshot may cost, as compile does (default: tokenBudget of the configuration)", parseTokenBudget)
    .option("--max-warnings <n>", "more than n warnings are an error, as for compile (default: maxWarnings of the configuration)", parseCount)
    .action(async (root: string, options: ReviewFlags) => {
      const { runReview } = await import("./commands/review.js");
      exitCode = await runReview(root, options);
    });

  const write = (output: CommandOutput): void => {
    printCommandOutput(output);
    exitCode = output.exitCode;
  };
  const hooks = { ensureArtifact: compileFirst(loadCompiler), sourceStacks: sourceStacks(() => import("../packaging/bundle-source-map.js")), ...(services.earlyStart === undefined ? {} : { earlyStart: services.earlyStart }) };
  registerHostCommands(program, hooks, write);
  registerLspCommand(program, services.serveLanguageServer, (code) => (exitCode = code));
  return runProgram(program, argv, () => exitCode);
}

/** The compiler, for the host commands' compile-first step: in this entry, the modules beside it. */
const loadCompiler: CompilerLoader = () => import("../build/compile.js");

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

/** A non-negative integer option value (`--max-warnings`). */
function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("expected a whole number (0 or more)");
  return Number(value);
}
