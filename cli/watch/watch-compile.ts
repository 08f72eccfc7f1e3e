/**
 * `compile --watch` (issue 10 item 4): compiles each root, then again whenever one of its
 * inputs changes, until SIGINT/SIGTERM.
 *
 * - Files are watched with chokidar: the agent root (without `.git/`, `node_modules/`,
 *   `.assemblyline/` and the artifact directory) and the package folder of every published
 *   plugin the last compile resolved.
 * - Each compile reuses the analysis cache (`.assemblyline/cache/`, saved by the previous one)
 *   and one esbuild context per batch of at most `BUILD_BATCH` bundles
 *   (`packaging/incremental-bundler.ts`), so only changed files are parsed again.
 * - Compiles of a root never overlap: a change that lands while one runs is queued, and the
 *   next compile starts after the current one finished (the lock is written atomically and by
 *   one compile at a time, so it is never half-written or written from a stale analysis).
 * - No change is lost to the watcher (chokidar can miss a second write to a file a few
 *   milliseconds after the compile that read the first; issue 10): after each compile, every
 *   file it read (through the front end or esbuild) whose modification or change time is not
 *   older than the compile's start is treated as changed and compiled again; and until the next
 *   compile, those files' stat signatures (size, times, inode) are polled every
 *   {@link POLL_INTERVAL_MS} ms, a change queuing a compile as an event would. A file is queued
 *   by the first check once per signature, so a file dated in the future cannot cause a loop.
 * - An agent root that goes away (deleted, renamed or moved) does not end the watch, as it
 *   does not end `tsc --watch` or Vite: the poll notices it, says so, and when a folder is back
 *   at the root's path starts the watcher again and compiles it. Only a signal or a failed
 *   watcher ends the watch (chokidar closes its watches on a moved root, so the poll timer is
 *   what keeps the process alive).
 * - Only what changed is printed: the files that triggered the compile, new diagnostics (and
 *   how many went away), whether the lock was written, and which bundles changed.
 *   `--format json` prints one JSON object per line and compile instead.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { FSWatcher } from "chokidar";
import { compileAgent, type CompileOptions, type CompileResult } from "../../build/compile.js";
import { LOCKFILE_NAME } from "../../contract/lockfile-types.js";
import { DEFAULT_ARTIFACT_DIR, MANIFEST_FILE } from "../../contract/manifest.js";
import { readManifest } from "../../runtime-min/artifact/read-manifest.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import { createIncrementalBundler, type IncrementalBundler } from "../../packaging/incremental-bundler.js";
import { fileStart } from "../../common/positions.js";
import { writeFileConfined } from "../../common/confined-write.js";
import { compileJson, printPretty } from "../compile-report.js";
import type { CompileTarget } from "../compile-targets.js";
import { jsonText, printDiagnostics } from "../output.js";
import { signatureOfStats } from "../../common/file-stats-hash.js";

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
  /** Files queued because they changed during a compile, with the stat signature that queued them. */
  readonly suspects: Map<string, string>;
  /**
   * The files the last compile read and that did not change while it ran, with their stat
   * signatures right after it (polled; a queued file whose signature is still this one was
   * already compiled in its current state).
   */
  inputs: Map<string, string>;
  /** True while the agent root is not a folder at its path (the poll noticed it go; it waits for it to come back). */
  rootGone: boolean;
}

/** How often the files the last compile read are polled for a change the watcher missed. */
export const POLL_INTERVAL_MS = 500;

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
    suspects: new Map(),
    inputs: new Map(),
    rootGone: false,
  }));
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const failed = (error: unknown): void => {
    // E.g. the system's limit on watched files: an internal failure (exit code 2), not a problem of the agent.
    printDiagnostics([createDiagnostic(Diagnostics.InternalError, fileStart(""), [`the file watcher failed: ${error instanceof Error ? error.message : String(error)}`])], process.cwd());
    finish(2);
  };
  for (const state of roots) {
    // What "Repackaged" is measured against until a compile succeeds: the artifact on disk (a
    // watch that starts with an error would otherwise report every bundle as repackaged after
    // the fix; new-user trial M49).
    state.bundles = bundlesOnDisk(state.options.outDir ?? path.join(state.target.root, DEFAULT_ARTIFACT_DIR));
    await compileOnce(state, [], output);
    await startWatcher(state, watch, output, failed);
  }
  // Under --format json, stdout carries only the JSON lines: the notice goes to stderr.
  (output.json ? process.stderr : process.stdout).write(`Watching ${roots.map((r) => r.target.displayRoot).join(", ")} for changes (Ctrl-C to stop).\n`);

  // Not unref'd: this timer keeps the process alive when nothing else does, as after the agent
  // root is renamed or moved, which makes chokidar close its watches (helper-73's report,
  // defect 4: the process then drained and stopped with the bin's exit 13). Only a signal or a
  // failed watcher ends the watch, as `tsc --watch` and Vite keep running when their root goes.
  const poll = setInterval(() => {
    for (const state of roots) {
      if (state.rootGone !== rootIsGone(state)) void rootMovedOrBack(state, watch, output, failed);
      else if (!state.running && state.watcher && !state.rootGone) pollInputs(state, output);
    }
  }, POLL_INTERVAL_MS);
  const stop = (): void => finish(0);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const code = await finished;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  clearInterval(poll);
  for (const state of roots) {
    await state.watcher?.close();
    await state.running;
    await state.bundler.dispose();
  }
  return code;
}

/**
 * Starts `state`'s file watcher (chokidar `watch`) on the agent root, without `.git/`,
 * `node_modules/`, `.assemblyline/` and the artifact directory, and on the package folders of the
 * published plugins the last compile resolved; resolves when it is ready. `failed` receives a
 * watcher error. A file written while the watcher started is compiled then.
 */
async function startWatcher(state: RootWatch, watch: typeof import("chokidar").watch, output: WatchOutput, failed: (error: unknown) => void): Promise<void> {
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
  watcher.on("error", failed);
  await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  // A file written while the compile ran (before the watcher was ready).
  if (state.pending.size > 0) schedule(state, output);
}

/** Whether the agent root is no folder at its path now (deleted, renamed or moved away). */
function rootIsGone(state: RootWatch): boolean {
  try {
    return !fs.statSync(state.target.root).isDirectory();
  } catch {
    return true;
  }
}

/**
 * The agent root went away, or came back at its path. Gone: says that the watch goes on (the
 * compile its files' removal starts reports AL1024). Back: the watcher is started again (the old
 * one watched a folder that is now elsewhere, or none) and the root is compiled, so the watch
 * goes on as if it had never left, as `tsc --watch` does when its project folder is restored.
 */
async function rootMovedOrBack(state: RootWatch, watch: typeof import("chokidar").watch, output: WatchOutput, failed: (error: unknown) => void): Promise<void> {
  state.rootGone = !state.rootGone;
  const notice = output.json ? process.stderr : process.stdout;
  if (state.rootGone) {
    notice.write(`The agent root ${state.target.displayRoot} is gone (deleted, renamed or moved): still watching; it is compiled again when it is back at its path (Ctrl-C to stop).\n`);
    return;
  }
  notice.write(`The agent root ${state.target.displayRoot} is back: watching it again.\n`);
  const old = state.watcher;
  state.watcher = undefined;
  await old?.close();
  await state.running;
  await startWatcher(state, watch, output, failed);
  state.pending.add(state.target.root);
  schedule(state, output);
}

/** Queues a compile for `file`; ignores the lock when it holds what this process last wrote. */
function onChange(state: RootWatch, file: string, output: WatchOutput): void {
  if (file === path.join(state.target.root, LOCKFILE_NAME) && readText(file) === state.lockText) return;
  state.pending.add(file);
  schedule(state, output);
}

/** Starts the compile loop of a root unless it runs (the loop then picks up what is pending). */
function schedule(state: RootWatch, output: WatchOutput): void {
  if (state.running || !state.watcher) return;
  state.running = (async () => {
    // Let the rest of a burst of events (an editor's save, a git checkout) arrive first.
    await new Promise((resolve) => setTimeout(resolve, 25));
    while (state.pending.size > 0) {
      const changed = [...state.pending].sort();
      state.pending.clear();
      // An event for a write the last compile already read (its check found it first) is not a change.
      const fresh = changed.filter((file) => state.inputs.get(file) !== currentSignature(file));
      if (fresh.length > 0) await compileOnce(state, fresh, output);
    }
    state.running = undefined;
  })();
}

async function compileOnce(state: RootWatch, changed: readonly string[], output: WatchOutput): Promise<void> {
  let result: CompileResult;
  const read = new Set<string>();
  const started = startStamp(state.target.root);
  try {
    result = await compileAgent({ ...state.options, bundler: state.bundler.build, recordInput: (file) => read.add(file) });
  } catch (error) {
    printDiagnostics([createDiagnostic(Diagnostics.InternalError, fileStart(""), [error instanceof Error ? error.message : String(error)])], process.cwd());
    return;
  }
  state.lockText = readText(path.join(state.target.root, LOCKFILE_NAME));
  const bundleChanges = result.bundles ? changedBundles(state.bundles, result.bundles) : [];
  if (output.json) {
    const shown = changed.map((file) => toPosix(path.relative(state.target.root, file)) || ".");
    process.stdout.write(`${jsonText({ root: state.target.displayRoot, changed: shown, ...compileJson(result), bundlesChanged: bundleChanges })}\n`);
  } else if (state.previous === undefined) {
    printPretty(result, state.target.root, {});
  } else {
    printChanges(state, result, changed, bundleChanges);
  }
  if (result.bundles) state.bundles = result.bundles;
  state.previous = result;
  for (const file of changedSince(state, read, started)) state.pending.add(file);
  // Published plugins resolved by this compile (e.g. after an install) are watched from now on.
  const packages = packageDirs(state);
  if (state.watcher && packages.length > 0) state.watcher.add(packages);
}

/** The most changed files {@link changedLine} names; `--format json` lists them all. */
export const MAX_CHANGED_SHOWN = 10;

/**
 * The pretty report's first line: `Changed: a, b` for the files that started a recompile, the
 * first {@link MAX_CHANGED_SHOWN} and how many more (a `git checkout` or an `rm -rf` of a
 * plugin is hundreds of files, which filled the terminal with one line).
 */
export function changedLine(files: readonly string[]): string {
  const more = files.length - MAX_CHANGED_SHOWN;
  return `Changed: ${files.slice(0, MAX_CHANGED_SHOWN).join(", ")}${more > 0 ? ` and ${more} more file${more === 1 ? "" : "s"}` : ""}\n`;
}

/** The pretty report of a recompile: what triggered it, new diagnostics, and what was written. */
function printChanges(state: RootWatch, result: CompileResult, changed: readonly string[], bundleChanges: readonly string[]): void {
  const root = state.target.root;
  const shown = (file: string): string => path.relative(process.cwd(), file) || ".";
  const key = (d: Diagnostic): string => JSON.stringify(toJsonDiagnostic(d));
  const before = new Set((state.previous?.diagnostics ?? []).map(key));
  const now = new Set(result.diagnostics.map(key));
  const fresh = result.diagnostics.filter((d) => !before.has(key(d)));
  // Problems: errors and warnings (an info that went away is no fix).
  const gone = (state.previous?.diagnostics ?? []).filter((d) => d.severity !== "info" && !now.has(key(d))).length;
  process.stdout.write(changedLine(changed.map(shown)));
  printDiagnostics(fresh, root);
  if (gone > 0) process.stdout.write(`Fixed: ${gone} problem${gone === 1 ? "" : "s"}.\n`);
  if (!result.ok) {
    // "Found N errors." above counts the new ones; the errors reported by earlier compiles are counted here only.
    const errors = result.diagnostics.filter((d) => d.severity === "error").length;
    const earlier = errors - fresh.filter((d) => d.severity === "error").length;
    const count = earlier === 0 ? "" : ` (${errors} error${errors === 1 ? "" : "s"} in all, ${earlier} reported before)`;
    process.stdout.write(`${shown(path.join(root, result.lockfile))} and the artifact were left unchanged${count}.\n`);
    return;
  }
  if (result.lockChanged) process.stdout.write(`Wrote ${shown(path.join(root, result.lockfile))}\n`);
  for (const bundle of bundleChanges) process.stdout.write(`Repackaged ${bundle}\n`);
  if (!result.lockChanged && bundleChanges.length === 0 && !result.artifactChanged) process.stdout.write("No change to plugins.lock or the artifact.\n");
  else if (!result.lockChanged && bundleChanges.length === 0) process.stdout.write(`Updated the artifact (${result.artifact ?? "not packaged"}).\n`);
}

/**
 * The bundles the artifact in `outDir` holds now, as a compile reports them (artifact-relative
 * path → SRI, from its `manifest.json`); empty when there is no readable, well-formed manifest.
 */
function bundlesOnDisk(outDir: string): ReadonlyMap<string, string> {
  const text = readText(path.join(outDir, MANIFEST_FILE));
  const manifest = text === undefined ? undefined : readManifest(MANIFEST_FILE, text).manifest;
  return new Map(Object.values(manifest?.surfaces ?? {}).flatMap((surface) => Object.values(surface.tools).map((tool) => [tool.bundle, tool.integrity] as const)));
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

/**
 * The moment a compile starts, in the file system's clock (ns): the modification time of
 * `.assemblyline/cache/watch.stamp`, written for the purpose; when it cannot be written, the
 * system clock a second early (file times can lag it by a clock tick).
 */
function startStamp(root: string): bigint {
  const file = path.join(root, ".assemblyline", "cache", "watch.stamp");
  try {
    // Only in an agent root: nothing is created in a folder that is not one.
    if (fs.existsSync(path.join(root, "agent.md")) && writeFileConfined(root, file, "", { createFolders: true, durable: false }) === undefined) return fs.statSync(file, { bigint: true }).mtimeNs;
  } catch {
    // Fall through to the system clock.
  }
  return BigInt(Date.now() - 1000) * 1_000_000n;
}

/**
 * The files a compile read that may have changed after it read them: modified or changed (ctime)
 * at or after `started`. The lock this process wrote is not a change; a file already queued
 * with the same stat signature is not queued again.
 */
function changedSince(state: RootWatch, read: ReadonlySet<string>, started: bigint): string[] {
  const lock = path.join(state.target.root, LOCKFILE_NAME);
  const out: string[] = [];
  state.inputs = new Map();
  for (const file of [...read].sort()) {
    let stat: fs.BigIntStats;
    try {
      stat = fs.statSync(file, { bigint: true });
    } catch {
      state.inputs.set(file, "-");
      continue; // removed: chokidar reports the unlink (and the poll)
    }
    const signature = signatureOfStats(stat);
    if (stat.mtimeNs < started && stat.ctimeNs < started) {
      state.inputs.set(file, signature);
      continue;
    }
    if (file === lock && readText(file) === state.lockText) {
      state.inputs.set(file, signature);
      continue;
    }
    if (state.suspects.get(file) === signature) {
      // This version was already queued once and compiled again since: seen. (Without this, a
      // late file event for it found no recorded signature and queued a redundant compile.)
      state.inputs.set(file, signature);
      continue;
    }
    state.suspects.set(file, signature);
    out.push(file);
  }
  return out;
}

/** Queues a compile for every file the last compile read whose stat signature changed since. */
function pollInputs(state: RootWatch, output: WatchOutput): void {
  const lock = path.join(state.target.root, LOCKFILE_NAME);
  let changed = false;
  for (const [file, before] of state.inputs) {
    const now = currentSignature(file);
    if (now === before) continue;
    if (file === lock && readText(file) === state.lockText) {
      state.inputs.set(file, now); // this process's own lock write
      continue;
    }
    // The recorded signature stays as it is: the queue drops a file whose signature equals the
    // recorded one as already seen, and the compile this queues records the new signatures.
    state.pending.add(file);
    changed = true;
  }
  if (changed) schedule(state, output);
}

/** The stat signature of a file now (`-` when missing). */
function currentSignature(file: string): string {
  try {
    return signatureOfStats(fs.statSync(file, { bigint: true }));
  } catch {
    return "-";
  }
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
