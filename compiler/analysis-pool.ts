/**
 * The static analysis on both cores (issue 14 item 1: "keep both cores busy"). A cold compile
 * of a large agent spends most of its time parsing and evaluating entries and definition
 * modules, one plugin folder after the other; the pool hands the folders to one
 * `worker_threads` worker (`analysis-worker-thread.ts`) as well:
 *
 * - {@link AnalysisPool.assign} posts the plugin folders in the order `analyzeAgent` visits
 *   them; the worker claims them in that order and analyses each folder's entry and the
 *   definition modules its tools name (`preanalyze-plugin.ts`). Before reading a folder, the
 *   main thread calls {@link AnalysisPool.prepare}: a folder the worker has not reached yet is
 *   claimed for the main thread (analysed as it is read); for a folder the worker has, the main
 *   thread, instead of waiting, takes the last folder nobody claimed and analyses it ahead. A
 *   claim is one `Atomics.compareExchange` on shared memory, so every folder is analysed by
 *   exactly one thread and both stay busy until every folder is claimed. The main thread also
 *   does everything else (reading packages, validation, hashing, config), folder by folder.
 * - The worker posts, per folder, each analysis with its content fingerprint. The pool is the
 *   analyzer's {@link PersistentAnalyses}: when the main thread's analyzer asks for an analysis
 *   of a folder the worker claimed, it waits for that folder's message (blocking, as the
 *   analysis is synchronous; `receiveMessageOnPort`), and the analyzer then checks the
 *   fingerprint against its own host exactly as it checks a record of the persistent analysis
 *   cache (every file the analysis read has the same content hash; every symlink resolves the
 *   same way). So a result never depends on which thread produced it: the worker runs the same
 *   analysis code on the same bytes, and a record that does not hold is simply analysed again
 *   here. The main thread's host still sees (and records, for `inputs.json`) every read.
 * - A worker that cannot start, throws on a folder, or posts nothing for {@link WAIT_LIMIT_MS}
 *   while the main thread waits only makes the main thread analyse those folders itself: the
 *   output is the same, only slower. Nothing is reported about the worker.
 *
 * Results cross threads by structured clone (the format `v8.serialize` writes for the analysis
 * cache), so they are plain data: no AST node, no class instance, no function.
 */
import * as os from "node:os";
import * as path from "node:path";
import { receiveMessageOnPort } from "node:worker_threads";
import { startHelperWorker, type HelperWorker } from "./helper-worker.js";
import { unpackRecord, type PackedRecord } from "./static-analysis/analysis-cache.js";
import type { AnalysisKind, PersistentAnalyses } from "./static-analysis/static-analyzer.js";
import { typeScriptLoaded } from "./static-analysis/typescript.js";

/** Fewer plugin folders than this are analysed on the main thread alone: a worker's start costs more than it saves. */
export const POOL_THRESHOLD = 16;

/**
 * How long the main thread waits for the worker's next message before giving the worker up
 * and analysing the rest itself. It only waits when nothing is left to take; the first message
 * comes after the worker loaded TypeScript, which takes seconds on a loaded machine.
 */
const WAIT_LIMIT_MS = 10_000;

/**
 * One analysis as the worker posts it: kind, file, plugin root (as the analyzer resolved them),
 * and the fingerprint and result packed as the analysis cache packs them (an entry's location
 * map as numbers: a fraction of the bytes to copy between threads).
 */
export type PoolRecord = readonly [kind: AnalysisKind, file: string, pluginRoot: string, record: PackedRecord];

/** Claim states of a plugin folder in shared memory. */
const UNCLAIMED = 0;
const CLAIMED_BY_WORKER = 1;
const CLAIMED_BY_MAIN = 2;

/** The main thread's side of the analysis worker; also the analyzer's persistent store. */
export interface AnalysisPool extends PersistentAnalyses {
  /**
   * True for the pool of an incremental compile ({@link AnalysisPoolOptions.changedPlugins}):
   * the front end reuses what it can first, and assigns the worker only the plugin folders whose
   * stored results do not hold.
   */
  readonly changedPlugins: boolean;
  /**
   * Hands the plugin folders (absolute, in the order the main thread will visit them) to the
   * worker (starting it now when the pool deferred its start). Only the first call counts;
   * with fewer folders than the pool's threshold ({@link poolThreshold}) the worker is stopped,
   * or never started, and everything is analysed here. `leaveToWorker`: this thread analyses
   * none of them and waits for the worker (a few changed folders, while the worker has
   * TypeScript loaded and this thread has not).
   */
  assign(pluginDirs: readonly string[], options?: { readonly leaveToWorker?: boolean }): void;
  /**
   * Called before the main thread reads the folder: claims it for this thread when the worker
   * has not started it; when the worker has, returns once its analyses arrived, and while
   * waiting analyses the last unclaimed folder with `analyzeHere` instead (so both threads
   * stay busy until every folder is claimed).
   */
  prepare(pluginDir: string, analyzeHere: (pluginDir: string) => void): void;
  /** Stops the worker. Analyses asked for afterwards come from `fallback` or are computed here. */
  close(): void;
  /** How many folders' analyses the worker posted so far (for tests and benchmarks). */
  workerFolders(): number;
}

/** Options of {@link startAnalysisPool}. */
export interface AnalysisPoolOptions {
  /** A store consulted first and given every kept analysis (the persistent analysis cache). */
  readonly fallback?: PersistentAnalyses;
  /**
   * False: the main thread leaves every folder to the worker and waits for it (tests use it
   * to make the worker's share certain). Default true.
   */
  readonly mainAnalyses?: boolean;
  /** The fewest plugin folders for which the worker is used (default {@link poolThreshold} of this machine). */
  readonly threshold?: number;
  /**
   * The pool of an incremental compile (the persistent analysis cache holds the last compile's
   * work): the worker starts at once and loads TypeScript while this thread checks the stored
   * results of every plugin; it is then assigned only the folders whose results do not hold,
   * from one folder on, so that this thread never loads TypeScript for the few files a change
   * touched (issue 14 item 4: a one-file change ≤ 0.3× a cold compile). Default false.
   */
  readonly changedPlugins?: boolean;
}

/**
 * Whether a cold analysis starts the analysis worker: `ASSEMBLY_LINE_ANALYSIS_WORKER=1` always,
 * `=0` never; otherwise {@link analysisWorkerPays} for this machine's cores and one-minute load
 * average.
 */
export function analysisWorkerWanted(): boolean {
  const setting = process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
  if (setting === "1" || setting === "0") return setting === "1";
  return analysisWorkerPays(os.availableParallelism(), os.loadavg()[0]!);
}

/**
 * The load rule behind {@link analysisWorkerWanted}: the worker is started when the machine has
 * a second core and is not oversubscribed (the one-minute load average below the number of
 * cores plus one, as `make -l` judges load; one more than the cores because compiles run one
 * after another, as in a benchmark or `--watch`, keep about two threads busy themselves). The
 * worker costs CPU of its own (a second heap, TypeScript and the analysis code loaded and
 * optimised again, results copied between threads), which pays in wall time only on an idle
 * core, and on fewer than {@link MANY_CORES} cores only for a large agent ({@link poolThreshold}).
 */
export function analysisWorkerPays(cores: number, loadAverage: number): boolean {
  return cores >= 2 && loadAverage < cores + 1;
}

/**
 * From this many cores on, the worker has a core to itself beside the main thread and V8's
 * helper threads, and is used from {@link POOL_THRESHOLD} plugin folders on, started ahead.
 */
export const MANY_CORES = 4;

/**
 * On fewer than {@link MANY_CORES} cores, the fewest plugin folders for which the worker is
 * started (only once the folders are known: never ahead). There the worker shares the second
 * core with V8's background compiler and garbage collector, and its own start (TypeScript and
 * the analysis code loaded and optimised a second time) pays only on a large agent. Measured on
 * the quiet two-core machine (2 December, seventh round of docs/performance.md, cold
 * `compile --no-package`, worker off against on): 100 realistic plugins × 10 tools 1.92 s
 * against 2.16 s, the 200 × 10 benchmark agent about 15 % faster without it; 500 realistic
 * plugins 5.36 s against 4.92 s, 2,000 realistic plugins 18.2 s against 14.3 s.
 */
export const FEW_CORES_POOL_THRESHOLD = 300;

/**
 * The fewest stored plugin records (`compiler/plugin-reuse.ts`: one per plugin folder the last
 * compile worked on) for which an incremental compile starts the worker for the changed plugins
 * ({@link AnalysisPoolOptions.changedPlugins}). The worker pays only when this thread's
 * own work before it needs the changed plugins' analyses (the state, the lock, checking every
 * stored plugin) takes longer than the worker's start and TypeScript's load on the other core,
 * about 150–250 ms: roughly from a hundred plugins on. On a smaller agent this thread would wait
 * for the worker longer than it takes to load TypeScript itself. Never when this thread has
 * TypeScript loaded already (`compile --watch` after its first compile): the worker would only
 * load it a second time.
 */
export const CHANGED_PLUGINS_POOL_MIN_PLUGINS = 100;

/**
 * Whether an incremental compile with `storedPlugins` stored plugin records starts the worker
 * for its changed plugins: `ASSEMBLY_LINE_ANALYSIS_WORKER=1` always, `=0` never; otherwise on
 * {@link MANY_CORES} cores or more, from {@link CHANGED_PLUGINS_POOL_MIN_PLUGINS} on, when this
 * thread has not loaded TypeScript yet and the load rule ({@link analysisWorkerWanted}) allows.
 * On two cores it gained nothing (6 December, the 200 × 10 benchmark agent, one-file change, 9
 * interleaved whole-process runs against the build without it: median 1,372 against 1,373 ms,
 * CPU 1,950 against 1,780 ms): the second core is busy with V8's helper threads and esbuild, as
 * the cold rule found ({@link FEW_CORES_POOL_THRESHOLD}).
 */
export function changedPluginsPoolWanted(storedPlugins: number): boolean {
  const setting = process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
  if (setting === "1" || setting === "0") return setting === "1";
  return os.availableParallelism() >= MANY_CORES && !typeScriptLoaded() && storedPlugins >= CHANGED_PLUGINS_POOL_MIN_PLUGINS && analysisWorkerWanted();
}

/** How many plugin folders an agent needs for the pool to keep its worker, on a machine of `cores` cores. */
export function poolThreshold(cores: number = os.availableParallelism()): number {
  // `ASSEMBLY_LINE_ANALYSIS_WORKER=1` uses the worker from the smallest pool on, as it is on many cores.
  if (process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] === "1") return POOL_THRESHOLD;
  return cores >= MANY_CORES ? POOL_THRESHOLD : FEW_CORES_POOL_THRESHOLD;
}

/** A worker started by {@link prestartAnalysisWorker} that no pool has taken yet. */
let prestarted: { readonly started: HelperWorker; readonly signal: Int32Array } | undefined;

/**
 * Starts the analysis worker ahead of the compile that will use it (the CLI's `compile`, as
 * soon as it knows the compile is cold: before it loads the compile driver), so that the
 * worker loads its modules and TypeScript while the main thread loads the driver and reads the
 * agent; each millisecond the worker is ready earlier is analysis the main thread does not do.
 * The next {@link startAnalysisPool} takes it; {@link discardPrestartedAnalysisWorker} stops it
 * when no pool did. At most one is kept; does nothing when one is waiting already.
 */
export function prestartAnalysisWorker(): void {
  // On fewer cores the worker pays only for a large agent: the pool starts it once it knows.
  if (prestarted || poolThreshold() > POOL_THRESHOLD) return;
  // signal[0] counts the worker's posts.
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const started = startHelperWorker(import.meta.url, "analysis-worker-thread", signal);
  if (started) prestarted = { started, signal };
}

/** Whether a worker {@link prestartAnalysisWorker} started is waiting for a pool (for tests). */
export function analysisWorkerWaiting(): boolean {
  return prestarted !== undefined;
}

/** Stops a worker {@link prestartAnalysisWorker} started that no pool took (a compile that ended early, or warm). */
export function discardPrestartedAnalysisWorker(): void {
  if (!prestarted) return;
  prestarted.started.port.close();
  void prestarted.started.worker.terminate();
  prestarted = undefined;
}

/**
 * Starts the worker (it loads TypeScript at once, while the caller reads the agent), or takes
 * the one {@link prestartAnalysisWorker} started; where the pool needs more folders than
 * {@link POOL_THRESHOLD} ({@link poolThreshold}: fewer than {@link MANY_CORES} cores), the
 * worker is started only by {@link AnalysisPool.assign}, for that many folders. `undefined`
 * when no worker can start (then the caller analyses on its own thread).
 */
export function startAnalysisPool(options: AnalysisPoolOptions = {}): AnalysisPool | undefined {
  const { fallback, changedPlugins = false } = options;
  let mainAnalyses = options.mainAnalyses ?? true;
  const threshold = options.threshold ?? (changedPlugins ? 1 : poolThreshold());
  const taken = prestarted;
  prestarted = undefined;
  // signal[0] counts the worker's posts.
  const signal = taken?.signal ?? new Int32Array(new SharedArrayBuffer(4));
  const start = (): HelperWorker | undefined => startHelperWorker(import.meta.url, "analysis-worker-thread", signal);
  let started = taken?.started ?? (threshold <= POOL_THRESHOLD ? start() : undefined);
  if (!started && threshold <= POOL_THRESHOLD) return undefined;

  const indexOf = new Map<string, number>();
  let dirs: string[] = [];
  let claims: Int32Array | undefined;
  /** Per folder the worker finished: its analyses by `kind\0file\0root`. */
  const received = new Map<number, Map<string, PoolRecord>>();
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    started?.port.close();
    void started?.worker.terminate();
  };
  const drain = (): void => {
    const port = started?.port;
    if (!port) return;
    for (let message = receiveMessageOnPort(port); message; message = receiveMessageOnPort(port)) {
      const [index, records] = message.message as [number, PoolRecord[]];
      received.set(index, new Map(records.map((record) => [recordKey(record[0], record[1], record[2]), record])));
    }
  };
  /** Waits for the worker's next post; false (and the worker is given up) after {@link WAIT_LIMIT_MS} without one. */
  const waitForPost = (seen: number): boolean => {
    if (Atomics.wait(signal, 0, seen, WAIT_LIMIT_MS) !== "timed-out") return true;
    stop();
    return false;
  };
  /** The worker's analyses of folder `index` (waiting for them); `undefined` when it gave up. */
  const resultsOf = (index: number): Map<string, PoolRecord> | undefined => {
    for (;;) {
      const seen = Atomics.load(signal, 0);
      if (!stopped) drain();
      const results = received.get(index);
      if (results || stopped) return results;
      if (!waitForPost(seen)) return undefined;
    }
  };
  // Instead of waiting, the main thread takes the last folder nobody claimed (the worker goes from the first).
  let stealFrom = -1;
  const steal = (): string | undefined => {
    for (; stealFrom >= 0; stealFrom--) {
      if (Atomics.compareExchange(claims!, stealFrom, UNCLAIMED, CLAIMED_BY_MAIN) === UNCLAIMED) return dirs[stealFrom--];
    }
    return undefined;
  };
  const ownerOf = (pluginRoot: string): { index: number; state: number } | undefined => {
    const index = claims ? indexOf.get(pluginRoot) : undefined;
    return index === undefined ? undefined : { index, state: Atomics.load(claims!, index) };
  };

  return {
    changedPlugins,
    assign(pluginDirs, assignOptions) {
      if (claims || stopped) return;
      if (assignOptions?.leaveToWorker === true) mainAnalyses = false;
      dirs = [...new Set(pluginDirs.map((dir) => path.resolve(dir)))];
      if (dirs.length < threshold) {
        stop();
        return;
      }
      started ??= start();
      if (!started) {
        stop();
        return;
      }
      dirs.forEach((dir, index) => indexOf.set(dir, index));
      claims = new Int32Array(new SharedArrayBuffer(4 * dirs.length));
      stealFrom = dirs.length - 1;
      started.worker.postMessage({ dirs, claims });
    },
    prepare(pluginDir, analyzeHere) {
      const owner = ownerOf(path.resolve(pluginDir));
      if (!owner) return;
      for (;;) {
        const seen = Atomics.load(signal, 0);
        // Unclaimed: the worker is behind, this thread analyses the folder when it reads it.
        if (mainAnalyses && Atomics.compareExchange(claims!, owner.index, UNCLAIMED, CLAIMED_BY_MAIN) !== CLAIMED_BY_WORKER) return;
        if (stopped) return;
        drain();
        if (received.has(owner.index)) return;
        const stolen = mainAnalyses ? steal() : undefined;
        if (stolen !== undefined) analyzeHere(stolen);
        else if (!waitForPost(seen)) return;
      }
    },
    find(kind, file, pluginRoot) {
      // The worker's analysis of a folder it claimed first: it read the files as they are now,
      // where the store may hold the last compile's analysis of a file that changed since
      // (which the analyzer would then find stale, and make again on this thread).
      const owner = ownerOf(pluginRoot);
      if (owner?.state === CLAIMED_BY_WORKER) {
        const record = resultsOf(owner.index)?.get(recordKey(kind, file, pluginRoot));
        if (record) return unpackRecord(record[3]);
      }
      return fallback?.find(kind, file, pluginRoot);
    },
    keep(kind, file, pluginRoot, fingerprint, result) {
      fallback?.keep(kind, file, pluginRoot, fingerprint, result);
    },
    // Without a cache behind it the pool keeps nothing: no content hashes are made for it.
    keeps: () => fallback !== undefined && fallback.keeps?.() !== false,
    close: stop,
    workerFolders: () => {
      if (!stopped) drain();
      return received.size;
    },
  };
}

function recordKey(kind: AnalysisKind, file: string, pluginRoot: string): string {
  return `${kind}\0${file}\0${pluginRoot}`;
}
