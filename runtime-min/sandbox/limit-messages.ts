/**
 * The words of host-limit failures (issue 12 item 3: a call over a limit fails with a message
 * that names the limit and how to raise it). Shared by the host and the sandbox child, so it
 * imports nothing.
 */

/** The `execution_error` message of a result over the host's `maxResultBytes` limit. */
export function resultTooLarge(bytes: number, limit: number): string {
  return `The tool's result is ${bytes} bytes of JSON, over the host's limit of ${limit} bytes (maxResultBytes), so it was refused and not recorded. Return less (a summary, a page, or a file in the workspace handed off with handoff_artifact), or raise the limit with --max-result-bytes N (or host.maxResultBytes / RuntimeOptions.maxResultBytes).`;
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

/** The control-plane message of a call that outlived its operation deadline. */
export function deadlinePassed(deadlineMs: number): string {
  return `The operation deadline of ${deadlineMs} ms passed before the call finished, so the call was stopped and the run ended. If the tool legitimately needs longer, raise the deadline with --deadline MS (or host.deadlineMs / RuntimeOptions.deadlineMs, or the call's deadlineMs).`;
}
