/**
 * Phase timings of a compile, for `npm run bench` (never printed or locked).
 */

/** Phase timings of one compile, in milliseconds. */
export interface CompileTimings {
  /** Reading the previous lock and the whole front end (analyzeAgent). */
  readonly analyze: number;
  /** Provider-profile checks and token budgets (`--target`, `tokenBudget`; 0 when neither is asked for). */
  readonly providers: number;
  /** esbuild bundling (0 under --no-package). */
  readonly package: number;
  /** Building, serializing and writing (or checking) plugins.lock. */
  readonly lock: number;
  /** Writing the artifact. */
  readonly artifact: number;
  readonly total: number;
}

/** Accumulates wall-clock time per phase; `lap(phase)` charges the time since the last lap. */
export function startClock(): CompileClock {
  const start = performance.now();
  let last = start;
  const spent = { analyze: 0, providers: 0, package: 0, lock: 0, artifact: 0 };
  return {
    lap(phase: keyof typeof spent): void {
      const now = performance.now();
      spent[phase] += now - last;
      last = now;
    },
    timings(): CompileTimings {
      return { ...spent, total: last - start };
    },
  };
}

/** The clock of one compile (see {@link startClock}). */
export interface CompileClock {
  /** Charges the time since the last lap to `phase`. */
  lap(phase: "analyze" | "providers" | "package" | "lock" | "artifact"): void;
  /** The time spent so far, per phase and in total. */
  timings(): CompileTimings;
}
