/**
 * Failure classification of the tool contract (seed "Tool implementation"; DESIGN §6).
 *
 * A tool-call failure is returned to the model as `{ error, failure: { kind, runCanContinue:
 * true } }` and the run stays usable. A control-plane failure (state store failure,
 * cancellation, deadline, expired lease) ends the run instead.
 */
import { RecoverableToolError } from "./authoring/index.js";

/** The three failure kinds a model-invoked tool call can end with. */
export type FailureKind = "invalid_input" | "configuration_error" | "execution_error";

/** `failure` of a failed tool result; `runCanContinue` is always true for tool-call failures. */
export interface ToolFailure {
  readonly kind: FailureKind;
  readonly runCanContinue: true;
}

/**
 * Thrown inside the runtime (and by built-in tools) to fail one call with a known kind.
 * Authored tools throw `RecoverableToolError` (→ `invalid_input`) or anything else
 * (→ `execution_error`).
 */
export class ToolCallError extends Error {
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ToolCallError";
    this.kind = kind;
  }
}

/** Why a run ended on a control-plane failure. */
export type ControlPlaneReason = "state_store_failure" | "cancelled" | "deadline_exceeded" | "lease_expired";

/**
 * A failure that prevents safe continuation: the run ends (`runCanContinue: false`).
 */
export class ControlPlaneError extends Error {
  readonly reason: ControlPlaneReason;
  constructor(reason: ControlPlaneReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ControlPlaneError";
    this.reason = reason;
  }
}

/** Maps anything a tool threw to its failure kind (RecoverableToolError → invalid_input). */
export function classifyToolError(error: unknown): FailureKind {
  if (error instanceof ToolCallError) return error.kind;
  if (RecoverableToolError.isRecoverable(error)) return "invalid_input";
  return "execution_error";
}

/**
 * `failure` of a call that ended its run on a control-plane failure (`runCanContinue: false`).
 * Returned by runtime-min instead of a {@link ToolFailure}; later calls on the run are refused.
 */
export interface RunFailure {
  readonly kind: "control_plane";
  readonly reason: ControlPlaneReason;
  readonly runCanContinue: false;
}
