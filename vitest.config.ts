import { defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/setup/longest-first-sequencer.js";

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
    // Three files at a time: most tests wait on the processes they start (the CLI, tsserver, a
    // sandbox, pre-commit's npm install), so more workers than cores keep both cores busy
    // (vitest's default is one worker fewer than the cores: a single worker here). Measured on
    // the 2-core machine, same code, back to back: 333 s with two, 297 s with three (724 s with
    // one, measured at an earlier stop).
    maxWorkers: 3,
    // The slowest files start first, also in a fresh clone with no timings (test/setup/longest-first-sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // Records every diagnostic code the tests produce; a whole-suite run fails on an unproduced one.
    globalSetup: ["test/setup/diagnostic-coverage.ts"],
  },
});
