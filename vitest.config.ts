import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The conformance suite reads the shared corpus outside the repository: `npm run test:conformance`.
    exclude: ["test/conformance/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Records every diagnostic code the tests produce; a whole-suite run fails on an unproduced one.
    globalSetup: ["test/setup/diagnostic-coverage.ts"],
  },
});
