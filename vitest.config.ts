import { defineConfig } from "vitest/config";

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
    // Two files at a time: most tests wait on the processes they start (the CLI, tsserver, a
    // sandbox), so two workers halve the wall time on a 2-core machine (vitest's default is one
    // worker fewer than the cores: a single worker here). Measured: 724 s with one, 336 s with two.
    maxWorkers: 2,
    // Records every diagnostic code the tests produce; a whole-suite run fails on an unproduced one.
    globalSetup: ["test/setup/diagnostic-coverage.ts"],
  },
});
