/**
 * Runs an authored tool's bundle under the host's execution policy (seed "Execution Model"):
 * in a warm sandbox process (default; `runtimeBoundary: "sandbox"`) or, for `direct`, in the
 * host process (`runtimeBoundary: "host"`). Both boundaries use the same executor
 * (`../sandbox/execute-definition.ts`), so classification and `ctx` behave alike.
 *
 * Failing to start a sandbox, or a sandbox process dying mid-call, is an `execution_error`
 * (seed: errors of "sandbox acquisition" are tool-call failures): the host recorded every
 * `ctx` effect before acknowledging it, so its state is consistent and the run can go on; the
 * next call starts a fresh process.
 */
import * as fs from "node:fs";
import { pathToFileURL } from "node:url";
import * as path from "node:path";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { checkCachedBundle, restoreRemovedCopy } from "../artifact/bundle-cache.js";
import type { CopyIdentity } from "../artifact/copy-identity.js";
import type { VerifiedTool } from "../artifact/load-artifact.js";
import { runtimeError, writeRefusalError } from "../errors.js";
import { chooseBridgeRoot, removeStaleBridges } from "../sandbox/bridge-root.js";
import { prepareChildSource } from "../sandbox/child-script.js";
import { noteHiddenModules } from "../sandbox/hidden-path-note.js";
import { resultTooLarge, type SurfaceRole } from "../sandbox/limit-messages.js";
import type { LaunchTools } from "../sandbox/process-isolation.js";
import type { HostLimits } from "../host-limits.js";
import { bundleLoadFailure, DefinitionCache, executeDefinition, messageOf, type BundleModule, type CallOutcome } from "../sandbox/execute-definition.js";
import type { Json } from "../sandbox/json-copy.js";
import type { CallRequest } from "../sandbox/protocol.js";
import { detectPermissionSupport, type PermissionSupport } from "../sandbox/sandbox-environment.js";
import { SandboxExitError, type EarlySandboxProcess, type SandboxWorker, type WorkerOptions } from "../sandbox/sandbox-worker.js";
import { WorkerPool } from "../sandbox/worker-pool.js";
import type { ExecutionPolicy } from "../types.js";
import type { CallSession } from "./call-session.js";

/** What one authored call needs besides its tool. */
export interface AuthoredCall {
  readonly runId: string;
  readonly callId: string;
  readonly input: Json;
  readonly ctxConfig: { readonly [key: string]: Json };
  readonly approval: "none" | "granted";
  readonly workspace: string;
  /** Whether the call's surface is the root agent's or a subagent's (the words of a refused result name its file tool). */
  readonly surfaceRole: SurfaceRole;
}

/** Options of {@link AuthoredExecutor}. */
export interface AuthoredExecutorOptions {
  readonly execution: ExecutionPolicy;
  readonly root: string;
  readonly stateDir: string;
  readonly maxWorkers: number;
  readonly startTimeoutMs: number;
  /** Host limits: the sandbox's memory, network and result size (docs/host-policy.md). */
  readonly limits: HostLimits;
  /** How sandbox children are launched (from the process-isolation probe). */
  readonly launch: LaunchTools;
  /** A sandbox process the host started before the runtime opened (`./early-start.ts`), adopted by the worker it was started for. */
  readonly early?: EarlySandboxProcess;
}

/** Executes authored tools; owns the warm sandbox pool (or the direct-mode module cache). */
export class AuthoredExecutor {
  private readonly pool: WorkerPool;
  private readonly permission: PermissionSupport = detectPermissionSupport();
  private readonly modules = new Map<string, Promise<BundleModule>>();
  private readonly definitions = new DefinitionCache();
  private bridgeRoot: string | undefined;
  /** The identity of each copy as last hashed ({@link assertIntact}), by path: what its sandbox process must find. */
  private readonly identities = new Map<string, CopyIdentity>();
  /** Starts begun by {@link prewarm} and not settled yet, by worker key: a call joins its own. */
  private readonly prestarts = new Map<string, Promise<StartedWorker>>();

  constructor(private readonly options: AuthoredExecutorOptions) {
    this.pool = new WorkerPool(options.maxWorkers);
  }

  /** `"sandbox"` or `"host"`: where authored tools run under this policy. */
  get runtimeBoundary(): "sandbox" | "host" {
    return this.options.execution === "direct" ? "host" : "sandbox";
  }

  /** True when sandbox children run under Node's permission model. */
  get permissionModel(): boolean {
    return this.permission !== undefined;
  }

  /**
   * Runs one call and returns its outcome. Throws only a `RuntimeError` (AL8012) when the
   * verified bundle copy changed since the artifact was loaded: found by the host before it
   * starts a process, or by the sandbox process before it imports the copy.
   */
  async run(tool: VerifiedTool, call: AuthoredCall, session: CallSession): Promise<CallOutcome> {
    const request: AuthoredRequest = {
      runId: call.runId,
      toolCallId: call.callId,
      toolName: tool.name,
      bundlePath: tool.verifiedBundle,
      ...(tool.factory === undefined ? {} : { factory: tool.factory }),
      factoryConfig: tool.config as { readonly [key: string]: Json },
      ctxConfig: call.ctxConfig,
      input: call.input,
      approval: call.approval,
      workspace: call.workspace,
    };
    const channel = { request: (operation: Parameters<CallSession["handle"]>[0]) => session.handle(operation) };
    const outcome = this.options.execution === "direct" ? await this.runDirect(tool, request, channel) : await this.runSandboxed(tool, request, channel);
    return this.wordedForSurface(outcome, call.surfaceRole);
  }

  /**
   * Starts the warm sandbox process of `tool` for run `runId` (workspace `workspace`) without
   * waiting, so it boots while the host still checks the call (issue 14 item 3). The call's
   * {@link run} then joins this start — its failure (AL8012 for a tampered bundle copy, or a
   * child that cannot start) is that call's, reported as before. Does nothing in `direct`
   * mode or when the run's process for this bundle is already warm or starting.
   */
  prewarm(tool: VerifiedTool, runId: string, workspace: string): void {
    if (this.options.execution === "direct") return;
    // A warm worker first: then no start can be pending for it, and no key string is built.
    if (this.pool.warm({ runId, bundlePath: tool.verifiedBundle })) return;
    const key = workerKey(runId, tool.verifiedBundle);
    if (this.prestarts.has(key)) return;
    const start = this.startWorker(tool, { runId, workspace });
    this.prestarts.set(key, start);
    // Settled starts are forgotten: a started worker is in the pool; a failed start is retried by the call.
    start.then(
      () => this.prestarts.delete(key),
      () => this.prestarts.delete(key),
    );
  }

  /** Kills the sandbox processes of a run (cancellation, deadline, run ended). */
  async killRun(runId: string): Promise<void> {
    for (const worker of await this.pool.workersOf(runId)) worker.kill();
  }

  /** Closes every sandbox process. */
  async close(): Promise<void> {
    await this.pool.close();
  }

  private async runSandboxed(tool: VerifiedTool, request: AuthoredRequest, channel: { request: CallSession["handle"] }): Promise<CallOutcome> {
    let worker = this.pool.warm({ runId: request.runId, bundlePath: tool.verifiedBundle });
    if (!worker) {
      const started = await (this.prestarts.get(workerKey(request.runId, tool.verifiedBundle)) ?? this.startWorker(tool, request));
      if (!started.ok) return started.outcome;
      worker = started.worker;
    }
    let outcome: CallOutcome;
    try {
      // Hashed when its worker started (`startWorker`), before any process was handed the path.
      const bundleIdentity = this.identities.get(tool.verifiedBundle);
      if (bundleIdentity === undefined) throw this.tamperedError(tool);
      outcome = await worker.call({ ...request, bundleIdentity }, channel.request);
    } catch (error) {
      if (error instanceof SandboxExitError) return { ok: false, failureKind: "execution_error", error: error.message };
      return { ok: false, failureKind: "execution_error", error: `The sandbox bridge failed: ${messageOf(error)}` };
    }
    if (!outcome.ok && outcome.copyChanged === true) {
      // The process read other bytes under the copy's path than the host verified (its mount
      // namespace kept an older file, or one was swapped in): it imported nothing, and it is not
      // used again (security trial 128, HIGH 3): ended, and its end seen, before the refusal, so
      // the run's next call starts a fresh process.
      await worker.close();
      throw this.tamperedError(tool);
    }
    return noteHiddenModules(outcome);
  }

  /** Starts (or joins the start of) the warm worker of the call's run and bundle. */
  private async startWorker(tool: VerifiedTool, request: Pick<CallRequest, "runId" | "workspace">): Promise<StartedWorker> {
    try {
      const worker = await this.pool.acquire({ runId: request.runId, bundlePath: tool.verifiedBundle }, () => {
        this.assertIntact(tool);
        // With the prebuilt entry its text is known now: so are the options, and the pool spawns the child in this turn.
        const childSource = prepareChildSource();
        return typeof childSource === "string" ? this.workerOptions(tool, request, childSource) : childSource.then((text) => this.workerOptions(tool, request, text));
      });
      return { ok: true, worker };
    } catch (error) {
      if (error instanceof Error && error.name === "RuntimeError") throw error;
      return { ok: false, outcome: { ok: false, failureKind: "execution_error", error: `The sandbox for tool '${tool.name}' could not be started: ${messageOf(error)}` } };
    }
  }

  /** The options of the sandbox process that runs `tool` for the run of `request`, with the entry's text `childSource`. */
  private workerOptions(tool: VerifiedTool, request: Pick<CallRequest, "runId" | "workspace">, childSource: string): WorkerOptions {
    return {
      childSource,
      bundlePath: tool.verifiedBundle,
      workspace: request.workspace,
      bridgeRoot: this.chosenBridgeRoot(),
      permission: this.permission,
      startTimeoutMs: this.options.startTimeoutMs,
      launch: this.options.launch,
      network: this.options.limits.network,
      memoryMb: this.options.limits.memoryMb,
      maxResultBytes: this.options.limits.maxResultBytes,
      ...(this.options.early === undefined ? {} : { early: this.options.early }),
    };
  }

  private async runDirect(tool: VerifiedTool, request: AuthoredRequest, channel: { request: CallSession["handle"] }): Promise<CallOutcome> {
    let loading = this.modules.get(tool.verifiedBundle);
    if (!loading) {
      this.assertIntact(tool);
      loading = import(pathToFileURL(tool.verifiedBundle).href) as Promise<BundleModule>;
      this.modules.set(tool.verifiedBundle, loading);
    }
    let module: BundleModule;
    try {
      module = await loading;
    } catch (error) {
      this.modules.delete(tool.verifiedBundle);
      return bundleLoadFailure(error, tool.name);
    }
    const outcome = await executeDefinition(module, { kind: "call", id: 0, ...request }, this.definitions, channel);
    return this.withinResultLimit(outcome);
  }

  /** The outcome, or an `execution_error` when its result is over `maxResultBytes` (direct mode; the sandbox checks in the child and the host). */
  private withinResultLimit(outcome: CallOutcome): CallOutcome {
    if (!outcome.ok) return outcome;
    const limit = this.options.limits.maxResultBytes;
    let bytes = Buffer.byteLength(JSON.stringify(outcome.output) ?? "", "utf8");
    if (outcome.modelOutput !== outcome.output) bytes += Buffer.byteLength(JSON.stringify(outcome.modelOutput) ?? "", "utf8");
    return bytes > limit ? { ok: false, failureKind: "execution_error", error: resultTooLarge(bytes, limit), resultBytes: bytes } : outcome;
  }

  /**
   * A result refused over `maxResultBytes` is worded again for the call's surface: the sandbox
   * process that refused it does not know whether it serves the root agent (`deliver_artifact`)
   * or a subagent (`handoff_artifact`).
   */
  private wordedForSurface(outcome: CallOutcome, role: SurfaceRole): CallOutcome {
    if (outcome.ok || outcome.resultBytes === undefined) return outcome;
    return { ok: false, failureKind: outcome.failureKind, error: resultTooLarge(outcome.resultBytes, this.options.limits.maxResultBytes, role) };
  }

  /** The bridge root, chosen on first use — when the bridges killed hosts left there are removed too. */
  private chosenBridgeRoot(): string {
    if (this.bridgeRoot === undefined) {
      const chosen = chooseBridgeRoot(this.options.stateDir);
      if (typeof chosen !== "string") throw writeRefusalError("The sandbox bridge folder (.assemblyline/bridge)", chosen, this.options.root);
      this.bridgeRoot = chosen;
      removeStaleBridges(this.bridgeRoot);
    }
    return this.bridgeRoot;
  }

  /**
   * Hashes the copy of `tool` and keeps the identity of the file hashed; a removed copy is first
   * written anew from the artifact when its bundle still verifies (`restoreRemovedCopy`); throws
   * AL8012 when the copy is not intact.
   */
  private assertIntact(tool: VerifiedTool): void {
    let identity = checkCachedBundle(tool.verifiedBundle, tool.integrity);
    if (identity === undefined && restoreRemovedCopy(this.options.stateDir, tool.verifiedBundle, tool.artifactBundle, tool.integrity)) {
      identity = checkCachedBundle(tool.verifiedBundle, tool.integrity);
    }
    if (identity === undefined) throw this.tamperedError(tool);
    this.identities.set(tool.verifiedBundle, identity);
  }

  /** AL8012 for the verified copy of `tool`: it is no longer the file the runtime wrote (`../artifact/verified-copy.ts`), or it was removed and the artifact no longer holds its bytes. */
  private tamperedError(tool: VerifiedTool): Error {
    const shown = path.relative(this.options.root, tool.verifiedBundle).split(path.sep).join("/");
    const removed = fs.lstatSync(tool.verifiedBundle, { throwIfNoEntry: false }) === undefined;
    return runtimeError(Diagnostics.BundleTampered, shown, [shown, tool.name, tool.integrity, removed ? "nothing: it was removed, and the artifact's bundle no longer holds those bytes (compiled again since the runtime opened?)" : "different bytes"]);
  }
}

/** A call as the executor builds it: the request but its id, and the copy's identity a sandboxed call adds. */
type AuthoredRequest = Omit<CallRequest, "kind" | "id" | "bundleIdentity">;

/** A started worker, or the outcome of a call whose sandbox could not start. */
type StartedWorker = { ok: true; worker: SandboxWorker } | { ok: false; outcome: CallOutcome };

/** Key of {@link AuthoredExecutor}'s pending starts: run id and bundle path (a run id never contains NUL). */
function workerKey(runId: string, bundlePath: string): string {
  return `${runId}\u0000${bundlePath}`;
}
