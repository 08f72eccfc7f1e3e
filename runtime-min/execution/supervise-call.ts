/**
 * Cancellation, operation deadlines and the run progress lease of one call (seed "Tool
 * implementation": cancellation, operation-deadline exhaustion and an expired run progress
 * lease are control-plane failures that terminate the run).
 */
import { ControlPlaneError } from "../failures.js";
import { deadlinePassed } from "../sandbox/limit-messages.js";

/** What {@link superviseCall} needs of the run progress lease (a `LeaseHandle`, see `run-lease.ts`). */
export interface LeaseWatch {
  /** The `lease_expired` failure once the lease is lost. */
  readonly lost: ControlPlaneError | undefined;
  /** Calls `onLost` when the lease is lost; returns the function that stops watching. */
  watch(onLost: (failure: ControlPlaneError) => void): () => void;
}

/** The host's controls over a call. */
export interface CallControl {
  readonly signal?: AbortSignal;
  /** Operation deadline in milliseconds from the start of the call. */
  readonly deadlineMs?: number;
}

/**
 * Runs `body`; when `control.signal` aborts, `control.deadlineMs` passes or `lease` (the run
 * progress lease, see `run-lease.ts`) is lost first, calls `stop(failure)` (which stops the
 * call's work and kills the run's sandbox processes) and rejects with that
 * {@link ControlPlaneError} (`cancelled`, `deadline_exceeded`, or the lease's `lease_expired`).
 */
export function superviseCall<T>(body: () => Promise<T>, control: CallControl, stop: (failure: ControlPlaneError) => Promise<void>, lease?: LeaseWatch): Promise<T> {
  const { signal, deadlineMs } = control;
  if (signal?.aborted) return Promise.reject(new ControlPlaneError("cancelled", "The host cancelled the call before it started."));
  if (lease?.lost) return Promise.reject(lease.lost);
  if (!signal && !lease && deadlineMs === undefined) return body();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const cleanup = (): void => {
      if (timer) deadlines.remove(timer);
      signal?.removeEventListener("abort", onAbort);
      unwatch?.();
    };
    const interrupt = (error: ControlPlaneError): void => {
      if (settled) return;
      settled = true;
      cleanup();
      stop(error).then(
        () => reject(error),
        () => reject(error),
      );
    };
    const onAbort = (): void => interrupt(new ControlPlaneError("cancelled", "The host cancelled the call while it was running."));
    const timer =
      deadlineMs === undefined ? undefined : deadlines.add(Math.max(0, deadlineMs), () => interrupt(new ControlPlaneError("deadline_exceeded", deadlinePassed(deadlineMs))));
    signal?.addEventListener("abort", onAbort, { once: true });
    const unwatch = lease?.watch(interrupt);
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

/** A call's deadline in {@link DeadlineTimer}: when it passes (ms of `performance.now()`) and what then happens. */
interface Deadline {
  readonly at: number;
  readonly fire: () => void;
}

/**
 * The deadlines of the calls in flight, served by one Node timer armed for the earliest of
 * them (issue 14 item 2). A `setTimeout` per call created and tore down Node's timer list of
 * its duration on every call, since the list empties when the call's timer is cleared; here a
 * call that finishes only leaves the set, and a later deadline never re-arms the timer. The
 * timer keeps the process alive exactly while a deadline is pending, as the per-call timers did.
 */
class DeadlineTimer {
  private readonly pending = new Set<Deadline>();
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires; `Infinity` while none is armed. */
  private armedAt = Number.POSITIVE_INFINITY;

  /** Calls `fire` once `ms` milliseconds have passed, unless {@link remove}d first. */
  add(ms: number, fire: () => void): Deadline {
    const deadline: Deadline = { at: performance.now() + ms, fire };
    this.pending.add(deadline);
    if (deadline.at < this.armedAt) this.arm(deadline.at);
    else if (this.pending.size === 1) this.timer?.ref();
    return deadline;
  }

  /** Forgets a deadline (its call finished); the timer stops holding the process once none is left. */
  remove(deadline: Deadline): void {
    if (this.pending.delete(deadline) && this.pending.size === 0) this.timer?.unref();
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedAt = at;
    // At least 1 ms: the timer's clock and performance.now() may round apart by a fraction.
    this.timer = setTimeout(() => this.expire(), Math.max(1, Math.ceil(at - performance.now())));
    if (this.pending.size === 0) this.timer.unref();
  }

  /** Fires every deadline that has passed, earliest first, and re-arms for the next one. */
  private expire(): void {
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const passed: Deadline[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const deadline of this.pending) {
      if (deadline.at <= now) passed.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    for (const deadline of passed) this.pending.delete(deadline);
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const deadline of passed.sort((a, b) => a.at - b.at)) deadline.fire();
  }
}

/** The deadlines of every call in this process. */
const deadlines = new DeadlineTimer();
