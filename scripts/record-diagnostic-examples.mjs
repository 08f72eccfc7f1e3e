/**
 * `npm run docs:examples`: runs the whole test suite with the diagnostic recorder on and
 * `AL_UPDATE_DIAGNOSTIC_EXAMPLES=1`, so test/setup/diagnostic-coverage.ts adds a recorded
 * message to diagnostics/catalog/examples.ts for each code that has no example yet; then
 * `npm run docs` renders docs/diagnostics.md with them.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const vitest = path.join(repo, "node_modules", "vitest", "vitest.mjs");
const run = spawnSync(process.execPath, [vitest, "run"], {
  cwd: repo,
  stdio: "inherit",
  env: { ...process.env, AL_UPDATE_DIAGNOSTIC_EXAMPLES: "1" },
});
process.exit(run.status ?? 1);
