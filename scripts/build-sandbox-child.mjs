/**
 * Bundles the sandbox child's entry (`runtime-min/sandbox/child.ts` and what it imports) into ONE
 * ES module, `dist/runtime-min/sandbox/child.bundle.mjs`, which the host reads and feeds to each
 * sandbox child on its standard input (runtime-min/sandbox/child-script.ts). Built once here so
 * a host process neither loads esbuild nor bundles at start-up (issue 14 item 3). Part of
 * `npm run build`. The options match child-script.ts's run-time fallback, with the sandbox
 * contract's Node as the target floor.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

await build({
  entryPoints: [path.join(root, "runtime-min/sandbox/child.ts")],
  outfile: path.join(root, "dist/runtime-min/sandbox/child.bundle.mjs"),
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
});
