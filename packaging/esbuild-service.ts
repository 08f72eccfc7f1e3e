/**
 * The memory limit of esbuild's service process. esbuild runs its builds in one long-lived Go
 * process that the first API call starts with this process's environment; Go keeps the memory
 * of one build for the next, so packaging the 2,000 × 10 bench agent's 20,000 definitions grew
 * it to 8 GB even in batches, and once to 23 GB, until the OOM killer ended it. Go's soft memory
 * limit (`GOMEMLIMIT`) makes its collector keep the heap under it when the live data fits,
 * as a batch's does (`BUILD_BATCH` in `./bundle-tools.ts`): about 3.3 GB on that agent instead
 * of 7.1 GB (with batches of 2,500, before they became 250). A lower limit bounds it more but
 * slows ordinary builds: at 1,536 MiB one build of 2,000 definitions took about 28 % longer; at
 * 3 GiB it takes what it takes without a limit (docs/benchmarks.md, measured on 2 December).
 */

/**
 * The limit given to the esbuild service when the environment sets none: a soft limit (Go
 * collects harder near it; a build whose live data is larger still runs).
 */
export const ESBUILD_MEMORY_LIMIT = "3GiB";

/**
 * Runs `start` (an esbuild call, which starts the service when it is not running) with
 * `GOMEMLIMIT` set to {@link ESBUILD_MEMORY_LIMIT} in this process's environment, unless the
 * user set one, and restores the environment as soon as `start` returns: esbuild spawns its
 * service synchronously inside the call, so nothing else this process starts sees the variable.
 * A service already running keeps the environment it had.
 */
export function withServiceMemoryLimit<T>(start: () => T): T {
  if (process.env["GOMEMLIMIT"] !== undefined) return start();
  process.env["GOMEMLIMIT"] = ESBUILD_MEMORY_LIMIT;
  try {
    return start();
  } finally {
    delete process.env["GOMEMLIMIT"];
  }
}
