/**
 * The host commands' command-line definitions (DESIGN §7): `tools`, `search`, `call` and
 * `approve` — their arguments, flags and help. Each action loads its command module
 * (`./tools.js`, `./search.js`, `./runtime-commands.js`) only when it runs, so the CLI's start
 * (`--version`, `--help`, any other command) never pays for the runtime, the project
 * configuration loader or the token encoder (docs/performance.md).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Option, type Command } from "commander";
import { defaultWrite, terminalColor, type CommandOutput, type RuntimeCommandHooks } from "./command-output.js";
import type { CompilerLoader } from "../ensure-artifact.js";
import type { ToolsCommandOptions } from "./tools.js";
import type { SearchCommandOptions } from "./search.js";
import type { ApproveCommandOptions, CallCommandOptions } from "./runtime-commands.js";

/** Adds `tools` to a commander program; `write` receives the output (default: stdout, stderr, exit code). */
export function registerToolsCommand(program: Command, hooks: RuntimeCommandHooks = {}, write: (output: CommandOutput) => void = defaultWrite): void {
  const tools = program
    .command("tools")
    .description("Print the tools the model starts with on a surface: the capability snapshot.")
    .argument("[root]", "agent root", ".")
    .option("--surface <path>", "surface id: . or subagents/<name>", ".")
    .option("--run <id>", "include the deferred tools this run activated with tool_search");
  withProjectConfigOptions(tools);
  refuseConfigFlag(tools);
  tools.addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"));
  tools.action(async (root: string, { locked, ...flags }: Omit<ToolsCommandOptions, "root"> & LockedFlag) => {
    const { runToolsCommand } = await import("./tools.js");
    write(await runToolsCommand({ ...flags, root, color: terminalColor() }, lockedHooks(hooks, locked)));
  });
}

/** Adds `search` to a commander program; `write` receives the output (default: stdout, stderr, exit code). */
export function registerSearchCommand(program: Command, hooks: RuntimeCommandHooks = {}, write: (output: CommandOutput) => void = defaultWrite): void {
  const search = program
    .command("search")
    .description("Search a surface's tools as tool_search does, one page at a time.")
    .argument("[query]", 'words describing the tool; "" browses everything', "")
    .argument("[root]", "agent root", ".")
    .option("--surface <path>", "surface id: . or subagents/<name>", ".")
    .option("--limit <n>", "page size (default: 8; at most 20)")
    .option("--offset <n>", "matches to skip: the nextOffset of the previous page", "0")
    .option("--run <id>", "activate the page's deferred tools in this run, as tool_search does");
  withProjectConfigOptions(search);
  refuseConfigFlag(search);
  search.addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"));
  search.action(async (query: string, root: string, { locked, ...flags }: Omit<SearchCommandOptions, "query" | "root"> & LockedFlag) => {
    const { runSearchCommand } = await import("./search.js");
    write(await runSearchCommand({ ...flags, query, root, color: terminalColor() }, lockedHooks(hooks, locked)));
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

/**
 * Adds `call` and `approve` to a commander program. `write` receives each command's output;
 * the process exit code is set from it.
 */
export function registerRuntimeCommands(program: Command, hooks: RuntimeCommandHooks = {}, write: (output: CommandOutput) => void = defaultWrite): void {
  const call = program
    .command("call")
    .description("Run one tool of the compiled agent as the host would.")
    .argument("<tool>", "model-facing tool name")
    .argument("[root]", "agent root", ".")
    .option("--input <json>", "the tool's input as JSON; - reads it from standard input")
    .option("--surface <path>", "surface id: . or subagents/<name>", ".")
    .option("--run <id>", "run id; state persists per run (generated when omitted)")
    .option("--call <id>", "tool-call id (generated when omitted)")
    .option("--config <KEY=VALUE>", "a host requiredConfig value (repeatable)", (value: string, all: string[] = []) => [...all, value])
    .option("--execution <policy>", "sandbox or direct (default: host.execution of the project configuration, else sandbox)")
    .option("--deadline <ms>", "deadline of the call in milliseconds (default: host.deadlineMs of the project configuration, else 300000)");
  withHostPolicyOptions(call);
  call.action(async (tool: string, root: string, { locked, ...flags }: Omit<CallCommandOptions, "tool" | "root"> & LockedFlag) => {
    requireOption(call, flags.input, "--input <json>");
    const { runCallCommand } = await import("./runtime-commands.js");
    write(await runCallCommand({ ...flags, tool, root, color: terminalColor() }, lockedHooks(hooks, locked)));
  });
  const approve = program
    .command("approve")
    .description("Approve (or deny) a call that stopped at approval_required.")
    .argument("<callId>", "the tool-call id printed by `call`")
    .argument("[root]", "agent root", ".")
    .option("--run <id>", "the run id printed by `call`")
    .option("--deny", "deny instead: the call never executes")
    .option("--config <KEY=VALUE>", "a host requiredConfig value for the approved call (repeatable)", (value: string, all: string[] = []) => [...all, value])
    .option("--execution <policy>", "sandbox or direct, for the approved call (default: host.execution of the project configuration, else sandbox)")
    .option("--deadline <ms>", "deadline of the approved call in milliseconds (default: host.deadlineMs of the project configuration, else 300000)");
  withHostPolicyOptions(approve);
  approve.action(async (callId: string, root: string, { locked, ...flags }: Omit<ApproveCommandOptions, "callId" | "root"> & LockedFlag) => {
    requireOption(approve, flags.run, "--run <id>");
    const { runApproveCommand } = await import("./runtime-commands.js");
    write(await runApproveCommand({ ...flags, callId, root, color: terminalColor() }, lockedHooks(hooks, locked)));
  });
}

/**
 * The host commands, by name: what {@link registerHostCommands} adds, and the commands the
 * package's bin runs from the CLI's host bundle (scripts/build-cli-bundle.mjs; docs/performance.md,
 * "The host bundle").
 */
export const HOST_COMMANDS = ["tools", "search", "call", "approve"] as const;

/** Adds the {@link HOST_COMMANDS} to a commander program: `tools` and `search`, then `call` and `approve`. */
export function registerHostCommands(program: Command, hooks: RuntimeCommandHooks = {}, write: (output: CommandOutput) => void = defaultWrite): void {
  registerCatalogCommands(program, hooks, write);
  registerRuntimeCommands(program, hooks, write);
}

/**
 * The host commands' compile-first step (DESIGN §7: they run the compiled artifact, "compiling
 * first when it is missing or stale"; `../ensure-artifact.ts`), with the compiler `loadCompiler`
 * loads, only when a compile runs. When that compile changed the lock, a note on stderr says so
 * (the lock is committed; the user should see it moved). Resolves to the diagnostics to report
 * and whether the lock changed (the `lockChanged` of the command's JSON).
 */
export function compileFirst(loadCompiler: CompilerLoader): NonNullable<RuntimeCommandHooks["ensureArtifact"]> {
  return async (root, artifactDir, options) => {
    const { ensureArtifact } = await import("../ensure-artifact.js");
    const lock = path.join(root, "plugins.lock");
    const hadLock = fs.existsSync(lock);
    const ensured = await ensureArtifact(root, loadCompiler, artifactDir, options);
    // Said plainly (new-user trial M23, M41: "compiled . first: plugins.lock was updated" was cryptic): what moved, why, what to do.
    // Both causes are named: a lock edited by hand is rewritten too, and "the agent changed" alone was wrong then (E9).
    // A merge's conflicted lock says so, and what Git still needs (new-user trial of 6 December:
    // `tools` recomputed it under the generic words, and `git status` still said UU).
    const conflicted = ensured.diagnostics.some((d) => d.code === "AL6004");
    if (ensured.lockChanged) {
      process.stderr.write(
        conflicted
          ? `assembly-line: ${lock} had Git conflict markers, so the agent (${root}) was compiled first and ${lock} was recomputed from its inputs: review it with \`git diff ${lock}\`, then \`git add ${lock}\` and commit to finish the merge.\n`
          : hadLock
          ? `assembly-line: ${lock} did not match the agent (${root}): the agent changed since its last compile, or the lock was edited. The agent was compiled first, and ${lock} was updated: review it with \`git diff ${lock}\` and commit it with your change.\n`
          : `assembly-line: the agent (${root}) had no plugins.lock, so it was compiled first, and ${lock} was written: commit it with the agent.\n`,
      );
    }
    if (!ensured.diagnostics.some((d) => d.code === "AL1001")) return { diagnostics: ensured.diagnostics, lockChanged: ensured.lockChanged };
    // A root inside an agent (run from plugins/hello/): AL1001's hint names the agent root above.
    const { hintAgentRootAbove } = await import("../agent-root-hint.js");
    return { diagnostics: hintAgentRootAbove(ensured.diagnostics, root, root), lockChanged: ensured.lockChanged };
  };
}

/**
 * Fails the command (AL9001, exit 2, commander's own words) when the option `flags` names was not
 * given. Checked in the action rather than declared required: commander checks required options
 * before unknown ones, so `call echo --inptu '{}'` said "required option '--input <json>' not
 * specified" and never named the misspelt flag; unknown options are refused before an action runs.
 */
function requireOption(command: Command, value: unknown, flags: string): void {
  if (value === undefined) command.error(`error: required option '${flags}' not specified`, { exitCode: 2, code: "commander.missingMandatoryOptionValue" });
}

/**
 * `--project-config FILE` / `--no-project-config`: which project configuration a host command
 * reads (its `outDir` and `host` policy; docs/configuration.md). `--config` is taken by
 * `call`'s `KEY=VALUE` host values, so the host commands all use this name.
 */
function withProjectConfigOptions(command: Command): void {
  command
    .option("--project-config <file>", "the project configuration file (default: searched from the root upwards)")
    .option("--no-project-config", "use no project configuration file")
    .option("--locked", "never compile first: fail (AL8068) when plugins.lock or the artifact is not current");
}

/** `--locked` of every host command (cargo's `--locked`, pnpm's `--frozen-lockfile`): see {@link lockedHooks}. */
interface LockedFlag {
  readonly locked?: boolean;
}

/**
 * `hooks` for a host command run with `--locked`: its compile-first step checks and refuses
 * (AL8068) instead of compiling when `plugins.lock` or the artifact is not current, so a
 * production host or a CI job runs exactly what was compiled and committed (security trial 128:
 * a changed plugin was compiled and run by the next `call`, with one line on stderr).
 */
function lockedHooks(hooks: RuntimeCommandHooks, locked: boolean | undefined): RuntimeCommandHooks {
  const ensure = hooks.ensureArtifact;
  if (locked !== true || ensure === undefined) return hooks;
  return { ...hooks, ensureArtifact: (root, artifactDir, options) => ensure(root, artifactDir, { ...options, locked: true }) };
}

/**
 * `tools --config x.json` (as `compile --config FILE` is written) is an unknown option whose
 * suggestion names `--project-config`, which commander's own suggestion (by spelling) never
 * reaches; a hidden option, refused before the action runs, in commander's words (AL9001).
 */
function refuseConfigFlag(command: Command): void {
  command.addOption(new Option("--config <file>").hideHelp());
  command.hook("preAction", (_program, action) => {
    if (action.opts()["config"] === undefined) return;
    action.error(`error: unknown option '--config'\n(Did you mean --project-config? ${action.name()} takes the project configuration file as --project-config <file>; --config is compile's name for it)`, {
      exitCode: 2,
      code: "commander.unknownOption",
    });
  });
}

/**
 * The host limits and configuration flags `call` and `approve` share (the approved call runs
 * under them; docs/host-policy.md, docs/configuration.md), and `--format`.
 */
function withHostPolicyOptions(command: Command): void {
  command
    .option("--memory-mb <mb>", "JavaScript heap of the sandbox process in MiB (default: host.memoryMb of the project configuration, else 1024)")
    .option("--max-result-bytes <n>", "largest result the tool may return, in bytes of JSON (default: host.maxResultBytes of the project configuration, else 8388608)")
    .option("--max-event-bytes <n>", "largest event the tool may emit, in bytes of JSON (default: 262144)")
    .option("--max-run-state-bytes <n>", "most bytes of JSON a run may store in steps and events (default: 268435456)")
    .option("--network <policy>", "network of sandboxed tools: host or none (default: host.network of the project configuration, else host)");
  withProjectConfigOptions(command);
  command.addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"));
}
