/**
 * runtime-min: loads a verified artifact and runs its tools under the seed's tool contract
 * (DESIGN §6; seed "Tool implementation", "Execution Model", "Approval Gates", "Durable
 * Steps", "Safe Model Output", "Execution Context").
 *
 * @example
 * const runtime = await openRuntime({ root: "/path/to/agent" });
 * try {
 *   const result = await runtime.call({ tool: "echo", input: { message: "hi" } });
 *   // result.status === "ok", result.output → { message: "hi" }
 * } finally {
 *   await runtime.close();
 * }
 */
import * as path from "node:path";
import { ignoreStateDir } from "../common/state-dir.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { canonicalJsonText } from "../common/canonical-json.js";
import type { LoadedArtifact, VerifiedTool } from "./artifact/load-artifact.js";
import { CORE_TOOLS } from "./core-tools/index.js";
import { delegateTool } from "./core-tools/delegate.js";
import type { ChildCallResult } from "./core-tools/delegation-types.js";
import { DELEGATE_TOOL_NAME } from "../contract/core-catalog.js";
import type { CoreTool } from "./core-tools/types.js";
import { RuntimeError, runtimeError } from "./errors.js";
import { CallSession, type RuntimeEvent } from "./execution/call-session.js";
import { AuthoredExecutor } from "./execution/execute-authored.js";
import { forgetSandboxStart, rememberSandboxStart, type EarlySandboxStart } from "./execution/early-start.js";
import { checkId, newId } from "./execution/ids.js";
import { checkCallJournal, checkLeaseMs, RunLeases, type LeaseHandle } from "./execution/run-lease.js";
import { superviseCall } from "./execution/supervise-call.js";
import { ToolCatalog } from "./execution/tool-catalog.js";
import { ensureWorkspace } from "./execution/workspace.js";
import { checkShellIsolationPolicy, WorkspaceShell } from "./execution/workspace-shell.js";
import { ControlPlaneError } from "./failures.js";
import { processDataLimitMb, resolveHostLimits, type HostLimits } from "./host-limits.js";
import { probeProcessIsolation, type ProcessIsolationProbe } from "./sandbox/process-isolation.js";
import { useIsolationCache } from "./sandbox/probe-cache.js";
import { copyJson, type Json } from "./sandbox/json-copy.js";
import type { CapabilitySnapshot, CoreToolPolicy, SnapshotTool } from "./snapshot/types.js";
import { loadStateStoreDriver, StateStore, type ApprovalRecord, type CallRecord, type RunRecord } from "./state/state-store.js";
import { CallPipeline } from "./execution/call-pipeline.js";
import { CallTargets } from "./execution/call-targets.js";
import type {
  ApproveRequest,
  CallResult,
  ExecutionPolicy,
  RuntimeOptions,
  SearchRequest,
  ShellIsolationStatus,
  SnapshotRequest,
  ToolCallRequest,
  ToolSearchResult,
  UseToolOptions,
} from "./types.js";
import { byCodeUnits } from "../common/compare.js";
import { deniedResult, pendingResult, recordedResult } from "./execution/approvals.js";

import { openArtifact, STATE_DB_FILE } from "./artifact/open-artifact.js";
import { assertSurface, searchPageOf } from "./catalog-view.js";
import { didYouMean } from "../common/did-you-mean.js";

export { STATE_DB_FILE } from "./artifact/open-artifact.js";

/**
 * Opens a runtime: loads and verifies the artifact against `plugins.lock`, starts the
 * sandbox process of the announced first call (`firstCall`), opens the state database, and
 * probes (once per process) whether shell commands can run isolated, unless
 * `shellIsolation` is `"off"`. Throws `RuntimeError` AL1024/AL1025 when the root is missing or
 * not a folder, (AL8001–AL8014) for a missing, stale or
 * tampered artifact, AL8029 for an invalid `leaseMs`, AL8067 for an invalid `callJournal`, AL8033 for an invalid `shellIsolation`,
 * and `ControlPlaneError` when the state database cannot be opened.
 */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  checkLeaseMs(options.leaseMs);
  checkCallJournal(options.callJournal);
  const shellPolicy = checkShellIsolationPolicy(options.shellIsolation);
  const limits = resolveHostLimits(options);
  const { root, stateDir, artifact } = openArtifact(options);
  // Both probes start child processes: run them side by side (each runs once per process; a
  // success is remembered in the root's .assemblyline/cache/, ./sandbox/probe-cache.ts).
  useIsolationCache(root);
  const [probedShell, isolation] = await Promise.all([WorkspaceShell.open(shellPolicy, limits.network, processDataLimitMb(limits.memoryMb)), probeProcessIsolation()]);
  // A sandboxed tool's process that would follow a link a shell command leaves (no link guard):
  // its shell commands count as not isolated (AL8031, or refused under "required").
  const unguarded = (options.execution ?? "sandbox") === "sandbox" && isolation.tools.mount === undefined;
  const shell = unguarded ? probedShell.withoutLinkGuard(isolation.linkGuardUnavailableReason ?? isolation.unavailableReason ?? "the host's launchers have no link guard (setSandboxLaunchTools without mount)") : probedShell;
  if ((options.execution ?? "sandbox") === "sandbox" && limits.network === "none" && isolation.unavailableReason !== undefined) {
    throw runtimeError(Diagnostics.NetworkPolicyUnenforceable, "", [isolation.unavailableReason]);
  }
  const parts = runtimeParts(options, root, stateDir, artifact, limits, isolation);
  try {
    refuseUncallableFirstCall(options.firstCall, artifact, parts);
  } catch (error) {
    await parts.executor.close();
    options.earlyStart?.discard();
    throw error;
  }
  // The call the host announced starts its sandbox process now, so the process boots while
  // SQLite loads and the state database opens (issue 14 item 3).
  const workspaces = startFirstCall(options, parts, artifact, root, stateDir, limits);
  let store: StateStore;
  try {
    // SQLite by `import()` (bundled in the CLI); a failure to load it is the open's to report.
    await loadStateStoreDriver().catch(() => undefined);
    store = StateStore.open(path.join(stateDir, STATE_DB_FILE), {
      ...(options.stateBusyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.stateBusyTimeoutMs }),
      callJournal: checkCallJournal(options.callJournal),
    });
  } catch (error) {
    await parts.executor.close();
    options.earlyStart?.discard();
    throw error;
  }
  ignoreStateDir(root);
  return new Runtime(options, root, stateDir, artifact, store, shell, limits, isolation, parts, workspaces);
}

/** What a runtime builds before its state store opens: none of it touches the store. */
interface RuntimeParts {
  readonly executor: AuthoredExecutor;
  readonly catalog: ToolCatalog;
  readonly targets: CallTargets;
}

function runtimeParts(options: RuntimeOptions, root: string, stateDir: string, artifact: LoadedArtifact, limits: HostLimits, isolation: ProcessIsolationProbe): RuntimeParts {
  const executor = new AuthoredExecutor({
    execution: options.execution ?? "sandbox",
    root,
    stateDir,
    maxWorkers: options.maxSandboxProcesses ?? 16,
    startTimeoutMs: options.sandboxStartTimeoutMs ?? 15_000,
    limits,
    launch: isolation.tools,
    ...(options.earlyStart === undefined ? {} : { early: options.earlyStart }),
  });
  const catalog = new ToolCatalog(artifact.manifest, options.coreToolPolicy);
  const hostTools = new Map<string, CoreTool>([...CORE_TOOLS, [DELEGATE_TOOL_NAME, delegateTool], ...(options.hostTools ?? [])]);
  return { executor, catalog, targets: new CallTargets({ artifact, catalog, hostTools, hostConfig: options.hostConfig ?? {} }) };
}

/**
 * Starts the sandbox process of the announced call (`RuntimeOptions.firstCall`) when that call
 * will run its authored tool at once (`CallTargets.toolStartingNow`, the rule the call itself
 * applies). Returns the workspaces it created, by run id, for the runtime to reuse. A hint the
 * call would refuse on what the artifact and the host say (unknown surface, invalid run id) or
 * whose workspace cannot be made starts nothing: the call reports it. What only the state store
 * knows (an ended run, a lease another host holds, a reused call id) is not checked here: such a
 * call is refused as before, and the process it started, which never loaded a tool, ends with
 * the runtime. What was started is remembered for the next host's early start of the same call
 * (`./execution/early-start.ts`; forgotten when the call started nothing), and the host's own
 * early start (`RuntimeOptions.earlyStart`) is claimed: its process is adopted by the worker
 * when launched the same way.
 */
function startFirstCall(options: RuntimeOptions, parts: RuntimeParts, artifact: LoadedArtifact, root: string, stateDir: string, limits: HostLimits): Map<string, string> {
  const workspaces = new Map<string, string>();
  const { firstCall, earlyStart } = options;
  earlyStart?.claim();
  if (firstCall === undefined) return workspaces;
  const surfaceId = firstCall.surface ?? ".";
  const toolName = String(firstCall.tool);
  const known = earlyStart !== undefined && earlyStart.surface === surfaceId && earlyStart.tool === toolName ? earlyStart.entry : undefined;
  const started = prestart(firstCall, surfaceId, toolName, parts, artifact, stateDir, workspaces);
  if (firstCall.remember === false) forgetSandboxStart(root, surfaceId, toolName);
  else rememberSandboxStart(root, surfaceId, toolName, started && { bundlePath: started.verifiedBundle, memoryMb: limits.memoryMb, maxResultBytes: limits.maxResultBytes, network: limits.network }, known);
  return workspaces;
}

/**
 * With `firstCall.refuse` (`RuntimeOptions.firstCall`), throws `RuntimeError` AL8020 for an
 * unknown surface and AL8064 for a tool the surface cannot call (`CallTargets.resolve`, the
 * dispatch the call itself would do), with the reason and its "did you mean"; nothing is written.
 */
function refuseUncallableFirstCall(firstCall: RuntimeOptions["firstCall"], artifact: LoadedArtifact, parts: RuntimeParts): void {
  if (firstCall?.refuse !== true) return;
  const surfaceId = firstCall.surface ?? ".";
  assertSurface(artifact.manifest, surfaceId);
  const target = parts.targets.resolve(surfaceId, String(firstCall.tool));
  if (target.kind === "refused") throw runtimeError(Diagnostics.CallToolRefused, "", [target.message]);
}

/** Starts the announced call's process as {@link startFirstCall} says; returns the tool it started, if any. */
function prestart(firstCall: NonNullable<RuntimeOptions["firstCall"]>, surfaceId: string, toolName: string, parts: RuntimeParts, artifact: LoadedArtifact, stateDir: string, workspaces: Map<string, string>): VerifiedTool | undefined {
  if (parts.executor.runtimeBoundary !== "sandbox") return undefined;
  let runId: string;
  try {
    runId = checkId(firstCall.runId, "run");
    assertSurface(artifact.manifest, surfaceId);
  } catch {
    return undefined;
  }
  const tool = parts.targets.toolStartingNow(surfaceId, toolName, "ask");
  if (tool === undefined) return undefined;
  let workspace: string;
  try {
    workspace = ensureWorkspace(stateDir, runId);
  } catch {
    // A workspace that cannot be made is the call's failure, reported when it makes it.
    return undefined;
  }
  workspaces.set(runId, workspace);
  parts.executor.prewarm(tool, runId, workspace);
  return tool;
}

/** A run end that could not be written yet: the failure and the call it ended. */
interface PendingRunEnd {
  readonly failure: ControlPlaneError;
  readonly callId: string;
  /** The lease epoch the failed call held; `undefined` when it failed before taking the lease. */
  readonly epoch: number | undefined;
}

/** An open runtime. Not safe to use after {@link Runtime.close}. */
export class Runtime {
  /** Where authored tools run under this runtime's host policy. */
  readonly execution: ExecutionPolicy;
  private readonly store: StateStore;
  private readonly executor: AuthoredExecutor;
  private readonly pipeline: CallPipeline;
  private readonly catalog: ToolCatalog;
  /** The run progress leases this runtime holds (one host drives a run at a time). */
  private readonly leases: RunLeases;
  private closed = false;
  /** Runs ended in this process whose end could not be persisted yet (state store down). */
  private readonly endedRuns = new Map<string, PendingRunEnd>();
  /** Workspace directory per run, created once per runtime. */
  private readonly workspaces: Map<string, string>;
  /** Runs the calls' shell commands under the host's `shellIsolation` policy. */
  private readonly shell: WorkspaceShell;
  /** The host limits every call runs under (docs/host-policy.md). */
  readonly limits: HostLimits;
  /** The host's early start of its announced call, ended (unless adopted) when the runtime closes. */
  private readonly earlyStart: EarlySandboxStart | undefined;

  /** @internal use {@link openRuntime}. */
  constructor(
    options: RuntimeOptions,
    readonly root: string,
    readonly stateDir: string,
    readonly artifact: LoadedArtifact,
    store: StateStore,
    shell: WorkspaceShell,
    limits: HostLimits,
    private readonly isolation: ProcessIsolationProbe,
    parts: RuntimeParts,
    workspaces: Map<string, string>,
  ) {
    this.execution = options.execution ?? "sandbox";
    this.earlyStart = options.earlyStart;
    this.store = store;
    this.shell = shell;
    this.limits = limits;
    this.workspaces = workspaces;
    this.leases = new RunLeases(store, checkLeaseMs(options.leaseMs));
    this.executor = parts.executor;
    this.catalog = parts.catalog;
    this.pipeline = new CallPipeline({
      artifact,
      store,
      executor: this.executor,
      // Loaded with the first input check (ajv), while that call's sandbox process starts.
      validator: async () => new (await import("./execution/validate-input.js")).InputValidator(),
      targets: parts.targets,
      // delegate drives the child with the host's driver; the child's tool calls are ordinary calls.
      delegation: { driver: options.childDriver, callChild: (request): Promise<ChildCallResult> => this.call(request) },
      catalog: this.catalog,
      policy: options.coreToolPolicy ?? ({} as CoreToolPolicy),
      stateDir,
      ...(options.hostImplementations ? { hostImplementations: options.hostImplementations } : {}),
      ...(options.artifactByteLimit === undefined ? {} : { artifactByteLimit: options.artifactByteLimit }),
    });
  }

  /** True when sandbox children run under Node's permission model (AL8030 otherwise). */
  get sandboxPermissionModel(): boolean {
    return this.executor.permissionModel;
  }

  /**
   * How shell commands (`ctx.getSandbox().exec`, `bash`) run: the host's `shellIsolation`
   * policy, whether they run isolated, and why not when this host cannot isolate them.
   */
  get shellIsolation(): ShellIsolationStatus {
    return this.shell.status;
  }

  /**
   * Warnings about this runtime's setup: AL8030 when sandboxes lack the permission model,
   * AL8060 when sandbox processes get no namespaces, AL8063 when they get them without the link
   * guard (no socket hiding either), AL8031 when shell commands run unisolated under
   * `shellIsolation: "auto"`, AL8032 when `"required"` isolation is unavailable (shell requests
   * will fail), AL8069 for each verified bundle copy found changed and written anew when it opened.
   */
  get warnings(): readonly Diagnostic[] {
    const warnings: Diagnostic[] = [];
    if (this.execution === "sandbox" && !this.executor.permissionModel) {
      warnings.push(createDiagnostic(Diagnostics.SandboxWithoutPermissionModel, { file: ".assemblyline/build/manifest.json", line: 1, column: 1 }, [process.version]));
    }
    if (this.execution === "sandbox" && this.isolation.unavailableReason !== undefined) {
      warnings.push(createDiagnostic(Diagnostics.SandboxProcessIsolationUnavailable, { file: ".assemblyline/build/manifest.json", line: 1, column: 1 }, [this.isolation.unavailableReason]));
    } else if (this.execution === "sandbox" && this.isolation.tools.mount === undefined) {
      // The namespaces without the link guard: the socket folders are not hidden from the process either.
      const reason = this.isolation.linkGuardUnavailableReason ?? "the host's launchers have no link guard (setSandboxLaunchTools without mount)";
      warnings.push(createDiagnostic(Diagnostics.SandboxLinkGuardUnavailable, { file: ".assemblyline/build/manifest.json", line: 1, column: 1 }, [reason]));
    }
    warnings.push(...this.shell.warnings());
    warnings.push(...this.artifact.warnings);
    return warnings;
  }

  /**
   * Runs one tool call. Tool-call failures come back as `status: "failed"` with
   * `failure.runCanContinue: true`; a control-plane failure comes back with
   * `failure.kind: "control_plane"` and ends the run. Throws `RuntimeError` for a refused
   * request: closed runtime (AL8025), unknown surface (AL8020), ended run (AL8021), bad id
   * (AL8022), a call id reused for another call (AL8024), a run another host drives (AL8028:
   * it holds the run's live progress lease; nothing is recorded).
   */
  async call(request: ToolCallRequest): Promise<CallResult> {
    this.assertOpen();
    const surfaceId = request.surface ?? ".";
    this.assertSurface(surfaceId);
    const runId = checkId(request.runId ?? newId("run"), "run");
    // A generated call id is fresh: no earlier call or approval can carry it.
    const callId = request.callId === undefined ? newId("call") : checkId(request.callId, "call");
    const tool = String(request.tool);
    const session = this.openSession(runId, callId, tool);
    return this.guard(session, request, async (run) => {
      this.assertRunActive(run);
      let input: Json;
      try {
        input = copyJson(request.input, "input");
      } catch (error) {
        session.expectCall(surfaceId, "null");
        return this.pipeline.fail(session, "invalid_input", (error as Error).message);
      }
      let approval: ApprovalRecord | undefined;
      if (request.callId !== undefined && this.store.hasCallOrApproval(runId, callId)) {
        const previous = this.store.getCall(runId, callId);
        if (previous && (previous.tool !== tool || previous.surface !== surfaceId || !sameJson(previous.inputJson, input))) {
          throw runtimeError(Diagnostics.CallIdReused, "", [callId, runId, describeCall(previous)]);
        }
        approval = this.store.getApproval(runId, callId);
        if (approval?.state === "pending") return pendingResult(session, approval);
        if (approval?.state === "denied") return deniedResult(session, this.store, approval, []);
      }
      session.expectCall(surfaceId, JSON.stringify(input));
      return this.pipeline.run(session, surfaceId, input, approval?.state === "approved" ? "granted" : "ask", request);
    });
  }

  /**
   * Decides a pending approval. Approving executes the call exactly once; denying means it
   * never executes. A second `approve` of a decided call does nothing: it returns the recorded
   * outcome with `alreadyDecided: true` and no events; a `deny` of a call approved earlier
   * returns `failed` (the approval stands) with `alreadyDecided: true`. Throws `RuntimeError` AL8045 when the
   * state has no record of the run, AL8023 when the run has no such pending call, AL8021 when the run has ended, AL8028 when another host
   * holds the run's live progress lease.
   */
  async approve(request: ApproveRequest): Promise<CallResult> {
    this.assertOpen();
    const runId = checkId(request.runId, "run");
    const callId = checkId(request.callId, "call");
    const approval = this.store.getApproval(runId, callId);
    if (!approval) {
      // A run with no record at all is a mistyped id or another agent's run, not a missing call.
      const unknownRun = this.store.getRun(runId) === undefined;
      // A run one typo away, as `call --run` suggests it (new-user trial 125), saying whether it holds this call's approval.
      const near = unknownRun ? this.nearRunId(runId) : undefined;
      // The near run's approval of this call as it stands: a decided one is not "waiting" (new-user trial 129).
      const nearApproval = near === undefined ? undefined : this.store.getApproval(near, callId);
      const standing = nearApproval === undefined ? "" : nearApproval.state === "pending" ? ` with call '${callId}' waiting for approval` : ` whose call '${callId}' was already ${nearApproval.state}`;
      const nearHint = near === undefined ? undefined : `Did you mean '${near}', a run of this agent${standing}?`;
      throw runtimeError(unknownRun ? Diagnostics.ApprovalRunUnknown : Diagnostics.ApprovalNotFound, "", [runId, callId], unknownRun ? nearHint : waitingCallsHint(this.store.pendingApprovals(runId, MAX_WAITING_NAMED + 1), callId));
    }
    const session = this.openSession(runId, callId, approval.tool);
    return this.guard(session, request, async (run) => {
      this.assertRunActive(run);
      const decision = request.deny ? "denied" : "approved";
      if (!this.store.decideApproval(runId, callId, decision)) {
        return recordedResult(session, this.store, this.store.getApproval(runId, callId)!, this.store.getCall(runId, callId), decision === "denied");
      }
      if (decision === "denied") {
        session.recordRuntime("tool.approval_denied");
        return deniedResult(session, this.store, approval, session.events, true);
      }
      session.recordRuntime("tool.approval_granted");
      return this.pipeline.run(session, approval.surface, approval.input, "granted", {});
    });
  }

  /**
   * The capability snapshot of a surface: `tools` is what the model starts with (the always
   * visible core set, the surface's visible plugin tools, tools promoted with
   * {@link useTool}, and — with `runId` — the deferred tools that run activated with
   * `tool_search` or {@link search}), each with its full input schema; `catalog` is what
   * search can find; `hidden` lists host-callable tools that are never listed to the model.
   * Throws `RuntimeError` AL8020 (unknown surface), AL8022 (bad run id), AL8025 (closed).
   */
  snapshot(request: SnapshotRequest = {}): CapabilitySnapshot {
    this.assertOpen();
    const surfaceId = request.surface ?? ".";
    this.assertSurface(surfaceId);
    const activated = request.runId === undefined ? [] : this.store.activatedTools(checkId(request.runId, "run"), surfaceId);
    return this.catalog.snapshot(surfaceId, activated);
  }

  /**
   * Promotes a known deferred tool (framework or authored) into the initial snapshot of a
   * surface for this runtime (seed: `useTool("name")`). Returns the tool as the snapshot now
   * lists it; promoting a visible tool changes nothing. Throws `RuntimeError` AL8026 for an
   * unknown, hidden or disabled tool, AL8020 for an unknown surface, AL8025 when closed.
   */
  useTool(name: string, options: UseToolOptions = {}): SnapshotTool {
    this.assertOpen();
    const surfaceId = options.surface ?? ".";
    this.assertSurface(surfaceId);
    return this.catalog.promote(surfaceId, String(name));
  }

  /**
   * Ranks the surface's catalogue against `query` with the index `tool_search` uses and
   * returns one page (`""` browses everything by name). With `runId`, the page's deferred
   * tools are activated in that run — recorded in state.db with a `tool_search.activated`
   * event — so they appear in the run's next snapshot. Throws `RuntimeError` AL8027 (bad
   * limit or offset), AL8020, AL8021 (the run has ended), AL8022, AL8025; a state.db failure
   * while activating is a `ControlPlaneError` (nothing was activated).
   */
  search(query: string, request: SearchRequest = {}): ToolSearchResult {
    this.assertOpen();
    const surfaceId = request.surface ?? ".";
    this.assertSurface(surfaceId);
    const runId = request.runId === undefined ? undefined : checkId(request.runId, "run");
    const result = searchPageOf(this.catalog, this.artifact.manifest, query, { ...request, surface: surfaceId });
    if (runId === undefined) return result;
    this.assertRunActive(this.store.ensureRun(runId));
    const activated = result.tools.filter((tool) => tool.visibility === "deferred").map((tool) => tool.name).sort(byCodeUnits);
    if (activated.length > 0) {
      this.store.transaction("record activated tools", () => {
        this.store.activateTools(runId, surfaceId, activated);
        this.store.appendEvent(runId, null, "tool_search.activated", { names: activated });
      });
    }
    return { ...result, activated };
  }

  /**
   * Deferred tools `tool_search` activated in a run on a surface (sorted): pass them as
   * `activated` to `buildSnapshot` for the run's next model call.
   */
  activatedTools(runId: string, surface = "."): string[] {
    return this.store.activatedTools(checkId(runId, "run"), surface);
  }

  /** Whether the state database has a record of run `runId` (a call was made in it). */
  hasRun(runId: string): boolean {
    return this.store.getRun(checkId(runId, "run")) !== undefined;
  }

  /**
   * A run of this agent whose id is one typo from `runId` (one character dropped, added, changed
   * or swapped; among the 1,000 most recent), for the warning about a `--run` the state has no
   * record of; `undefined` when none is. One edit, not did-you-mean's usual two or more: run ids
   * share prefixes (`run_int1`, `run_link1`), and a new id two edits from an old one is a new run,
   * not a typo (new-user trial 112).
   */
  nearRunId(runId: string): string | undefined {
    return didYouMean(runId, this.store.recentRunIds(1000), {}, 1);
  }

  /** Every persisted event of a run, in order (for audits and tests). */
  events(runId: string): RuntimeEvent[] {
    return this.store.listEvents(checkId(runId, "run")).map((event) => ({ ...event.data, type: event.type }));
  }

  /** The stored record of a call (full result included), or `undefined`. */
  callRecord(runId: string, callId: string): CallRecord | undefined {
    return this.store.getCall(runId, callId);
  }

  /**
   * Lets go of every run at once, for a host process about to exit on a signal (the CLI's `call`
   * and `approve` on Ctrl-C or SIGTERM): releases the progress leases this runtime holds, so the
   * next host need not wait up to `leaseMs` for them to expire (AL8028), and records nothing
   * more. A call in flight stays unfinished, as after a crash: its retry with the same run id,
   * call id and input is its next attempt, and its completed steps replay. The sandbox
   * processes end with the host (their parent-death signal). Synchronous, so a signal handler
   * can call it and exit; the runtime refuses every request afterwards.
   */
  abandon(): void {
    this.closed = true;
    this.leases.releaseAll();
  }

  /** Stops every sandbox process, releases the run leases held and closes the state database. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.shell.close();
    await this.executor.close();
    this.earlyStart?.discard();
    for (const runId of [...this.endedRuns.keys()]) this.persistPendingEnd(runId);
    this.leases.releaseAll();
    this.store.close();
  }

  private openSession(runId: string, callId: string, tool: string): CallSession {
    let workspace = this.workspaces.get(runId);
    if (!workspace) {
      workspace = ensureWorkspace(this.stateDir, runId);
      this.workspaces.set(runId, workspace);
    }
    return new CallSession(this.store, { runId, callId, tool, workspace }, this.shell, this.limits.maxEventBytes, {
      maxStepBytes: this.limits.maxResultBytes,
      maxRunStateBytes: this.limits.maxRunStateBytes,
    });
  }

  /**
   * Takes the run's progress lease (or joins this runtime's hold of it), then runs `body` with
   * the run's record under cancellation, deadline and the lease; a control-plane failure ends
   * the run. The call's share of the lease is given back when it finishes (after the last
   * share the runtime keeps the lease for an idle hold; see `run-lease.ts`). Throws
   * `RuntimeError` AL8028 when another host holds a live lease.
   */
  private async guard(session: CallSession, control: { signal?: AbortSignal; deadlineMs?: number }, body: (run: RunRecord) => Promise<CallResult>): Promise<CallResult> {
    const { runId } = session.identity;
    let lease: LeaseHandle | undefined;
    try {
      // A run ended in this process is refused before its lease is touched.
      if (this.endedRuns.has(runId)) this.assertRunActive(this.store.ensureRun(runId));
      const grant = this.leases.acquire(runId);
      lease = grant.lease;
      session.checkLease(lease);
      // Every call ends: the host's default deadline applies when the request sets none.
      // (Not a copy of the whole request: only what superviseCall reads.)
      const supervised = control.signal ? { signal: control.signal, deadlineMs: control.deadlineMs ?? this.limits.deadlineMs } : { deadlineMs: control.deadlineMs ?? this.limits.deadlineMs };
      // Interrupted: the call commits nothing more, its built-in stops its work
      // (CoreToolContext.signal), its sandbox processes are killed.
      const stop = (failure: ControlPlaneError): Promise<void> => {
        session.interrupt(failure);
        return this.executor.killRun(runId);
      };
      return await superviseCall(() => body(grant.run), supervised, stop, lease);
    } catch (error) {
      const failure = session.controlPlaneFailure ?? (error instanceof ControlPlaneError ? error : undefined);
      if (!failure) throw error;
      return await this.endRun(session, failure, lease);
    } finally {
      session.finish();
      lease?.release();
    }
  }

  /**
   * Ends the run on a control-plane failure: kills its sandbox processes, then in one
   * transaction marks it ended, records `run.ended` and fails the call — unless another host
   * has taken the run's lease over since the call's `lease` was taken, or (no `lease`: the
   * failure came while taking it) another host holds a live lease on it (see
   * `takenOverResult`): that host's run is not written. Only a host that drives the run ends
   * it, which is what lets a lease keep the run's row (`run-lease.ts`).
   */
  private async endRun(session: CallSession, failure: ControlPlaneError, lease: LeaseHandle | undefined): Promise<CallResult> {
    const { runId, callId, tool } = session.identity;
    // A tool still running (the call was interrupted) can no longer commit anything.
    session.controlPlaneFailure ??= failure;
    this.endedRuns.set(runId, { failure, callId, epoch: lease?.epoch });
    // The lease's copy of the run's row is stale from here on (see run-lease.ts).
    this.leases.forgetRun(runId);
    await this.executor.killRun(runId);
    const recorded = session.events.length;
    // The end is the runtime's own record: written (below) whether or not the lease is still live.
    session.checkLease(undefined);
    try {
      const takenOver = this.store.transaction("end the run", () => {
        if (lease ? lease.takenOver() : this.leases.drivenElsewhere(runId, undefined)) return true;
        this.store.endRun(runId, failure.reason, failure.message);
        session.recordRunEnd({ reason: failure.reason, error: failure.message });
        this.store.updateCall(runId, callId, { status: "failed", error: failure.message, failureKind: "control_plane" });
        return false;
      });
      this.endedRuns.delete(runId);
      if (takenOver) return takenOverResult(session, failure);
    } catch {
      // The state store is unavailable: the end is kept in memory and persisted on next access.
      session.events.splice(recorded);
    }
    return {
      status: "failed",
      error: `The run has ended: ${failure.message}`,
      failure: { kind: "control_plane", reason: failure.reason, runCanContinue: false },
      events: session.events,
      runId,
      callId,
      tool,
    };
  }

  private assertRunActive(run: { runId: string; status: string; endReason: string | null; endMessage: string | null }): void {
    const pending = this.endedRuns.get(run.runId)?.failure;
    if (pending && run.status === "active") this.persistPendingEnd(run.runId);
    const reason = run.status === "ended" ? run.endReason : pending?.reason;
    if (reason) {
      throw runtimeError(Diagnostics.RunEnded, "", [run.runId, reason, run.endMessage ?? pending?.message ?? ""]);
    }
  }

  /**
   * Writes a run end that could not be persisted when it happened (the state store failed):
   * the run `ended` with its reason, the `run.ended` event, and the call failed as
   * `control_plane` — as `endRun` would have, and like it not when another host has taken the
   * run over meanwhile. Returns false (and keeps it pending) while the
   * store is still unavailable. Called on the run's next access and by `close()`, so a host
   * process that exits still leaves the run ended when the store is back.
   */
  private persistPendingEnd(runId: string): boolean {
    const pending = this.endedRuns.get(runId);
    if (!pending) return true;
    const { failure, callId, epoch } = pending;
    this.leases.forgetRun(runId);
    try {
      this.store.transaction("end the run", () => {
        if (this.store.getRun(runId)?.status === "ended") return;
        // Another host took the run over meanwhile (this host's lease lapsed while the store
        // was down): the run is that host's now, and its end is not written (as in endRun).
        if (this.leases.drivenElsewhere(runId, epoch)) return;
        this.store.endRun(runId, failure.reason, failure.message);
        this.store.appendEvent(runId, callId, "run.ended", { reason: failure.reason, error: failure.message });
        this.store.updateCall(runId, callId, { status: "failed", error: failure.message, failureKind: "control_plane" });
      });
      this.endedRuns.delete(runId);
      return true;
    } catch {
      // Still unavailable: the run stays ended in memory.
      return false;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw runtimeError(Diagnostics.RuntimeClosed, "");
  }

  private assertSurface(surfaceId: string): void {
    assertSurface(this.artifact.manifest, surfaceId);
  }
}

/** True when stored input JSON text and `input` are the same JSON value, whatever their key order. */
function sameJson(storedText: string, input: Json): boolean {
  return canonicalJsonText(JSON.parse(storedText)) === canonicalJsonText(input);
}

/**
 * The result of a call whose run another host took over (this runtime's lease expired or was
 * lost, and another owner holds the run's lease now): the call fails with `lease_expired` for
 * this host, and nothing more is written — the run is not ended, since it is the other host's
 * now (a retry of the call there is its next attempt, as after a crash of this host).
 */
function takenOverResult(session: CallSession, failure: ControlPlaneError): CallResult {
  const { runId, callId, tool } = session.identity;
  const cause = failure.reason === "lease_expired" ? failure.message : `${failure.message} Meanwhile this host's progress lease expired.`;
  return {
    status: "failed",
    error: `Another host has taken run '${runId}' over, so this host can no longer drive it and did not record this call's outcome: ${cause}`,
    failure: { kind: "control_plane", reason: "lease_expired", runCanContinue: false },
    events: session.events,
    runId,
    callId,
    tool,
  };
}

function describeCall(call: CallRecord): string {
  return `a call of '${call.tool}' on surface '${call.surface}'`;
}


/** How many waiting calls AL8023's hint names. */
const MAX_WAITING_NAMED = 3;

/**
 * AL8023's hint when the run has calls waiting for approval: they are named (with their tools),
 * and the one `callId` most likely meant first as a "did you mean" (new-user trial of 6
 * December: a mistyped call id got the catalog's general hint only). `undefined` when none waits.
 */
function waitingCallsHint(waiting: readonly { readonly callId: string; readonly tool: string }[], callId: string): string | undefined {
  if (waiting.length === 0) return undefined;
  const near = didYouMean(callId, waiting.map((call) => call.callId));
  const named = waiting.slice(0, MAX_WAITING_NAMED).map((call) => `${call.callId} (${call.tool})`);
  const more = waiting.length > MAX_WAITING_NAMED ? " and more" : "";
  return `${near === undefined ? "" : `Did you mean '${near}'? `}Waiting for approval in this run: ${named.join(", ")}${more}.`;
}
