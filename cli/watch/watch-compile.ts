/**
 * `compile --watch` (issue 10 item 4): compiles each root, then again whenever one of its
 * inputs changes, until SIGINT/SIGTERM.
 *
 * - Files are watched with chokidar: the agent root (without `.git/`, `node_modules/`,
 *   `.assemblyline/` and the artifact directory) and the package folder of every published
 *   plugin the last compile resolved.
 * - Each compile reuses the analysis cache (`.assemblyline/cache/`, saved by the previous one)
 *   and one esbuild context per root (`packaging/incremental-bundler.ts`), so only changed
 *   files are parsed again.
 * - Compiles of a root never overlap: a change that lands while one runs is queued, and the
 *   next compile starts after the current one finished (the lock is written atomically and by
 *   one compile at a time, so it is never half-written or written from a stale analysis).
 * - Only what changed is printed: the files that triggered the compile, new diagnostics (and
 *   how many went away), whether the lock was written, and which bundles changed.
 *   `--format json` prints one JSON object per line and compile instead.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { FSWatcher } from "chokidar";
import { compileAgent, type CompileOptions, type CompileResult } from "../../build/compile.js";
import { LOCKFILE_NAME } from "../../contract/lockfile-types.js";
import { DEFAULT_ARTIFACT_DIR } from "../../contract/manifest.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import { createIncrementalBundler, type IncrementalBundler } from "../../packaging/incremental-bundler.js";
import { fileStart } from "../../common/positions.js";
import { compileJson, printPretty } from "../compile-report.js";
import type { CompileTarget } from "../compile-targets.js";
import { printDiagnostics } from "../output.js";

/** How `--watch` prints. */
export interface WatchOutput {
  /** One JSON object per line and compile (`--format json`); else pretty text. */
  readonly json: boolean;
}

/** The watch state of one root. */
interface RootWatch {
  readonly target: CompileTarget;
  readonly options: CompileOptions;
  readonly bundler: IncrementalBundler;
  /** Changed absolute paths not yet compiled. */
  readonly pending: Set<string>;
  running: Promise<void> | undefined;
  previous: CompileResult | undefined;
  /** Bundles (path → SRI) of the last compile that packaged. */
  bundles: ReadonlyMap<string, string>;
  /** The lock bytes this process last saw or wrote (its own writes do not trigger a compile). */
  lockText: string | undefined;
  watcher: FSWatcher | undefined;
}

/**
 * Compiles every target, watches them, and resolves to the exit code when stopped by a signal
 * (0), or 2 when the watcher fails (AL9002).
 */
export async function watchCompile(targets: readonly CompileTarget[], options: readonly CompileOptions[], output: WatchOutput): Promise<number> {
  const { watch } = await import("chokidar");
  const roots: RootWatch[] = targets.map((target, i) => ({
    target,
    options: options[i]!,
    bundler: createIncrementalBundler(),
    pending: new Set(),
    running: undefined,
    previous: undefined,
    bundles: new Map(),
    lockText: undefined,
    watcher: undefined,
  }));
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  for (const state of roots) {
    await compileOnce(state, [], output);
    const outDir = state.options.outDir ?? path.join(state.target.root, DEFAULT_ARTIFACT_DIR);
    const ignoredDirs = [".git", "node_modules", ".assemblyline"].map((name) => path.join(state.target.root, name)).concat(outDir);
    const watcher = watch([state.target.root, ...packageDirs(state)], {
      ignoreInitial: true,
      ignored: (file) => {
        const inside = (dir: string): boolean => file === dir || file.startsWith(dir + path.sep);
        return ignoredDirs.some(inside) && !packageDirs(state).some(inside);
      },
    });
    state.watcher = watcher;
    watcher.on("all", (_event, file) => onChange(state, path.resolve(file), output));
    watcher.on("error", (error) => {
      // E.g. the system's limit on watched files: an internal failure (exit code 2), not a problem of the agent.
      printDiagnostics([createDiagnostic(Diagnostics.InternalError, fileStart(""), [`the file watcher failed: ${error instanceof Error ? error.message : String(error)}`])], process.cwd());
      finish(2);
    });
    await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  }
  // Under --format json, stdout carries only the JSON lines: the notice goes to stderr.
  (output.json ? process.stderr : process.stdout).write(`Watching ${roots.map((r) => r.target.displayRoot).join(", ")} for changes (Ctrl-C to stop).\n`);

  const stop = (): void => finish(0);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const code = await finished;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  for (const state of roots) {
    await state.watcher?.close();
    await state.running;
    await state.bundler.dispose();
  }
  return code;
}

/** Queues a compile for `file`; ignores the lock when it holds what this process last wrote. */
function onChange(state: RootWatch, file: string, output: WatchOutput): void {
  if (file === path.join(state.target.root, LOCKFILE_NAME) && readText(file) === state.lockText) return;
  state.pending.add(file);
  if (state.running) return; // the loop below picks it up after the current compile
  state.running = (async () => {
    // Let the rest of a burst of events (an editor's save, a git checkout) arrive first.
    await new Promise((resolve) => setTimeout(resolve, 25));
    while (state.pending.size > 0) {
      const changed = [...state.pending].sort();
      state.pending.clear();
      await compileOnce(state, changed, output);
    }
    state.running = undefined;
  })();
}

async function compileOnce(state: RootWatch, changed: readonly string[], output: WatchOutput): Promise<void> {
  let result: CompileResult;
  try {
    result = await compileAgent({ ...state.options, bundler: state.bundler.build });
  } catch (error) {
    printDiagnostics([createDiagnostic(Diagnostics.InternalError, fileStart(""), [error instanceof Error ? error.message : String(error)])], process.cwd());
    return;
  }
  state.lockText = readText(path.join(state.target.root, LOCKFILE_NAME));
  const bundleChanges = result.bundles ? changedBundles(state.bundles, result.bundles) : [];
  if (output.json) {
    const shown = changed.map((file) => toPosix(path.relative(state.target.root, file)));
    process.stdout.write(`${JSON.stringify({ root: state.target.displayRoot, changed: shown, ...compileJson(result), bundlesChanged: bundleChanges })}\n`);
  } else if (state.previous === undefined) {
    printPretty(result, state.target.root, {});
  } else {
    printChanges(state, result, changed, bundleChanges);
  }
  if (result.bundles) state.bundles = result.bundles;
  state.previous = result;
  // Published plugins resolved by this compile (e.g. after an install) are watched from now on.
  const packages = packageDirs(state);
  if (state.watcher && packages.length > 0) state.watcher.add(packages);
}

/** The pretty report of a recompile: what triggered it, new diagnostics, and what was written. */
function printChanges(state: RootWatch, result: CompileResult, changed: readonly string[], bundleChanges: readonly string[]): void {
  const root = state.target.root;
  const shown = (file: string): string => path.relative(process.cwd(), file) || ".";
  const key = (d: Diagnostic): string => JSON.stringify(toJsonDiagnostic(d));
  const before = new Set((state.previous?.diagnostics ?? []).map(key));
  const now = new Set(result.diagnostics.map(key));
  const fresh = result.diagnostics.filter((d) => !before.has(key(d)));
  const gone = [...before].filter((k) => !now.has(k)).length;
  process.stdout.write(`Changed: ${changed.map(shown).join(", ")}\n`);
  printDiagnostics(fresh, root);
  if (gone > 0) process.stdout.write(`Fixed: ${gone} problem${gone === 1 ? "" : "s"}.\n`);
  if (!result.ok) {
    process.stdout.write(`${shown(path.join(root, result.lockfile))} and the artifact were left unchanged (${result.diagnostics.filter((d) => d.severity === "error").length} error(s)).\n`);
    return;
  }
  if (result.lockChanged) process.stdout.write(`Wrote ${shown(path.join(root, result.lockfile))}\n`);
  for (const bundle of bundleChanges) process.stdout.write(`Repackaged ${bundle}\n`);
  if (!result.lockChanged && bundleChanges.length === 0 && !result.artifactChanged) process.stdout.write("No change to plugins.lock or the artifact.\n");
  else if (!result.lockChanged && bundleChanges.length === 0) process.stdout.write(`Updated the artifact (${result.artifact ?? "not packaged"}).\n`);
}

/** Bundles added, changed or removed between two compiles (sorted; removed ones marked). */
function changedBundles(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, integrity] of after) if (before.get(file) !== integrity) out.push(file);
  for (const file of before.keys()) if (!after.has(file)) out.push(`${file} (removed)`);
  return out.sort();
}

/** Package folders of published plugins (outside the watched root, or under its node_modules). */
function packageDirs(state: RootWatch): string[] {
  const analysis = state.previous?.analysis;
  if (!analysis) return [];
  const root = state.target.root + path.sep;
  const dirs = analysis.capabilities.map((c) => c.resolved.source.dir).filter((dir) => !dir.startsWith(root) || dir.includes(`${path.sep}node_modules${path.sep}`));
  return [...new Set(dirs)].sort();
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}
