/**
 * Part of `npm run build` (`scripts/build.mjs`): writes `dist/` from the TypeScript sources that
 * `tsconfig.build.json` includes — for every source `x.ts`, `dist/x.js` (an ES module),
 * `dist/x.js.map` and `dist/x.d.ts` — as `tsc -p tsconfig.build.json` would, without its type
 * check (that is `npm run typecheck`'s, over the same sources and the tests; docs/performance.md
 * "The test suite's budget").
 *
 * - **JavaScript**: esbuild, each file on its own (not bundled), with the configuration's target
 *   and class-field semantics (it reads `tsconfig.build.json`). The code is what `tsc` emits
 *   minus the comments and in esbuild's layout; the CLI bundle is made by esbuild from the
 *   same sources (scripts/build-cli-bundle.mjs). About 1 s of CPU for every file, against
 *   `tsc -b`'s 17–20 s (which are mostly the type check).
 * - **Declarations**: TypeScript's own declaration emit over the whole program with `noCheck`
 *   (byte for byte what `tsc` writes; it asks the checker only for what the declarations need),
 *   in a worker thread, so it runs on the other core while esbuild and the rest of the build run.
 * - **Up to date**: the key `dist/.build-key.json` records the SHA-256 of every source and of what
 *   the emit is made with ({@link stampOf}). A source whose bytes and outputs are as recorded is
 *   not emitted again; the declarations are emitted again (all of them: one file's declarations
 *   can depend on another's types) when any source changed, appeared or went. The outputs of a
 *   source that went are removed. Nothing changed: no esbuild, no TypeScript, about 0.1 s. Of a
 *   source's JavaScript only the `.js` file needs to exist, whatever it holds: the CLI bundle's
 *   build writes its stubs over two of them (the worker scripts) and removes their source maps,
 *   and that must not make them stale (it would make the CLI bundle stale in turn).
 * - **Per user**: the declarations of a set of inputs are kept in the user's private cache folder
 *   and written from there by a later build of the same inputs, in another clone too (the
 *   pre-commit test's, a new checkout's `pretest`): `./declarations-cache.mjs`.
 *
 * Exits 1, printing the errors, on a syntax error or a failed declaration emit; the key is written
 * only after a build that succeeded.
 */
import { fileHash } from "./build-key.mjs";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, "dist");
const BUILD_CONFIG = path.join(root, "tsconfig.build.json");
const KEY_FILE = path.join(dist, ".build-key.json");
/** Marks the worker thread this script starts for the declarations (a thread that imports the module otherwise does nothing). */
const DECLARATION_WORKER = "assembly-line build-dist declarations";
/** The key's format; another format is never current. */
const KEY_FORMAT = 1;


/**
 * The sources `tsconfig.build.json` includes (its `include` folders; every `.ts` file that is not a
 * `.d.ts`, outside `node_modules`), relative to the repository with `/`, sorted. The declaration
 * worker checks that TypeScript reads the same list.
 */
export function listSources(repo = root) {
  const config = JSON.parse(fs.readFileSync(path.join(repo, "tsconfig.build.json"), "utf8"));
  const sources = [];
  for (const folder of config.include) {
    for (const entry of fs.readdirSync(path.join(repo, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
      const file = path.join(entry.parentPath, entry.name);
      const relative = path.relative(repo, file).split(path.sep).join("/");
      if (!relative.split("/").includes("node_modules")) sources.push(relative);
    }
  }
  return sources.sort();
}

/** The outputs of one source (relative paths under `dist/`): its JavaScript, source map and declarations. */
export function outputsOf(source) {
  const base = source.replace(/\.ts$/, "");
  return { js: [`${base}.js`, `${base}.js.map`], dts: `${base}.d.ts` };
}

/**
 * What an emit is made with, besides the sources: this script, both TypeScript configurations,
 * TypeScript's and esbuild's versions. Another stamp makes every source stale.
 */
export function stampOf(repo = root) {
  const requireHere = createRequire(path.join(repo, "package.json"));
  const version = (name) => JSON.parse(fs.readFileSync(requireHere.resolve(`${name}/package.json`), "utf8")).version;
  return {
    script: fileHash(fileURLToPath(import.meta.url)),
    config: fileHash(path.join(repo, "tsconfig.build.json")),
    base: fileHash(path.join(repo, "tsconfig.base.json")),
    typescript: version("typescript"),
    esbuild: version("esbuild"),
  };
}

/**
 * What to emit, from the last build's key and the sources now.
 * @param key the parsed key file, or anything else (missing, unreadable, another format) for "no build".
 * @param stamp {@link stampOf} now.
 * @param hashes every source now → its SHA-256.
 * @param exists whether an output (relative to `dist/`) exists.
 * @returns `js`: the sources whose JavaScript is emitted again (changed, new, or its `.js` missing);
 *   `declarations`: whether every declaration file is emitted again; `removed`: the sources that
 *   went since (their outputs are deleted).
 */
export function planEmit(key, stamp, hashes, exists) {
  const usable = key !== null && typeof key === "object" && key.format === KEY_FORMAT && JSON.stringify(key.stamp) === JSON.stringify(stamp) && key.sources !== null && typeof key.sources === "object";
  const recorded = usable ? key.sources : {};
  const js = [];
  let declarations = !usable;
  for (const [source, hash] of Object.entries(hashes)) {
    const { js: jsOutputs, dts } = outputsOf(source);
    if (recorded[source] !== hash) {
      js.push(source);
      declarations = true;
    } else if (!exists(jsOutputs[0])) js.push(source);
    else if (!exists(dts)) declarations = true;
  }
  const removed = Object.keys(recorded).filter((source) => !Object.hasOwn(hashes, source));
  if (removed.length > 0) declarations = true;
  return { js: js.sort(), declarations, removed: removed.sort() };
}

/**
 * The declaration emit (worker thread): every declaration file of the program `tsconfig.build.json`
 * describes, with `noCheck`; a file is written only when its text changed. Posts `{ error }` (the
 * error text, or `null` on success) and, with `record`, the files written and read
 * (`./declarations-cache.mjs`).
 */
async function emitDeclarations({ repo, sources, record }) {
  const outputs = [];
  const error = await emitDeclarationFiles({ repo, sources, outputs: record ? outputs : undefined });
  if (error !== null || !record) return { error };
  const { emitInputs } = await import("./declarations-cache.mjs");
  return { error, outputs, inputs: emitInputs(repo, lastProgramFiles, sources) };
}

/** The files the last declaration program of this thread read (for the per-user record). */
let lastProgramFiles = [];

/** {@link emitDeclarations}'s emit; `outputs`, when given, receives [path relative to `repo`, text] of every declaration file. */
async function emitDeclarationFiles({ repo, sources, outputs }) {
  const { writeIfChanged } = await import("./declarations-cache.mjs");
  const { default: ts } = await import(pathToFileURL(createRequire(path.join(repo, "package.json")).resolve("typescript")).href);
  const format = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => repo, getNewLine: () => "\n" };
  const config = ts.getParsedCommandLineOfConfigFile(path.join(repo, "tsconfig.build.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (config === undefined) return "tsconfig.build.json could not be read";
  if (config.errors.length > 0) return ts.formatDiagnostics(config.errors, format);
  const read = config.fileNames.filter((f) => !f.endsWith(".d.ts")).map((f) => path.relative(repo, f).split(path.sep).join("/")).sort();
  if (JSON.stringify(read) !== JSON.stringify(sources)) {
    return `scripts/build-dist.mjs lists other sources than TypeScript reads from tsconfig.build.json (only here: ${sources.filter((s) => !read.includes(s)).join(", ") || "none"}; only in TypeScript's: ${read.filter((s) => !sources.includes(s)).join(", ") || "none"})`;
  }
  const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noCheck: true, emitDeclarationOnly: true, incremental: false } });
  const syntax = [...program.getOptionsDiagnostics(), ...program.getSyntacticDiagnostics()];
  if (syntax.length > 0) return ts.formatDiagnostics(syntax, format);
  lastProgramFiles = program.getSourceFiles().map((file) => file.fileName);
  const result = program.emit(undefined, (file, text) => {
    outputs?.push([path.relative(repo, file).split(path.sep).join("/"), text]);
    writeIfChanged(file, text);
  });
  return result.diagnostics.length > 0 || result.emitSkipped ? ts.formatDiagnostics(result.diagnostics, format) || "declaration emit skipped" : null;
}

/**
 * Starts {@link emitDeclarations} in a worker thread; resolves to `{ error }` (its error text or
 * `null`) and, with `record`, the emit's `outputs` and `inputs` for the per-user record.
 */
function declarationsInWorker(sources, record) {
  return new Promise((resolve) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { role: DECLARATION_WORKER, repo: root, sources, record } });
    let answer = { error: "the declaration worker ended without an answer" };
    worker.once("message", (message) => (answer = message));
    worker.once("error", (error) => (answer = { error: String(error?.stack ?? error) }));
    worker.once("exit", () => resolve(answer));
  });
}

/**
 * The declarations, from the per-user record of these inputs when there is one
 * (`./declarations-cache.mjs`), else emitted and then recorded. Waits for `javascript` first when
 * it emits `common/` (the record's helpers are `dist/common/`'s). Resolves to the error text or `null`.
 */
async function declarationsOf(sources, stamp, hashes, plan, javascript) {
  if (plan.js.some((source) => source.startsWith("common/"))) await javascript;
  const { declarationsKey, openDeclarationsCache, sha256File } = await import("./declarations-cache.mjs");
  const lock = (file) => (fs.existsSync(path.join(root, file)) ? sha256File(path.join(root, file)) : "missing");
  const cache = await openDeclarationsCache(root, declarationsKey({ ...stamp, packageJson: lock("package.json"), packageLock: lock("package-lock.json") }, hashes));
  if (cache?.restore()) return null;
  const answer = await declarationsInWorker(sources, cache !== undefined);
  if (answer.error === null && answer.outputs !== undefined) cache?.store(answer.inputs, answer.outputs);
  return answer.error;
}

/** Emits the JavaScript of `sources` (relative paths) with esbuild; resolves to error text or `null`. */
async function emitJavaScript(sources) {
  if (sources.length === 0) return null;
  const { build } = await import("esbuild");
  try {
    await build({
      entryPoints: sources.map((source) => path.join(root, source)),
      outdir: dist,
      outbase: root,
      bundle: false,
      format: "esm",
      platform: "node",
      target: "es2022",
      tsconfig: BUILD_CONFIG,
      sourcemap: true,
      sourcesContent: false,
      logLevel: "silent",
    });
    return null;
  } catch (error) {
    return (error?.errors ?? []).map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : ""}${e.text}`).join("\n") || String(error);
  }
}

/**
 * Starts the whole step (see the module comment).
 * @returns `javascript`: resolves to `true` once every JavaScript output is current (`false`
 *   when esbuild failed, after printing why); `declarations`: the same for the declaration
 *   files; `finished`: resolves to the step's exit code (0, or 1 after either failed) once both
 *   are done and the key is written. None of them rejects.
 */
export function buildDist() {
  const sources = listSources();
  const hashes = Object.fromEntries(sources.map((source) => [source, fileHash(path.join(root, source))]));
  const stamp = stampOf();
  let key = null;
  try {
    key = JSON.parse(fs.readFileSync(KEY_FILE, "utf8"));
  } catch {
    // no build yet
  }
  const plan = planEmit(key, stamp, hashes, (output) => fs.existsSync(path.join(dist, output)));
  for (const source of plan.removed) {
    const { js, dts } = outputsOf(source);
    for (const output of [...js, dts]) fs.rmSync(path.join(dist, output), { force: true });
  }
  const reported = (what) => (error) => {
    if (error !== null) process.stderr.write(`build-dist: ${what}:\n${error}\n`);
    return error === null;
  };
  const javascript = emitJavaScript(plan.js).then(reported("esbuild failed"));
  const declarations = (plan.declarations ? declarationsOf(sources, stamp, hashes, plan, javascript) : Promise.resolve(null)).then(reported("the declaration emit failed"));
  const finished = Promise.all([javascript, declarations]).then(([jsDone, dtsDone]) => {
    if (!jsDone || !dtsDone) return 1;
    if (plan.js.length === 0 && !plan.declarations && plan.removed.length === 0) return 0;
    fs.mkdirSync(dist, { recursive: true });
    const temporary = `${KEY_FILE}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, `${JSON.stringify({ format: KEY_FORMAT, stamp, sources: hashes }, null, 1)}\n`);
    fs.renameSync(temporary, KEY_FILE);
    return 0;
  });
  return { javascript, declarations, finished };
}

if (!isMainThread && workerData?.role === DECLARATION_WORKER) parentPort.postMessage(await emitDeclarations(workerData));
else if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await buildDist().finished;
