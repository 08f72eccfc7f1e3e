/**
 * Cancellation and operation deadlines of one call (seed "Tool implementation": cancellation
 * and operation-deadline exhaustion are control-plane failures that terminate the run).
 */
import { ControlPlaneError } from "../failures.js";

/** The host's controls over a call. */
export interface CallControl {
  readonly signal?: AbortSignal;
  /** Operation deadline in milliseconds from the start of the call. */
  readonly deadlineMs?: number;
}

/**
 * Runs `body`; when `control.signal` aborts or `control.deadlineMs` passes first, calls
 * `stop()` (which kills the run's sandbox processes) and rejects with a
 * {@link ControlPlaneError} (`cancelled` or `deadline_exceeded`).
 */
export function superviseCall<T>(body: () => Promise<T>, control: CallControl, stop: () => Promise<void>): Promise<T> {
  const { signal, deadlineMs } = control;
  if (signal?.aborted) return Promise.reject(new ControlPlaneError("cancelled", "The host cancelled the call before it started."));
  if (!signal && deadlineMs === undefined) return body();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const cleanup = (): void => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
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
        : setTimeout(() => interrupt(new ControlPlaneError("deadline_exceeded", `The operation deadline of ${deadlineMs} ms passed before the call finished.`)), Math.max(0, deadlineMs));
    signal?.addEventListener("abort", onAbort, { once: true });
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
