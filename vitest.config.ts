import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/setup/longest-first-sequencer.js";
import { OWN_PROCESS_FILES } from "./test/setup/own-process-files.js";


/** Options both projects below share (each project repeats them: `extends` would also repeat the global setup). */
const shared = {
  exclude: ["test/conformance/**", "**/node_modules/**"],
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: "forks" as const,
  // Before each test file: removes the temporary folders the file made, after it (test/setup/temp-dirs.ts);
  // takes the machine's NODE_EXTRA_CA_CERTS out of what the tests' processes inherit (test/setup/machine-env.ts).
  setupFiles: ["test/setup/temp-dirs.ts", "test/setup/machine-env.ts"],
};

/**
 * `npm test`: the project's own tests, on fixtures it owns; never reads outside the repository.
 * The conformance suite over the external corpus (`test/conformance/`) has its own config,
 * `vitest.conformance.config.ts` (`npm run test:conformance`).
 */
export default defineConfig({
  test: {
    ...shared,
    // Three files at a time: most tests wait on the processes they start (the CLI, tsserver, a
    // sandbox, pre-commit's npm install), so more workers than cores keep both cores busy
    // (vitest's default is one worker fewer than the cores: a single worker here). Measured on
    // the 2-core machine, same code, back to back: 333 s with two, 297 s with three (724 s with
    // one, measured at an earlier stop). Four is slower again: 348 s against 331 s with three
    // (4 December; the suite is CPU-bound, about 600 s of CPU).
    maxWorkers: 3,
    // The slowest files start first, also in a fresh clone with no timings (test/setup/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // Records every diagnostic code the tests produce; a whole-suite run fails on an unproduced one.
    // Set here only: the projects do not extend this config, so it runs once for the whole run.
    globalSetup: ["test/setup/diagnostic-coverage.ts"],
    projects: [
      // Most files run one after another in the same worker process (`isolate: false`) instead of
      // a new process each: a new one costs about 0.45 s of CPU to start vitest and load the
      // modules again (49 unit files, same machine: 49 s of CPU with a process each, 27 s shared).
      { test: { ...shared, name: "shared-process", include: ["test/**/*.test.ts"], exclude: [...shared.exclude, ...OWN_PROCESS_FILES], isolate: false } },
      { test: { ...shared, name: "own-process", include: [...OWN_PROCESS_FILES] } },
    ],
  },
});
