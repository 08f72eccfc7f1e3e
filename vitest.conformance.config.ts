import { defineConfig } from "vitest/config";

/** `npm run test:conformance`: the suites that read the shared corpus (outside the repository). */
export default defineConfig({
  test: {
    include: ["test/conformance/**/*.test.ts"],
    testTimeout: 60_000,
    pool: "forks",
  },
});
