/**
 * The steps of one tool call after the runtime accepted the request (issue 4 item 3):
 * resolve the tool → validate input against the locked `inputSchema` → check the host's
 * `requiredConfig` → stop at the approval gate → run it at its runtime boundary → record the
 * outcome. Every step that fails the call records `tool.execution_failed` and returns
 * `{ error, failure: { kind, runCanContinue: true } }`; the run stays usable.
 *
 * Events of a call, in order: [`tool.approval_requested`] | [`tool.approval_granted`] →
 * `tool.execution_started` (with `runtimeBoundary`) → tool-emitted events,
 * `durable_step.replayed` / `durable_step.recorded` as they happen → `tool.execution_completed`
 * or `tool.execution_failed`. A call that fails before it runs (unknown tool, invalid input,
 * missing config) records only `tool.execution_failed`.
 */
import type { LoadedArtifact } from "../artifact/load-artifact.js";
import type { HostToolImplementation } from "../core-tools/types.js";
import type { DelegationService } from "../core-tools/delegation-types.js";
import { ControlPlaneError, type FailureKind } from "../failures.js";
import type { Json } from "../sandbox/json-copy.js";
import type { SurfaceRole } from "../sandbox/limit-messages.js";
import type { CoreToolPolicy } from "../snapshot/types.js";
import type { StateStore } from "../state/state-store.js";
import { requestApproval } from "./approvals.js";
import type { CallResult } from "../types.js";
import type { CallSession } from "./call-session.js";
import { stepScope } from "../state/schema.js";
import type { AuthoredExecutor } from "./execute-authored.js";
import { executeCoreTool } from "./execute-core.js";
import type { CallTarget } from "./resolve-target.js";
import type { CallTargets } from "./call-targets.js";
import type { ToolCatalog } from "./tool-catalog.js";
import { SchemaCompileError } from "./schema-compile-error.js";
import type { InputValidator } from "./validate-input.js";

/** What the pipeline needs from the runtime. */
export interface PipelineDependencies {
  readonly artifact: LoadedArtifact;
  readonly store: StateStore;
  readonly executor: AuthoredExecutor;
  /**
   * The input validator, created on the first call that checks an input: it loads ajv, which
   * then happens while that call's sandbox process starts (issue 14 item 3).
   */
  readonly validator: () => Promise<InputValidator>;
  /** Dispatch targets and `ctx.config` (shared with `openRuntime`'s start of an announced call). */
  readonly targets: CallTargets;
  /** Snapshot resolvers and search indexes per surface. */
  readonly catalog: ToolCatalog;
  readonly policy: CoreToolPolicy;
  readonly stateDir: string;
  readonly hostImplementations?: { readonly [coreToolName: string]: HostToolImplementation };
  readonly artifactByteLimit?: number;
  /** `delegate`'s services (the host's child driver; the runtime's `call` for the child's tools). */
  readonly delegation?: DelegationService;
}

/** Per-call facts a built-in may need (from the call request). */
export interface CallContextFacts {
  readonly conversationId?: string;
  readonly parentRunId?: string;
}

/** Runs accepted calls and builds their results. */
export class CallPipeline {
  /** The validator once loaded (so later calls check their input without waiting). */
  private validator: InputValidator | undefined;
  private loadingValidator: Promise<InputValidator> | undefined;

  constructor(private readonly deps: PipelineDependencies) {}

  /**
   * Runs a call on `surfaceId`. `approval` is `"ask"` for a new call (a gated tool stops at
   * `approval_required`) or `"granted"` once a host approved it.
   */
  async run(session: CallSession, surfaceId: string, input: Json, approval: "ask" | "granted", facts: CallContextFacts): Promise<CallResult> {
    const { runId, callId, tool: name } = session.identity;
    const { targets } = this.deps;
    const target = targets.resolve(surfaceId, name);
    if (target.kind === "refused") return this.fail(session, "invalid_input", target.message);
    const ctxConfig = target.kind === "authored" ? targets.ctxConfig(target) : {};
    // A call that will run its tool now starts the tool's sandbox process before the input
    // check, so the process boots while the host checks (issue 14 item 3). The checks and
    // their order are unchanged; a call they fail leaves the process warm for the run (the
    // pool closes it with the runtime).
    const starting = targets.startingNow(target, approval);
    if (starting) this.deps.executor.prewarm(starting, runId, session.identity.workspace);
    const invalid = await this.checkInput(target, name, input, this.validator ?? (await this.loadValidator()));
    if (invalid) return this.fail(session, invalid.kind, invalid.message);
    if (typeof ctxConfig === "string") return this.fail(session, "configuration_error", ctxConfig);
    if (target.approval && approval === "ask") return requestApproval(session, this.deps.store, surfaceId, input, target.approval);
    // The call may have been interrupted while its input was checked (the validator's first
    // load): then the run has ended, and its tool must not start.
    if (session.controlPlaneFailure) throw session.controlPlaneFailure;
    const runtimeBoundary = target.kind === "authored" ? this.deps.executor.runtimeBoundary : "host";
    // The start commits with the call's next commit (see call-session.ts). A built-in acts in
    // the host directly (files, blobs, receipts), so its start is made durable before it runs.
    session.deferStart(surfaceId, runtimeBoundary);
    if (target.kind === "authored") session.scopeSteps(stepScope(surfaceId, target.tool.capability));
    if (target.kind === "core") session.persist("record the start of the call", () => undefined);
    const outcome =
      target.kind === "authored"
        ? await this.deps.executor.run(
            target.tool,
            { runId, callId, input, ctxConfig, approval: target.approval ? "granted" : "none", workspace: session.identity.workspace, surfaceRole: this.surfaceRole(surfaceId) },
            session,
          )
        : await executeCoreTool(target.tool, input, session, {
            surfaceId,
            stateDir: this.deps.stateDir,
            manifest: this.deps.artifact.manifest,
            artifactDir: this.deps.artifact.artifactDir,
            store: this.deps.store,
            coreToolPolicy: this.deps.policy,
            catalog: this.deps.catalog,
            ...(this.deps.hostImplementations ? { hostImplementations: this.deps.hostImplementations } : {}),
            ...(this.deps.artifactByteLimit === undefined ? {} : { artifactByteLimit: this.deps.artifactByteLimit }),
            ...(facts.conversationId === undefined ? {} : { conversationId: facts.conversationId }),
            ...(facts.parentRunId === undefined ? {} : { parentRunId: facts.parentRunId }),
            ...(this.deps.delegation ? { delegation: this.deps.delegation } : {}),
          });
    if (session.controlPlaneFailure) throw session.controlPlaneFailure;
    if (session.isFinished) throw new ControlPlaneError("cancelled", "The call finished after the run had already ended.");
    // A refused host service fails the call even when the tool caught the error.
    if (session.callFailure) return this.fail(session, session.callFailure.kind, session.callFailure.message);
    if (!outcome.ok) return this.fail(session, outcome.failureKind, outcome.error, "stack" in outcome ? outcome.stack : undefined, "output" in outcome ? outcome.output : undefined);
    session.persistResult({
      status: "ok",
      runtimeBoundary,
      output: outcome.output,
      modelOutput: outcome.modelOutput,
    });
    const result: CallResult = { status: "ok", output: outcome.modelOutput, events: session.events, runId, callId, tool: name };
    return target.approval ? { ...result, approval: { reason: target.approval.reason, sideEffect: target.approval.sideEffect, state: "approved" } } : result;
  }

  /** `"root"` for the root surface (no parent in the manifest), `"subagent"` for any other. */
  private surfaceRole(surfaceId: string): SurfaceRole {
    const surfaces = this.deps.artifact.manifest.surfaces;
    const surface = Object.prototype.hasOwnProperty.call(surfaces, surfaceId) ? surfaces[surfaceId] : undefined;
    return surface === undefined || surface.parent === null ? "root" : "subagent";
  }

  /** Fails the call with a tool-call failure (the run continues). */
  fail(session: CallSession, kind: FailureKind, message: string, stack?: string, output?: Json): CallResult {
    const { runId, callId, tool } = session.identity;
    // The stack of an unexpected throw goes to the run's event log (the host's audit), never to the model.
    const data: { [key: string]: Json } = stack ? { kind, error: message, stack } : { kind, error: message };
    session.persist("record the failed call", () => session.recordRuntime("tool.execution_failed", data), {
      status: "failed",
      error: message,
      failureKind: kind,
      // Only toModelOutput failed: the full result is still persisted (never returned to the model).
      ...(output !== undefined ? { output } : {}),
    });
    return { status: "failed", error: message, failure: { kind, runCanContinue: true }, events: session.events, runId, callId, tool };
  }

  /** Loads the input validator once (concurrent first calls share the load). */
  private async loadValidator(): Promise<InputValidator> {
    this.loadingValidator ??= this.deps.validator();
    try {
      this.validator = await this.loadingValidator;
    } catch (error) {
      this.loadingValidator = undefined;
      throw error;
    }
    return this.validator;
  }

  private async checkInput(target: Exclude<CallTarget, { kind: "refused" }>, name: string, input: Json, validator: InputValidator): Promise<{ kind: FailureKind; message: string } | undefined> {
    try {
      const problem = await validator.validate(target.inputSchema, input);
      return problem && { kind: "invalid_input", message: `Input for tool '${name}' does not match its inputSchema: ${problem.message}` };
    } catch (error) {
      if (!(error instanceof SchemaCompileError)) throw error;
      return { kind: "configuration_error", message: `Tool '${name}' cannot validate its input: ${error.message}` };
    }
  }
}
