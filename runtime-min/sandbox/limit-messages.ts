/**
 * The words of host-limit failures (issue 12 item 3: a call over a limit fails with a message
 * that names the limit and how to raise it). Shared by the host and the sandbox child, so it
 * imports nothing.
 */

/**
 * Which agent a call runs for: the root agent, or a subagent (a surface with a parent). The
 * hint of {@link resultTooLarge} names the file tool of that surface.
 */
export type SurfaceRole = "root" | "subagent";

/** What becomes of a file in the workspace, by surface (seed "Artifacts": only subagents hand off, only the root delivers). */
const FILE_FATE: Readonly<Record<SurfaceRole, string>> = {
  root: "; deliver_artifact gives it to the user",
  subagent: "; handoff_artifact hands it to the parent agent",
};

/**
 * The `execution_error` message of a result over the host's `maxResultBytes` limit. With the
 * call's surface `role` the hint names its file tool (helper-78 D8.5: the root agent was sent to
 * `handoff_artifact`, which only subagents have); without it (the sandbox process, which does
 * not know its surface) it names neither, and the host words it again with the role.
 */
export function resultTooLarge(bytes: number, limit: number, role?: SurfaceRole): string {
  const fate = role === undefined ? "" : FILE_FATE[role];
  return `The tool's result is ${bytes} bytes of JSON, over the host's limit of ${limit} bytes (maxResultBytes), so it was refused and not recorded. Return less (a summary, a page, or a file written in the workspace whose path the tool returns: the model reads it in parts with read${fate}), or raise the limit with --max-result-bytes N (or host.maxResultBytes / RuntimeOptions.maxResultBytes).`;
}

/**
 * The `execution_error` message of a sandbox process stopped at the host's `memoryMb` limit
 * (its heap) or at its data size `dataLimitMb` (`../host-limits.ts`, `processDataLimitMb`).
 */
export function outOfMemory(memoryMb: number, dataLimitMb: number): string {
  return `The tool ran out of memory: its sandbox process reached the host's limit of ${memoryMb} MiB of JavaScript heap (memoryMb; ${dataLimitMb} MiB of memory in all) and was stopped; no result was recorded. If the tool really needs more, raise the limit with --memory-mb MB (or host.memoryMb / RuntimeOptions.memoryMb).`;
}

/** The error a tool's `ctx.emit` rejects with for an event over the host's `maxEventBytes` limit. */
export function eventTooLarge(type: string, bytes: number, limit: number): string {
  return `The event '${type}' is ${bytes} bytes of JSON, over the host's limit of ${limit} bytes per event (maxEventBytes), so it was not recorded. Emit a smaller event (put bulk data in a workspace file), or raise the limit with --max-event-bytes N (or host.maxEventBytes / RuntimeOptions.maxEventBytes).`;
}

/**
 * The error a tool's `ctx.step` rejects with for a step whose key, value and metadata are over
 * the host's `maxResultBytes` (a step's value is a result the run keeps).
 */
export function stepTooLarge(key: string, bytes: number, limit: number): string {
  return `The step '${key}' is ${bytes} bytes of JSON (key, value and metadata), over the host's limit of ${limit} bytes per step (maxResultBytes), so it was not recorded. Keep bulk data in a workspace file and store its name, or raise the limit with --max-result-bytes N (or host.maxResultBytes / RuntimeOptions.maxResultBytes).`;
}

/**
 * The error a tool's `ctx.step` or `ctx.emit` rejects with when the run already stores `stored`
 * bytes of steps and events and `what` (`the step 'k'`, `the event 't'`) of `bytes` more would
 * pass the host's `maxRunStateBytes`.
 */
export function runStateFull(runId: string, stored: number, what: string, bytes: number, limit: number): string {
  return `The run '${runId}' already stores ${stored} bytes of steps and events; ${what} (${bytes} bytes) would take it over the host's limit of ${limit} bytes per run (maxRunStateBytes), so it was not recorded. Keep bulk data in workspace files, or raise the limit with --max-run-state-bytes N (or RuntimeOptions.maxRunStateBytes).`;
}

/** The control-plane message of a call that outlived its operation deadline. */
export function deadlinePassed(deadlineMs: number): string {
  return `The operation deadline of ${deadlineMs} ms passed before the call finished, so the call was stopped and the run ended. If the tool legitimately needs longer, raise the deadline with --deadline MS (or host.deadlineMs / RuntimeOptions.deadlineMs, or the call's deadlineMs).`;
}

/** The words V8 throws (a `RangeError`) when a `Buffer` or `ArrayBuffer` cannot be allocated. */
const ARRAY_BUFFER_REFUSED = "Array buffer allocation failed";

/**
 * A sandboxed tool's `execution_error` with the host's memory limit named when the tool failed
 * because an `ArrayBuffer` could not be allocated (V8's RangeError, uncaught): under the data size
 * {@link outOfMemory} describes, large `Buffer`s are refused this way rather than stopping the
 * process (docs/host-policy.md, "Limits of every call"), and the bare words named no limit
 * (new-user trial 112, C9). Any other error is returned unchanged.
 */
export function withDataLimitHint(error: string, memoryMb: number, dataLimitMb: number): string {
  if (!error.startsWith(ARRAY_BUFFER_REFUSED)) return error;
  return `${error} (the sandbox process's memory is bounded by the host: ${dataLimitMb} MiB in all for a JavaScript heap of ${memoryMb} MiB, memoryMb; process the data in smaller pieces, or raise the limit with --memory-mb MB or host.memoryMb / RuntimeOptions.memoryMb)`;
}
