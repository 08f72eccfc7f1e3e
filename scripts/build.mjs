/**
 * `npm run build` (also the `prepare` script, so `npm ci`, `npm install` and `npm pack` run it, and
 * `pretest`): every file of `dist/`, each step started as soon as what it reads is there, so the
 * two cores of a small machine both work (docs/performance.md "The test suite's budget"):
 *
 * - `scripts/build-dist.mjs`: the JavaScript of every source (esbuild) and, in a worker thread
 *   beside it, the declaration files (TypeScript's declaration emit without the type check);
 * - once the JavaScript is there: `build-precompiled-validators.mjs`, then `build-cli-bundle.mjs`
 *   (both load modules from `dist/`);
 * - once the declarations are there: `copy-declarations.mjs`;
 * - from the start: `build-ts-plugin.mjs`, then `build-sandbox-child.mjs` (they read the sources only).
 *
 * Each step skips what is current (`dist/.build-key.json`, `dist/cli-bundle/build-key.json`), so a
 * build right after another costs about a second. Arguments are passed on to
 * `build-cli-bundle.mjs` (`--force`). Exits with the first failing step's code, after every
 * started step ended. Type errors are not the build's: `npm run typecheck`.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { buildDist } from "./build-dist.mjs";

const scripts = path.dirname(fileURLToPath(import.meta.url));

/** Runs `node scripts/<script> ...args` with this process's output; resolves to its exit code. */
function run(script, args = []) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(scripts, script), ...args], { stdio: "inherit" });
    child.once("error", (error) => {
      process.stderr.write(`build: ${script} did not start: ${error.message}\n`);
      resolve(1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
}

/** Runs the scripts one after another while each succeeds; resolves to the first non-zero code, or 0. */
async function inOrder(...steps) {
  for (const [script, args] of steps) {
    const code = await run(script, args);
    if (code !== 0) return code;
  }
  return 0;
}

const dist = buildDist();
const codes = await Promise.all([
  dist.finished,
  inOrder(["build-ts-plugin.mjs"], ["build-sandbox-child.mjs"]),
  dist.javascript.then((done) => (done ? inOrder(["build-precompiled-validators.mjs"], ["build-cli-bundle.mjs", process.argv.slice(2)]) : 1)),
  dist.declarations.then((done) => (done ? run("copy-declarations.mjs") : 1)),
]);
process.exitCode = codes.find((code) => code !== 0) ?? 0;
