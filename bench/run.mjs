/**
 * `npm run bench`: every measurement the issues ask for, one after the other (so they do not
 * compete for the two cores), against the built `dist/` tree.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const benches = ["compile.mjs", "packaging.mjs", "runtime.mjs", "search.mjs", "providers.mjs"];
let failed = 0;
for (const bench of benches) {
  console.log(`\n=== bench/${bench}`);
  const result = spawnSync(process.execPath, [path.join(here, bench)], { stdio: "inherit" });
  if (result.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
