/**
 * Approval gates (seed, "Approval Gates"): a gated tool's call stops at `approval_required`
 * before it runs; a host approves it (it then runs exactly once) or denies it (it never runs);
 * a repeated `call` or `approve` of a decided call returns what was recorded.
 *
 * Events: `tool.approval_requested` when the gate stops a call; `tool.approval_granted` or
 * `tool.approval_denied` when a host decides (recorded by the runtime's `approve`).
 */
import type { ManifestApproval } from "../../contract/manifest.js";
import { ControlPlaneError, type FailureKind } from "../failures.js";
import type { Json } from "../sandbox/json-copy.js";
import type { ApprovalRecord, CallRecord, StateStore } from "../state/state-store.js";
import type { CallResult } from "../types.js";
import type { CallSession } from "./call-session.js";

/**
 * Stops a new call of a gated tool at the gate: records the pending approval and
 * `tool.approval_requested` in one commit, with the call's status `approval_required`.
 *
 * @returns the `approval_required` result the host sees.
 */
export function requestApproval(session: CallSession, store: StateStore, surfaceId: string, input: Json, policy: ManifestApproval): CallResult {
  const { runId, callId, tool } = session.identity;
  const { reason, sideEffect } = policy;
  session.persist(
    "record the pending approval",
    () => {
      store.requestApproval({ runId, callId, surface: surfaceId, tool, input, reason, sideEffect });
      session.recordRuntime("tool.approval_requested", { reason, sideEffect });
    },
    { status: "approval_required" },
  );
  return { status: "approval_required", approval: { reason, sideEffect, state: "pending" }, events: session.events, runId, callId, tool };
}

/** The result of a call still waiting for approval (a repeated `call` with the same id). */
export function pendingResult(session: CallSession, approval: ApprovalRecord): CallResult {
  const { runId, callId } = session.identity;
  return { status: "approval_required", approval: { reason: approval.reason, sideEffect: approval.sideEffect, state: "pending" }, events: [], runId, callId, tool: approval.tool };
}

/**
 * The result of a denied call: it never executed. With `record`, the denial is stored on the
 * call (the first `approve --deny`); a repeated call or approve only reads it.
 */
export function deniedResult(session: CallSession, store: StateStore, approval: ApprovalRecord, events: CallResult["events"], record = false): CallResult {
  const { runId, callId } = session.identity;
  const error = `The call of '${approval.tool}' was denied, so it did not run (approval was required: ${approval.reason}).`;
  if (record) session.persist("record the denial", () => store.updateCall(runId, callId, { status: "denied", error }));
  return { status: "failed", error, events, runId, callId, tool: approval.tool, approval: { reason: approval.reason, sideEffect: approval.sideEffect, state: "denied" } };
}

/**
 * What an `approve` of a call decided earlier returns (no events, `alreadyDecided: true`; nothing
 * runs and nothing is recorded): the recorded outcome; or, when `deny` asks to deny a call that
 * was approved, a failure saying the approval stands, since a decision is final and the approved
 * call ran or is running (the seed's "Approval Gates": approving executes the call exactly once).
 */
export function recordedResult(session: CallSession, store: StateStore, approval: ApprovalRecord, call: CallRecord | undefined, deny = false): CallResult {
  const { runId, callId } = session.identity;
  if (approval.state === "denied") return { ...deniedResult(session, store, approval, []), alreadyDecided: true };
  const base = { events: [], runId, callId, tool: approval.tool, approval: { reason: approval.reason, sideEffect: approval.sideEffect, state: approval.state }, alreadyDecided: true } as const;
  if (deny) {
    const ran = call?.status === "ok" || call?.status === "failed" ? "ran" : "has been started";
    return { ...base, status: "failed", error: `The call of '${approval.tool}' was approved earlier and ${ran}, so it cannot be denied: a decision is final. Nothing changed.` };
  }
  if (call?.status === "ok") return { ...base, status: "ok", ...(call.modelOutput === undefined ? {} : { output: call.modelOutput }) };
  if (call?.status === "failed" && call.failureKind === "control_plane") {
    const reason = (store.getRun(runId)?.endReason ?? "state_store_failure") as ControlPlaneError["reason"];
    return { ...base, status: "failed", error: call.error ?? "The run has ended.", failure: { kind: "control_plane", reason, runCanContinue: false } };
  }
  if (call?.status === "failed") {
    return { ...base, status: "failed", error: call.error ?? "The call failed.", failure: { kind: call.failureKind as FailureKind, runCanContinue: true } };
  }
  return { ...base, status: "failed", error: "This call was approved earlier and has not finished yet: another process may be running it, or the process that ran it was interrupted (then call the tool again with the same run id, call id and input: the approval stands); this approve did nothing." };
}
