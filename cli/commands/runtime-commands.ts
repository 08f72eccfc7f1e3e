/**
 * The `call` and `approve` commands of DESIGN §7, on top of the JS API. They act as the host:
 * `--config` supplies non-secret `requiredConfig` values and `--execution` is host policy.
 *
 * Exit codes: 0 — `ok` or `approval_required`; 1 — the call failed (tool-call failure or
 * denial) or the artifact was refused (AL8001–AL8014: the input has errors); 2 — usage errors
 * (AL8020–AL8042), control-plane failures and internal failures.
 *
 * The commands return their output instead of printing, so the CLI entry, tests and other
 * hosts can use them; `registerRuntimeCommands` (`./host-commands.ts`) wires them into a
 * commander program and loads this module only when one of them runs.
 */
import * as path from "node:path";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { paletteFor } from "../../diagnostics/terminal-color.js";
import { RuntimeError, runtimeError } from "../../runtime-min/errors.js";
import { ControlPlaneError } from "../../runtime-min/failures.js";
import { STATE_DB_FILE } from "../../runtime-min/artifact/open-artifact.js";
import { checkId, newId } from "../../runtime-min/execution/ids.js";
import type { Runtime } from "../../runtime-min/runtime.js";
import type { CallResult, RuntimeOptions, ToolSearchResult } from "../../runtime-min/types.js";
import type { CapabilitySnapshot } from "../../runtime-min/snapshot/types.js";
import { directExecutionProblems, resolveHostPolicy } from "../host-policy.js";
import { configIsCode } from "../../build/project-config/load-project-config.js";
import { formatCallResult, formatRefusal, hostCommand } from "../format-call-result.js";
import { supportedNode } from "../version.js";
import { unusedHostConfigWarnings } from "../host-config-check.js";
import { formatDiagnosticsFrom } from "../output.js";
import type { CommandOutput, OutputColor, RuntimeCommandHooks } from "./command-output.js";
import { hostLimitArgs, parseConfig, parseExecution, parseHostLimitFlags, parseInput } from "./call-flags.js";
import { compileFirstStep, hostJson, hostOutput, newHostReport, withCompileSettings, type HostAnswer, type HostReport } from "./host-report.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";

export { defaultWrite, terminalColor, type CommandOutput, type OutputColor, type RuntimeCommandHooks } from "./command-output.js";

/** Options of `assembly-line call`. */
export interface CallCommandOptions {
  readonly tool: string;
  readonly root?: string;
  readonly input?: string;
  readonly surface?: string;
  readonly run?: string;
  readonly call?: string;
  readonly config?: readonly string[];
  readonly execution?: string;
  /** `--deadline MS`: the call's deadline (default: `host.deadlineMs` of the project configuration). */
  readonly deadline?: string;
  /** `--project-config FILE` or `--no-project-config` (`false`); default: the configuration search. */
  readonly projectConfig?: string | boolean;
  readonly format?: string;
  /** Colour for pretty output (default: plain). */
  readonly color?: OutputColor;
  /** Host limits as given on the command line (`--memory-mb`, ...; docs/host-policy.md). */
  readonly memoryMb?: string;
  readonly maxResultBytes?: string;
  readonly maxEventBytes?: string;
  readonly maxRunStateBytes?: string;
  readonly network?: string;
}

/** Options of `assembly-line approve`. */
export interface ApproveCommandOptions {
  readonly callId: string;
  readonly root?: string;
  readonly run: string;
  readonly deny?: boolean;
  /** Host `requiredConfig` values (`KEY=VALUE`), as for `call`: the approved call runs now, in this process. */
  readonly config?: readonly string[];
  /** Host execution policy for the approved call, as for `call` (`sandbox` or `direct`). */
  readonly execution?: string;
  /** `--project-config FILE` or `--no-project-config` (`false`), as for `call`. */
  readonly projectConfig?: string | boolean;
  readonly format?: string;
  /** Colour for pretty output (default: plain). */
  readonly color?: OutputColor;
  /** Host limits for the approved call, as for `call`. */
  readonly deadline?: string;
  readonly memoryMb?: string;
  readonly maxResultBytes?: string;
  readonly maxEventBytes?: string;
  readonly maxRunStateBytes?: string;
  readonly network?: string;
}

/** Runs `assembly-line call`. Never throws. */
export async function runCallCommand(options: CallCommandOptions, hooks: RuntimeCommandHooks = {}): Promise<CommandOutput> {
  const json = options.format === "json";
  const report = newHostReport();
  try {
    const input = parseInput(options.input);
    const hostConfig = parseConfig(options.config ?? []);
    // The limit flags first: a bad `--deadline` is AL8062 before anything is loaded.
    const limits = parseHostLimitFlags(options);
    // A bad `--run` is refused before anything is opened (AL8022, as the runtime refuses it).
    if (options.run !== undefined) checkId(options.run, "run");
    startProbesEarly(options.root, hooks);
    const policy = await resolveHostPolicy(options.root ?? ".", options);
    const execution = parseExecution(policy.execution);
    const warnings = directExecutionProblems(policy, execution, options);
    // The printed `approve` command repeats the host settings, since the approved call runs in that process.
    const hostArgs = [...(options.config ?? []).flatMap((pair) => ["--config", pair]), ...(execution === "direct" ? ["--execution", "direct"] : []), ...hostLimitArgs(options)];
    // The run id is generated here when omitted, so the runtime can start the call's sandbox
    // process while it opens the state database (`firstCall`, docs/performance.md). A bad
    // `--call` is refused first (AL8022, as the runtime refuses it), so no workspace is made for
    // a run the call never reaches.
    if (options.call !== undefined) checkId(options.call, "call");
    // The binary's early start picked the run when `--run` was omitted (`../early-call.ts`).
    const early = hooks.earlyStart;
    const runId = options.run ?? early?.runId ?? newId("run");
    const surface = options.surface === undefined ? {} : { surface: options.surface };
    // A configuration that is code ran in this process after the early start and may have
    // changed what a process inherits (limits, its OOM score, the umask the run's folders were
    // made with): its process is not adopted, and no start is remembered for the next call.
    const codeRan = configIsCode(policy.config.file);
    if (codeRan) early?.discard();
    // `refuse`: a tool name the surface cannot call (a typo) is refused before any run state is
    // written, the state database included (README trial of 6 December).
    const firstCall = { tool: options.tool, runId, ...surface, refuse: true, ...(codeRan ? { remember: false } : {}) };
    const earlyStart = early !== undefined && !codeRan && early.runId === runId ? { earlyStart: early } : {};
    const runtimeOptions = { hostConfig, execution, ...policy.runtimeOptions, ...limits, ...(policy.artifactDir ? { artifactDir: policy.artifactDir } : {}), firstCall, ...earlyStart };
    const notes = { warnings, ...(options.run === undefined ? {} : { namedRun: options.run }) };
    // Named here, not by the runtime, so that an interrupted call can say how to retry it.
    const callId = options.call ?? newId("call");
    const retry = { tool: options.tool, runId, callId, inputJson: JSON.stringify(input), ...(options.surface === undefined || options.surface === "." ? {} : { surface: options.surface }) };
    return await withRuntime(options.root, runtimeOptions, withCompileSettings(hooks, policy.compileSettings), json, options.color, hostArgs, report, notes, () => retry, (runtime) =>
      runtime.call({
        tool: options.tool,
        input,
        ...(policy.deadlineMs === undefined ? {} : { deadlineMs: policy.deadlineMs }),
        ...surface,
        runId,
        callId,
      }),
    );
  } catch (error) {
    return refusalOutput(error, json, options.color, "call", options.root ?? ".", report);
  }
}

/** Runs `assembly-line approve`. Never throws. */
export async function runApproveCommand(options: ApproveCommandOptions, hooks: RuntimeCommandHooks = {}): Promise<CommandOutput> {
  const json = options.format === "json";
  const report = newHostReport();
  try {
    const hostConfig = parseConfig(options.config ?? []);
    const limits = parseHostLimitFlags(options);
    startProbesEarly(options.root, hooks);
    const policy = await resolveHostPolicy(options.root ?? ".", options);
    const execution = parseExecution(policy.execution);
    const warnings = directExecutionProblems(policy, execution, options);
    const runtimeOptions = { hostConfig, execution, ...policy.runtimeOptions, ...limits, ...(policy.artifactDir ? { artifactDir: policy.artifactDir } : {}) };
    const retry = (runtime: Runtime) => retryOfRecorded(runtime, options.run, options.callId);
    return await withRuntime(options.root, runtimeOptions, withCompileSettings(hooks, policy.compileSettings), json, options.color, [], report, { warnings }, retry, (runtime) =>
      runtime.approve({ runId: options.run, callId: options.callId, deny: options.deny === true }),
    );
  } catch (error) {
    return refusalOutput(error, json, options.color, "call", options.root ?? ".", report);
  }
}

async function withRuntime(
  root: string | undefined,
  options: Pick<RuntimeOptions, "hostConfig" | "execution" | "artifactByteLimit" | "artifactDir" | "deadlineMs" | "memoryMb" | "maxResultBytes" | "maxEventBytes" | "maxRunStateBytes" | "network" | "firstCall" | "earlyStart">,
  hooks: RuntimeCommandHooks,
  json: boolean,
  color: OutputColor | undefined,
  hostArgs: readonly string[],
  report: HostReport,
  notes: CallNotes,
  retry: (runtime: Runtime) => CallRetry | undefined,
  act: (runtime: Runtime) => Promise<CallResult>,
): Promise<CommandOutput> {
  return withHostRuntime(root, options, hooks, async (runtime) => {
    // Asked before the call, which records the run.
    const unknownRun = notes.namedRun !== undefined && !runtime.hasRun(notes.namedRun) ? [unknownRunDiagnostic({ id: notes.namedRun, command: "call" }, runtime.nearRunId(notes.namedRun))] : [];
    const result = await exitOnSignal(runtime, () => retry(runtime), root ?? ".", hostArgs, () => (options.execution === "direct" ? toolOutputToStderr(() => act(runtime)) : act(runtime)));
    const warnings = [...unknownRun, ...notes.warnings];
    report.diagnostics.push(...warnings);
    const stderr = warnings.length > 0 ? formatRefusal("", warnings, paletteFor(color?.stderr ?? false)) : "";
    const exitCode = exitCodeOf(result);
    if (json) return { exitCode, document: { ...result }, stderr };
    // Read by a person: a tool's stack at its sources (the JSON keeps it as the tool reported it).
    const shown = hooks.sourceStacks ? await hooks.sourceStacks(result, runtime) : result;
    // An approved call that never finished (its process was interrupted): say how to finish it.
    // Never for one that ran to its end: the command would run an approved side effect again
    // without a new approval (new-user trial 125: `approve --deny` of a finished call offered it).
    const recorded = result.alreadyDecided === true && result.status === "failed" && result.failure === undefined && result.approval?.state === "approved" ? retry(runtime) : undefined;
    const unfinished = recorded?.finished === true ? undefined : recorded;
    const stdout = formatCallResult(shown, root ?? ".", paletteFor(color?.stdout ?? false), hostArgs);
    return { exitCode, stdout: unfinished ? `${stdout}  finish it (the approval stands): ${retryCommand(unfinished, root ?? ".", hostArgs)}\n` : stdout, stderr };
  }, color, report);
}

/**
 * Runs `act` with this process's standard output sent to standard error: under direct execution
 * the tool runs in this process, and what it prints (`console.log`, `process.stdout.write`) would
 * otherwise come before the command's answer on stdout, breaking `--format json`'s one JSON
 * object (new-user trial 112, C5). The answer is written after `act`, to the real stdout.
 */
async function toolOutputToStderr<T>(act: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  try {
    return await act();
  } finally {
    process.stdout.write = write;
  }
}

/** What retrying a call takes: the same tool, run id, call id, input and surface (a retry, not a new call: AL8024 otherwise). */
interface CallRetry {
  readonly tool: string;
  readonly runId: string;
  readonly callId: string;
  readonly inputJson: string;
  readonly surface?: string;
  /** True when the recorded call has an outcome (`ok`, `failed`, `denied`): there is nothing to finish. */
  readonly finished?: boolean;
}

/** The retry of a recorded call (`approve`'s call: the runtime recorded it when it asked for approval), or `undefined` without a record. */
function retryOfRecorded(runtime: Runtime, runId: string, callId: string): CallRetry | undefined {
  const record = runtime.callRecord(runId, callId);
  if (!record) return undefined;
  const finished = record.status === "ok" || record.status === "failed" || record.status === "denied";
  return { tool: record.tool, runId, callId, inputJson: record.inputJson, ...(record.surface === "." ? {} : { surface: record.surface }), ...(finished ? { finished } : {}) };
}

/** The `call` command line that retries `retry`, with the host flags `hostArgs` the call ran under. */
function retryCommand(retry: CallRetry, root: string, hostArgs: readonly string[]): string {
  const surface = retry.surface === undefined ? [] : ["--surface", retry.surface];
  return hostCommand("call", root, [retry.tool, "--run", retry.runId, "--call", retry.callId, ...surface, ...hostArgs, "--input", retry.inputJson]);
}

/**
 * Runs `act` (a `call` or `approve`) so that Ctrl-C or SIGTERM does not leave the run locked (new-user
 * trial 112, C2): the runtime lets its runs go at once (`Runtime.abandon`: the leases released,
 * nothing more recorded, the sandbox processes ending with this process), the call's retry
 * command is printed on stderr, and the process exits 130 (SIGINT) or 143 (SIGTERM), as a shell
 * reports a command a signal ended. Without this, the lease stayed until it expired (up to
 * `leaseMs`, 30 s) and the next `call` was refused with AL8028.
 */
async function exitOnSignal<T>(runtime: Runtime, retry: () => CallRetry | undefined, root: string, hostArgs: readonly string[], act: () => Promise<T>): Promise<T> {
  const onSignal = (signal: NodeJS.Signals) => {
    let known: CallRetry | undefined;
    try {
      known = retry();
    } catch {
      // An unreadable record: the message below names no command.
    }
    runtime.abandon();
    const what = known ? `the call ${known.callId} of run ${known.runId} did not finish` : "the call did not finish";
    const next = known ? `\n  retry it (its finished steps replay): ${retryCommand(known, root, hostArgs)}` : "";
    process.stderr.write(`assembly-line: interrupted (${signal}); ${what}. The run is free for the next command.${next}\n`);
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await act();
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * What `call` and `approve` warn about beside the runtime's own warnings: `warnings` known before
 * the runtime opened (AL8066, a configuration's limits direct execution does not apply), and for
 * `call --run`, the run it names, warned about (AL8046) when the state has no record of it.
 */
interface CallNotes {
  readonly warnings: readonly Diagnostic[];
  readonly namedRun?: string;
}


/**
 * Runs a host command on the root's compiled artifact: the compile-first step first
 * (`compileFirstStep`, `./host-report.ts`), then `act` on an open runtime, closed afterwards. The runtime's
 * own warnings (AL8030, …) are appended to `stderr` (coloured when `color.stderr`) and to
 * `report`, whose `diagnostics` and `lockChanged` a JSON answer carries. Throws what
 * `openRuntime` and `act` throw; pair it with {@link refusalOutput}, given the same `report`.
 */
export async function withHostRuntime(
  root: string | undefined,
  options: Omit<RuntimeOptions, "root">,
  hooks: RuntimeCommandHooks,
  act: (runtime: Runtime) => Promise<HostAnswer>,
  color?: OutputColor,
  report: HostReport = newHostReport(),
): Promise<CommandOutput> {
  const agentRoot = root ?? ".";
  startProbesEarly(root, hooks, options);
  await compileFirstStep(agentRoot, options.artifactDir, hooks, report);
  // Loaded on use, so commands that never open a runtime (compile, validate) do not pay for it.
  const { openRuntime } = await import("../../runtime-min/runtime.js");
  const runtime = await openRuntime({ ...hooks.runtimeOptions, ...options, root: agentRoot }).catch((error: unknown) => {
    throw stateStoreOpenError(error) ?? error;
  });
  try {
    const answer = await act(runtime);
    const runtimeWarnings = [...unusedHostConfigWarnings(options.hostConfig, runtime.artifact), ...runtime.warnings];
    report.diagnostics.push(...runtimeWarnings);
    const warnings = runtimeWarnings.length > 0 ? formatRefusal("", runtimeWarnings, paletteFor(color?.stderr ?? false)) : "";
    return hostOutput({ ...answer, stderr: answer.stderr + warnings }, report);
  } finally {
    await runtime.close();
  }
}


/** The catalogue side of a host: what `tools` and `search` read. */
export interface HostCatalog {
  /** Absolute agent root. */
  readonly root: string;
  /** The snapshot of a surface (with the run's activations when the catalogue belongs to a run). */
  snapshot(surface: string): CapabilitySnapshot;
  /** One search page of a surface (activating its deferred tools in the run, when there is one). */
  search(query: string, request: { readonly surface: string; readonly limit?: number; readonly offset?: number }): ToolSearchResult;
}

/**
 * The `--run` of `tools`, `search` or `call`: the run id and the command, which decides what
 * the warning about a run the state has no record of says (see {@link unknownRunWarning}).
 */
export interface HostCatalogRun {
  readonly id: string;
  readonly command: "tools" | "search" | "call";
}

/**
 * What a run the state has no record of means for each command: `tools` lists no
 * activations, and `search` (which records its activations) and `call` start the run.
 */
const UNKNOWN_RUN_CONSEQUENCE: Readonly<Record<HostCatalogRun["command"], string>> = {
  tools: "nothing was called or searched in it, so the list has no tools it activated",
  search: "nothing was called or searched in it, so this search started it; check the id if you meant an existing run",
  call: "nothing was called or searched in it, so this call started it; check the id if you meant an existing run",
};

/**
 * Warning AL8046 for `tools --run`, `search --run` or `call --run` of a run the state had no
 * record of before the command: a mistyped run id would otherwise look like a run that activated
 * nothing (`tools`) or silently start a new one (`search`, `call`: README trial of 6 December).
 * The one place this rule is worded.
 */
export function unknownRunDiagnostic(run: HostCatalogRun, near?: string): Diagnostic {
  // A run of this agent within a typo of the id (new-user trial of 6 December: a dropped digit started a new run silently but for the warning).
  const hint = near === undefined ? {} : { hint: `Did you mean '${near}', a run of this agent? Give that id to --run to continue it.` };
  return createDiagnostic(Diagnostics.CatalogRunUnknown, { file: "", line: 1, column: 1 }, [run.id, UNKNOWN_RUN_CONSEQUENCE[run.command]], hint);
}

/** {@link unknownRunDiagnostic} as stderr prints it, formatted as the runtime's own warnings are. */
export function unknownRunWarning(run: HostCatalogRun, color?: OutputColor, near?: string): string {
  return formatRefusal("", [unknownRunDiagnostic(run, near)], paletteFor(color?.stderr ?? false));
}

/**
 * Runs `tools` or `search` on the root's compiled artifact: the compile-first step first
 * (`compileFirstStep`, `./host-report.ts`), then `act` on the catalogue. Without a run that is the read-only
 * `CatalogView` (no state database, no sandbox, no probes: docs/performance.md); with one, a
 * full runtime, since the run's activations live in its state (its setup warnings are appended
 * to `stderr`, as {@link withHostRuntime} does), and a run the state had no record of before
 * `act` adds {@link unknownRunWarning} to `stderr`. Each warning also goes into `report`, whose
 * `diagnostics` and `lockChanged` a JSON answer carries. Throws what they throw; pair it with
 * {@link refusalOutput}, given the same `report`.
 */
export async function withHostCatalog(
  root: string | undefined,
  run: HostCatalogRun | undefined,
  options: { readonly artifactDir?: string; readonly artifactByteLimit?: number },
  hooks: RuntimeCommandHooks,
  act: (catalog: HostCatalog) => Promise<HostAnswer>,
  color?: OutputColor,
  report: HostReport = newHostReport(),
): Promise<CommandOutput> {
  if (run !== undefined) {
    const runId = run.id;
    return withHostRuntime(root, options, hooks, async (runtime) => {
      // Asked before `act`: a search records the run it activates tools in.
      const known = runtime.hasRun(runId);
      const answer = await act({
        root: runtime.root,
        snapshot: (surface) => runtime.snapshot({ surface, runId }),
        search: (query, request) => runtime.search(query, { ...request, runId }),
      });
      if (known) return answer;
      const warning = unknownRunDiagnostic(run, runtime.nearRunId(runId));
      report.diagnostics.push(warning);
      return { ...answer, stderr: formatRefusal("", [warning], paletteFor(color?.stderr ?? false)) + answer.stderr };
    }, color, report);
  }
  const agentRoot = root ?? ".";
  await compileFirstStep(agentRoot, options.artifactDir, hooks, report);
  const { CatalogView } = await import("../../runtime-min/catalog-view.js");
  const view = CatalogView.open({ root: agentRoot, ...(options.artifactDir ? { artifactDir: options.artifactDir } : {}), ...(hooks.runtimeOptions?.coreToolPolicy ? { coreToolPolicy: hooks.runtimeOptions.coreToolPolicy } : {}) });
  return hostOutput(await act({ root: view.root, snapshot: (surface) => view.snapshot(surface), search: (query, request) => view.search(query, request) }), report);
}

/**
 * Starts the runtime's isolation probes now (`runtime-min/sandbox/start-probes.ts`), so their
 * processes run while this host loads the project configuration, checks the artifact and loads
 * the runtime; `openRuntime` awaits the same once-per-process probes (issue 14 item 3). The
 * shell policy is the one `openRuntime` will get (only hooks and options carry one).
 */
function startProbesEarly(root: string | undefined, hooks: RuntimeCommandHooks, options?: Pick<RuntimeOptions, "shellIsolation">): void {
  const shellIsolation = options?.shellIsolation ?? hooks.runtimeOptions?.shellIsolation;
  // The launchers the binary's early start found remembered are the process probe's answer.
  const known = hooks.earlyStart?.launch;
  // Only a head start: when this fails, openRuntime runs the probes itself.
  import("../../runtime-min/sandbox/start-probes.js").then((probes) => probes.startIsolationProbes(root ?? ".", shellIsolation, known)).catch(() => undefined);
}

function exitCodeOf(result: CallResult): 0 | 1 | 2 {
  if (result.status !== "failed") return 0;
  return result.failure?.kind === "control_plane" ? 2 : 1;
}

/**
 * The output of a refused host command: exit code 1 for a refused artifact (AL8001–AL8019, and
 * AL8068: `--locked` and an artifact or lock that is not current) or compile errors, 2 for usage errors (other AL8xxx) and anything else; with `json`, one JSON
 * object on stdout — for `call` and `approve` (`shape: "call"`) the call shape
 * `{ status: "failed", error, diagnostics, events: [] }`, for `tools` and `search`
 * (`shape: "diagnostics"`) `{ ok: false, diagnostics }` as `compile` and `validate` print, each
 * with `lockChanged` from `report` (a compile-first step may have written the lock before the
 * command was refused) — else the diagnostics on stderr (coloured when `color.stderr`): with
 * `root` (the agent root as typed), diagnostics that name a file print as `compile` prints them
 * (relative to the working directory, with code frames: `../output.ts`), others as a plain refusal.
 */
export function refusalOutput(error: unknown, json: boolean, color?: OutputColor, shape: "call" | "diagnostics" = "call", root?: string, report: HostReport = newHostReport()): CommandOutput {
  const refusal = error instanceof RuntimeError ? error : undefined;
  const diagnostics = refusal?.diagnostics ?? [];
  const message = error instanceof Error ? error.message : String(error);
  const inputError = refusal !== undefined && /^AL80(?:0\d|1[0-9]|68)$/.test(refusal.code);
  const exitCode = inputError || (refusal && refusal.code.startsWith("AL") && !refusal.code.startsWith("AL8")) ? 1 : 2;
  if (json) {
    const document = shape === "call" ? { status: "failed", error: message, diagnostics, events: [] } : { ok: false, diagnostics };
    return { exitCode, stdout: hostJson(document, report), stderr: "" };
  }
  // Diagnostics that name files (a compile-first step's, the artifact's) read as `compile` prints them.
  if (root !== undefined && diagnostics.some((d) => d.file !== "")) return { exitCode, stdout: "", stderr: formatDiagnosticsFrom(diagnostics, root, color?.stderr ?? false) };
  return { exitCode, stdout: "", stderr: formatRefusal(message, diagnostics, paletteFor(color?.stderr ?? false)) };
}

/**
 * AL8047 (a `RuntimeError`, which the refusal prints with its code, file and hint) for a state
 * store that could not be opened: the runtime API reports it as the control-plane failure
 * `state_store_failure` (docs/host-policy.md), whose words alone ("could not open the state
 * database in the state database: …") had no code, file or hint in the CLI (helper-73). Its file
 * is relative to the agent root; a native module built for another Node is said as such.
 * `undefined` for any other error.
 */
export function stateStoreOpenError(error: unknown): RuntimeError | undefined {
  if (!(error instanceof ControlPlaneError) || error.reason !== "state_store_failure") return undefined;
  const cause = (error as { cause?: unknown }).cause;
  const reason = (cause instanceof Error ? cause.message : error.message).replace(/\.$/, "");
  const shown = path.posix.join(".assemblyline", STATE_DB_FILE);
  // SQLite's native module built for another Node (a `npm ci` under one Node, a run under another): not the database's fault.
  const otherNode = /NODE_MODULE_VERSION|compiled against a different Node\.js version/.test(reason)
    ? `The SQLite module (better-sqlite3) was built for another Node.js than this one (${process.version}): run with the Node.js the project was installed with (this toolchain supports ${supportedNode() ?? "the versions its package.json names"}), or reinstall under this one (\`npm rebuild better-sqlite3\`, or \`npm ci\`); nothing was run.`
    : undefined;
  // The file relative to the agent root, as every diagnostic's (`root` joined in made it agents/bot/agents/bot/…: new-user trial 115).
  return runtimeError(Diagnostics.StateStoreOpenFailed, shown, [shown, reason], otherNode);
}
