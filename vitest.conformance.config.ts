import { defineConfig } from "vitest/config";

/**
 * `npm run test:conformance`: the Agent Plugins v1 loader and the JSON Schema checks against the
 * external real-world corpus, read in place from `../shared/corpus` (or `$ASSEMBLY_LINE_CORPUS`).
 * Not part of `npm test`; `.ci/run` runs it after `npm test` when the corpus is there.
 */
export default defineConfig({
  test: {
    include: ["test/conformance/**/*.test.ts"],
    testTimeout: 60_000,
    pool: "forks",
    setupFiles: ["test/setup/temp-dirs.ts"],
  },
});
