#!/usr/bin/env node
/**
 * Entry point of the `assembly-line` binary: runs the CLI (`./run.ts`) and exits with its code.
 * The V8 code cache of CommonJS dependencies (`common/code-cache.ts`) is installed first, so
 * that every command's dependencies load through it. This is the unbundled entry: the package's
 * `bin` is `dist/bin/assembly-line.cjs`, which `npm run build` writes beside this module's output
 * to run the CLI bundle (scripts/build-cli-bundle.mjs).
 */
import { commandKind, installCodeCache } from "../common/code-cache.js";
import { nodeVersionProblem } from "../cli/version.js";

// As the package's bin does first (scripts/build-cli-bundle.mjs): an unsupported Node.js gets one line.
const unsupported = nodeVersionProblem();
if (unsupported !== undefined) {
  process.stderr.write(`assembly-line: ${unsupported}\n`);
  process.exit(2);
}
installCodeCache({ kind: commandKind(process.argv.slice(2)) });
const { run } = await import("./run.js");
process.exitCode = await run(process.argv.slice(2));
