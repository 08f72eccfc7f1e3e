/**
 * Public types of the runtime-min JS API (DESIGN §6–§7; README "JS API").
 */
import type { CoreTool, HostToolImplementation } from "./core-tools/types.js";
import type { ChildDriver } from "./core-tools/delegation-types.js";
import type { RunFailure, ToolFailure } from "./failures.js";
import type { Json } from "./sandbox/json-copy.js";
import type { RuntimeEvent } from "./execution/call-session.js";
import type { EarlySandboxStart } from "./execution/early-start.js";
import type { ShellIsolationPolicy } from "./sandbox/shell-isolation.js";
import type { NetworkPolicy } from "./sandbox/process-isolation.js";
import type { CatalogTool, CoreToolPolicy } from "./snapshot/types.js";

export type { Json } from "./sandbox/json-copy.js";
export type { RuntimeEvent } from "./execution/call-session.js";
export type { ShellIsolationPolicy } from "./sandbox/shell-isolation.js";
export type { NetworkPolicy } from "./sandbox/process-isolation.js";

/** Where authored tools run: a separate sandboxed Node process (default) or the host process. */
export type ExecutionPolicy = "sandbox" | "direct";

/** Options of `openRuntime`. Everything here is host policy; nothing in agent files changes it. */
export interface RuntimeOptions {
  /** Agent root (holds `plugins.lock`); state lives in `<root>/.assemblyline/`. */
  readonly root: string;
  /** Artifact directory; default `<root>/.assemblyline/build`. Relative paths resolve against `root`. */
  readonly artifactDir?: string;
  /**
   * `"sandbox"` (default): each authored tool runs in a separate Node process under the
   * permission model. `"direct"`: reviewed bundles run in the host process
   * (`RuntimeOptions.authoredToolExecution: "direct"` of the seed); host-only.
   */
  readonly execution?: ExecutionPolicy;
  /**
   * Isolation of shell commands (`ctx.getSandbox().exec`, core `bash`); host-only, like
   * `execution`. `"auto"` (default): each command runs in its own user, mount and PID
   * namespaces (util-linux `unshare`) with only the run's workspace writable, when the
   * once-per-process probe succeeds; otherwise unisolated with one warning (AL8031).
   * `"required"`: a shell request this host cannot isolate fails the call with
   * `configuration_error` (AL8032 warns up front). `"off"`: unisolated, no warning. AL8033
   * for another value. `runtime.shellIsolation` reports the outcome.
   */
  readonly shellIsolation?: ShellIsolationPolicy;
  /** The host's non-secret `requiredConfig` values by name (exposed in read-only `ctx.config`). */
  readonly hostConfig?: { readonly [name: string]: string };
  /**
   * Host implementations dispatched in the host (`runtimeBoundary: "host"`). An entry named
   * like a built-in replaces the runtime's own implementation of it (the built-in stays in the
   * snapshot with its catalogued description and schema); any other name is a host-only tool:
   * callable through `call`, never listed in a snapshot or found by search.
   */
  readonly hostTools?: ReadonlyMap<string, CoreTool>;
  /** Host core-tool policy: disable or approval-gate built-ins without changing agent source. */
  readonly coreToolPolicy?: CoreToolPolicy;
  /** Host implementations of `pair`, `files_search`, `files_mount`, `history_search` (passed to built-ins). */
  readonly hostImplementations?: { readonly [coreToolName: string]: HostToolImplementation };
  /**
   * The host's child model loop, used by the `delegate` tool of surfaces with subagents: called
   * once per attempt with the child run's ids, the task, the required deliverables and a
   * `callTool` for the child's tool calls (docs/delegation.md). Without it, `delegate` fails
   * with `configuration_error`.
   */
  readonly childDriver?: ChildDriver;
  /** Byte limit of one `handoff_artifact` / `deliver_artifact` file (passed to built-ins). */
  readonly artifactByteLimit?: number;
  /** Busy timeout of the state database for writes contended by other processes (ms, default 5000). */
  readonly stateBusyTimeoutMs?: number;
  /**
   * Record a call that ends `ok` without a `ctx` request as one checksummed append to the run's
   * call journal (`.assemblyline/runs/<runId>/journal-<epoch>.bin`) instead of a SQLite
   * transaction, folded into state.db later — before any other commit of the run, when the lease
   * is let go or taken by another host (default `true`; docs/runtime.md, tenth round). Every
   * reader of run state (`events`, `callRecord`, a repeated call id, `approve`,
   * `maxRunStateBytes`) sees journaled calls either way; only `false` turns journaling off
   * (every call committed to state.db as its own transaction before it is returned).
   */
  readonly callJournal?: boolean;
  /**
   * Duration of a run progress lease in ms (positive integer, default 30000; AL8029
   * otherwise). A call takes its run's lease, renews it every `leaseMs / 3` while it runs
   * and releases it when the run's last call here finishes; another host's live lease
   * refuses the call (AL8028), and losing the lease mid-call ends the call with the
   * control-plane failure `lease_expired` (README "Run progress lease").
   */
  readonly leaseMs?: number;
  /** Warm sandbox processes kept at most (default 16); idle ones beyond are closed. */
  readonly maxSandboxProcesses?: number;
  /** How long a sandbox process may take to start (ms, default 15000). */
  readonly sandboxStartTimeoutMs?: number;
  /**
   * The call the host makes first, announced so that its sandbox process boots while the
   * runtime loads SQLite and opens the state database (issue 14 item 3; the CLI's `call`
   * passes it). When a {@link ToolCallRequest} of `tool` on `surface` (default `"."`) in run
   * `runId` would run its authored tool at once — the rule the call itself applies: an authored
   * tool, its `requiredConfig` supplied, no approval gate asking — `openRuntime` starts that
   * run's process for it before it opens `state.db`, and the call joins it. Only a hint: nothing
   * is recorded and the call's checks, order and results are unchanged. A hint the call would
   * refuse on what the artifact and the host say (unknown surface or tool, invalid run id)
   * starts nothing; one it refuses on what only the state store knows (an ended run, a lease
   * another host holds, a reused call id) starts a process that loads no tool. A process no
   * call uses is ended by `Runtime.close`, or at once when opening fails. With `remember:
   * false`, what it started is not remembered for the next host's early start, and a start
   * remembered before is forgotten: the host runs code of its own before each call (a JavaScript
   * project configuration) that may change what a process inherits from it. With `refuse:
   * true`, a call the runtime could not make at all is refused by `openRuntime` itself, before
   * the state database opens and before any run folder is made, so nothing of a run is written:
   * an unknown surface (AL8020), or a tool the surface cannot call (AL8064: a name it does not
   * know, a built-in that is disabled there, a tool without a verified bundle). The CLI's `call`
   * asks for it, since a person typed the name (README trial of 6 December); without it, such
   * a call is what the contract says a model's unknown tool is, a failed call in its run.
   */
  readonly firstCall?: { readonly tool: string; readonly runId: string; readonly surface?: string; readonly remember?: boolean; readonly refuse?: boolean };
  /**
   * The sandbox process the host started for `firstCall` before it opened the runtime
   * (`startSandboxEarly`, `./execution/early-start.ts`; the CLI's `call` does): the call's
   * worker adopts it when it would launch exactly that process, and it is ended otherwise, at
   * the latest when the runtime closes. `firstCall.runId` must be its `runId`. What the
   * announced call started is remembered in `.assemblyline/cache/sandbox-start.json` for the
   * next host's early start either way.
   */
  readonly earlyStart?: EarlySandboxStart;
  /**
   * Operation deadline of every call that sets none itself (`ToolCallRequest.deadlineMs`), in
   * ms (default 300000, 5 minutes). Passing it is the control-plane failure
   * `deadline_exceeded`: the call's sandbox process is killed and the run ends. CLI:
   * `--deadline MS`; project config: `host.deadlineMs`. AL8062 when not 1–2147483647.
   */
  readonly deadlineMs?: number;
  /**
   * JavaScript heap of each sandbox process in MiB (default 1024; `--max-old-space-size`). A
   * tool that reaches it fails with `execution_error` naming the limit. CLI `--memory-mb`;
   * config `host.memoryMb`. AL8062 when not 16–1048576.
   */
  readonly memoryMb?: number;
  /**
   * Largest result of a call, in bytes of JSON (default 8 MiB). A larger result fails the
   * call with `execution_error` naming the limit; nothing of it is recorded. CLI
   * `--max-result-bytes`; config `host.maxResultBytes`. AL8062 when not 1–1 GiB.
   */
  readonly maxResultBytes?: number;
  /**
   * Largest event a tool may record with `ctx.emit`, in bytes of JSON (default 256 KiB). A
   * larger one is refused (the tool's `emit` rejects; nothing is recorded). CLI
   * `--max-event-bytes`. AL8062 when not 1–1 GiB.
   */
  readonly maxEventBytes?: number;
  /**
   * Most bytes of JSON one run may store through its tools' `ctx.step` and `ctx.emit` (step
   * keys, values and metadata, and all the run's events; default 256 MiB). Past it, the tool's
   * `ctx.step`/`ctx.emit` rejects with a message naming the limit and nothing of that record is
   * stored; a step's key, value and metadata are also bounded by `maxResultBytes` each. CLI
   * `--max-run-state-bytes`. AL8062 when not 1 B–1 TiB.
   */
  readonly maxRunStateBytes?: number;
  /**
   * Network of sandboxed tools (host-owned, like `execution`): `"host"` (default) shares the
   * host's network; `"none"` runs each sandbox process in its own network namespace with no
   * usable device (AL8061 when this host cannot). CLI `--network`; config `host.network`.
   */
  readonly network?: NetworkPolicy;
}

/** How a runtime runs shell commands (`runtime.shellIsolation`). */
export interface ShellIsolationStatus {
  /** The host's policy (`RuntimeOptions.shellIsolation`, default `"auto"`). */
  readonly policy: ShellIsolationPolicy;
  /** True when shell commands run isolated (the probe succeeded and the policy is not `"off"`). */
  readonly isolated: boolean;
  /** Why this host cannot isolate them (the probe's error); absent when isolated or `"off"` (not probed). */
  readonly unavailableReason?: string;
}

/** One model tool call. */
export interface ToolCallRequest {
  /** Surface id: `"."` (default) or `"subagents/<name>"`. */
  readonly surface?: string;
  /** Model-facing tool name. */
  readonly tool: string;
  /** The model's input (validated against the locked `inputSchema`). */
  readonly input: unknown;
  /** Run id; state (steps, approvals, events) persists per run. Generated when omitted. */
  readonly runId?: string;
  /** Tool-call id; a retry repeats it. Generated when omitted. */
  readonly callId?: string;
  /** Cancels the call; cancellation is a control-plane failure that ends the run. */
  readonly signal?: AbortSignal;
  /** Operation deadline in ms; exhausting it is a control-plane failure that ends the run. */
  readonly deadlineMs?: number;
  /** Conversation of the run (given to built-ins such as `handoff_artifact`). */
  readonly conversationId?: string;
  /** Parent run of a delegated child run (given to built-ins such as `handoff_artifact`). */
  readonly parentRunId?: string;
}

/** A host's decision on a pending approval. */
export interface ApproveRequest {
  readonly runId: string;
  readonly callId: string;
  /** Deny instead of approve: the call never executes. */
  readonly deny?: boolean;
  readonly signal?: AbortSignal;
  readonly deadlineMs?: number;
}

/** The approval a gated call waits for or received. */
export interface ApprovalInfo {
  readonly reason: string;
  readonly sideEffect: string;
  readonly state: "pending" | "approved" | "denied";
}

/**
 * The result of `call` and `approve` — the JSON `assembly-line call --format json` prints
 * (DESIGN §7), plus the ids a host needs to approve or retry.
 *
 * - `ok`: `output` is what the model sees (after `toModelOutput`); the full result is persisted.
 * - `failed` with `failure.runCanContinue: true`: a tool-call failure (`invalid_input`,
 *   `configuration_error`, `execution_error`); `error` goes back to the model; the run goes on.
 * - `failed` with `failure.kind: "control_plane"`: the run has ended.
 * - `failed` without `failure`: the call was denied (it never executed).
 * - `approval_required`: nothing executed; `approve` with `runId` and `callId` decides it.
 */
export interface CallResult {
  readonly status: "ok" | "failed" | "approval_required";
  readonly output?: Json;
  readonly error?: string;
  readonly failure?: ToolFailure | RunFailure;
  /** This call's events in order, as `{ type, ...data }`. */
  readonly events: readonly RuntimeEvent[];
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly approval?: ApprovalInfo;
  /** Set by an `approve` that found the call already decided: it did nothing and repeats the recorded outcome. */
  readonly alreadyDecided?: true;
}

/** Options of `runtime.snapshot`. */
export interface SnapshotRequest {
  /** Surface id (default `"."`). */
  readonly surface?: string;
  /** A run whose `tool_search` activations (and `search({ runId })` activations) are loaded. */
  readonly runId?: string;
}

/** Options of `runtime.useTool`. */
export interface UseToolOptions {
  /** Surface id (default `"."`). */
  readonly surface?: string;
}

/** Options of `runtime.search`. */
export interface SearchRequest {
  /** Surface id (default `"."`). */
  readonly surface?: string;
  /** Page size: default 8, capped at 20. */
  readonly limit?: number;
  /** Ranked matches to skip: 0 or the `nextOffset` of the previous page. */
  readonly offset?: number;
  /** When given, the page's deferred tools are activated in this run, as `tool_search` does. */
  readonly runId?: string;
}

/**
 * One page of `runtime.search` (= `assembly-line search --format json`, DESIGN §7).
 * `nextOffset` is present exactly when `hasMore` is true.
 */
export interface ToolSearchResult {
  /** The page, best match first, with full input schemas. */
  readonly tools: readonly CatalogTool[];
  readonly totalMatches: number;
  readonly hasMore: boolean;
  readonly nextOffset?: number;
  /** With `runId`: the page's deferred tools now activated in that run, sorted. */
  readonly activated?: readonly string[];
}
