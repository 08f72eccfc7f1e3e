/**
 * Cancellation, operation deadlines and the run progress lease of one call (seed "Tool
 * implementation": cancellation, operation-deadline exhaustion and an expired run progress
 * lease are control-plane failures that terminate the run).
 */
import { ControlPlaneError } from "../failures.js";
import { deadlinePassed } from "../sandbox/limit-messages.js";

/** The host's controls over a call. */
export interface CallControl {
  readonly signal?: AbortSignal;
  /** Operation deadline in milliseconds from the start of the call. */
  readonly deadlineMs?: number;
}

/**
 * Runs `body`; when `control.signal` aborts, `control.deadlineMs` passes or `lease` (the run
 * progress lease's signal, see `run-lease.ts`) aborts first, calls `stop()` (which kills the
 * run's sandbox processes) and rejects with a {@link ControlPlaneError} (`cancelled`,
 * `deadline_exceeded`, or the lease signal's reason: `lease_expired`).
 */
export function superviseCall<T>(body: () => Promise<T>, control: CallControl, stop: () => Promise<void>, lease?: AbortSignal): Promise<T> {
  const { signal, deadlineMs } = control;
  if (signal?.aborted) return Promise.reject(new ControlPlaneError("cancelled", "The host cancelled the call before it started."));
  if (lease?.aborted) return Promise.reject(leaseFailure(lease));
  if (!signal && !lease && deadlineMs === undefined) return body();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const cleanup = (): void => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      lease?.removeEventListener("abort", onLeaseLost);
    };
    const interrupt = (error: ControlPlaneError): void => {
      if (settled) return;
      settled = true;
      cleanup();
      stop().then(
        () => reject(error),
        () => reject(error),
      );
    };
    const onAbort = (): void => interrupt(new ControlPlaneError("cancelled", "The host cancelled the call while it was running."));
    const timer =
      deadlineMs === undefined
        ? undefined
        : setTimeout(() => interrupt(new ControlPlaneError("deadline_exceeded", deadlinePassed(deadlineMs))), Math.max(0, deadlineMs));
    const onLeaseLost = (): void => interrupt(leaseFailure(lease!));
    signal?.addEventListener("abort", onAbort, { once: true });
    lease?.addEventListener("abort", onLeaseLost, { once: true });
    body().then(
      (value) => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        reject(error);
      },
    );
  });
}

/** The lease signal's reason as a {@link ControlPlaneError} (`lease_expired`). */
function leaseFailure(lease: AbortSignal): ControlPlaneError {
  return lease.reason instanceof ControlPlaneError ? lease.reason : new ControlPlaneError("lease_expired", "The run progress lease was lost.");
}
