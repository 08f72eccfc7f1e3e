/**
 * The host contract of `delegate` (`./delegate.ts`, docs/delegation.md): what the runtime gives
 * the host's child driver, what the driver reports, and the runtime services `delegate` uses.
 * Types only, imported by `./types.ts` (CoreToolContext) without importing the tool itself.
 */

/** Required deliverables of one `delegate` call (counts; 0 when not required). */
export interface DelegationDeliverables {
  readonly files: number;
  readonly links: number;
}

/** What a child tool call returned, as much of the runtime's `CallResult` as a driver needs. */
export interface ChildCallResult {
  readonly status: "ok" | "failed" | "approval_required";
  readonly output?: unknown;
  readonly error?: string;
  /** `{ kind, runCanContinue }` of a failed call. */
  readonly failure?: { readonly kind: string; readonly runCanContinue: boolean };
}

/** What the runtime gives the host's {@link ChildDriver} for one attempt. */
export interface ChildRunRequest {
  /** The parent's run and surface. */
  readonly parentRunId: string;
  readonly parentSurfaceId: string;
  /** The parent's `delegate` tool-call id. */
  readonly parentCallId: string;
  /** The conversation of the parent run, when the host gave one (handoffs are readable in it). */
  readonly conversationId?: string;
  /** The child run (the same on the retry: "sent back to the same child"). */
  readonly childRunId: string;
  /** The child surface id (`subagents/researcher`) and its folder name (`researcher`). */
  readonly childSurfaceId: string;
  readonly agent: string;
  /** The task as the parent model wrote it. */
  readonly task: string;
  readonly deliverables: DelegationDeliverables;
  /** 1, or 2 for the retry. */
  readonly attempt: 1 | 2;
  /** On the retry: what the first attempt is missing, in words to give the child model. */
  readonly feedback?: string;
  /**
   * Aborted when the parent's `delegate` call has finished or was ended (cancelled, past its
   * deadline, lease lost): the driver stops the child's model loop. The child's tool calls made
   * through {@link callTool} carry it, so one made after it aborted is cancelled and ends the
   * child run (seed "Tool implementation": cancellation is a control-plane failure).
   */
  readonly signal?: AbortSignal;
  /**
   * Runs one tool call on the child surface in the child run (with `parentRunId` and the
   * conversation set, so `handoff_artifact` receipts are readable by this parent run).
   */
  callTool(tool: string, input: unknown, options?: { readonly callId?: string }): Promise<ChildCallResult>;
}

/** What the driver reports when the child's model loop has finished an attempt. */
export interface ChildRunReport {
  /** The child's final answer to the parent (returned to the parent model). */
  readonly output?: string;
  /** Hosted links the child produced (counted against `deliverables.links`; `https:` only). */
  readonly links?: readonly string[];
}

/**
 * The host's child model loop: drives the child agent (its instructions are the child
 * surface's `agent.md`) on `request.task` until it finishes, calling tools with
 * `request.callTool`, and reports. A throw fails the `delegate` call with `execution_error`.
 */
export type ChildDriver = (request: ChildRunRequest) => Promise<ChildRunReport>;

/** The runtime services `delegate` needs (`CoreToolContext.delegation`). */
export interface DelegationService {
  /** The host's driver; `delegate` is a `configuration_error` without one. */
  readonly driver: ChildDriver | undefined;
  /** Runs a tool call as the runtime's `call` does. */
  callChild(request: {
    readonly surface: string;
    readonly runId: string;
    readonly parentRunId: string;
    readonly conversationId?: string;
    readonly callId?: string;
    readonly tool: string;
    readonly input: unknown;
    /** The parent call's `CoreToolContext.signal`: the child's call is cancelled with it. */
    readonly signal?: AbortSignal;
  }): Promise<ChildCallResult>;
}
