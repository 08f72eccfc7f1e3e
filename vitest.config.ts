import * as os from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Test files run in parallel, one per worker. Vitest's default is one worker fewer than the
 * cores, which is a single worker on a 2-core machine: the suite then ran one file at a time,
 * and most files spend their time waiting for the processes they spawn (the CLI, tsserver,
 * npm, Neovim, sandboxes), so one core stayed idle. One worker more than the cores keeps both
 * busy while a file waits. `VITEST_MAX_WORKERS` (or `--maxWorkers`) overrides it.
 */
const WORKERS = os.availableParallelism() + 1;

/**
 * `npm test`: the project's own tests, on fixtures it owns; never reads outside the repository.
 * The conformance suite over the external corpus (`test/conformance/`) has its own config,
 * `vitest.conformance.config.ts` (`npm run test:conformance`).
 */
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/conformance/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: WORKERS,
    // Records every diagnostic code the tests produce; a whole-suite run fails on an unproduced one.
    globalSetup: ["test/setup/diagnostic-coverage.ts"],
  },
});
