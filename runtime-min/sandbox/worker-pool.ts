/**
 * Warm sandbox processes, one per run and bundle (issue 4 item 4: "Keep the sandbox warm").
 *
 * Keying by run as well as bundle keeps runs apart: a child's cwd, HOME and only writable
 * directory are its run's workspace, and no module state leaks from one run into another.
 * A dead worker is dropped and the next call starts a fresh one. Idle workers beyond
 * `maxWorkers` are closed, least recently used first.
 */
import { SandboxWorker, type WorkerOptions } from "./sandbox-worker.js";

/** What identifies a warm worker. */
export interface WorkerKey {
  readonly runId: string;
  readonly bundlePath: string;
}

/** A pool of {@link SandboxWorker}s. */
export class WorkerPool {
  private readonly workers = new Map<string, Promise<SandboxWorker>>();
  /** The started worker of each entry of `workers` (for the synchronous {@link warm} lookup). */
  private readonly started = new Map<string, SandboxWorker>();
  private closed = false;
  /** The key {@link warm} last moved to the end of `workers` (the most recently used), if still there. */
  private mostRecent: string | undefined;
  /** The key {@link idOf} was last asked for, and its id. */
  private lastKey: { readonly runId: string; readonly bundlePath: string; readonly id: string } | undefined;

  constructor(private readonly maxWorkers: number) {}

  /**
   * The map key of `key`, built once for a run of calls with the same key (issue 14 item 2: every
   * call of a run asks for the same worker, and building and hashing the key string twice per
   * call showed in the host's profile).
   */
  private idOf(key: WorkerKey): string {
    const last = this.lastKey;
    if (last && last.bundlePath === key.bundlePath && last.runId === key.runId) return last.id;
    const id = workerId(key);
    this.lastKey = { runId: key.runId, bundlePath: key.bundlePath, id };
    return id;
  }

  /**
   * The live warm worker of `key`, without waiting, or `undefined` (none yet, still starting,
   * or dead): the hot path of a call. Marks it most recently used.
   */
  warm(key: WorkerKey): SandboxWorker | undefined {
    if (this.closed) return undefined;
    const id = this.idOf(key);
    const worker = this.started.get(id);
    if (!worker?.alive) return undefined;
    // Already the most recently used (every call of a run in a row): the order stands.
    if (this.mostRecent === id) return worker;
    const entry = this.workers.get(id);
    if (entry) {
      this.workers.delete(id);
      this.workers.set(id, entry);
      this.mostRecent = id;
    }
    return worker;
  }

  /**
   * Returns the warm worker of `key`, starting one with `options()` when there is none or the
   * previous one died. Options given at once (not a promise) spawn the child before this returns
   * its promise, in the caller's turn, so the child boots while the caller goes on (issue 14
   * item 3). Rejects when the child cannot start or `options` throws.
   */
  async acquire(key: WorkerKey, options: () => WorkerOptions | Promise<WorkerOptions>): Promise<SandboxWorker> {
    if (this.closed) throw new Error("The runtime is closed.");
    const id = this.idOf(key);
    for (;;) {
      const existing = this.workers.get(id);
      if (!existing) break;
      const worker = await existing.catch(() => undefined);
      if (worker?.alive) {
        // Re-insert to mark it most recently used (Map iteration order is insertion order).
        if (this.workers.get(id) === existing) {
          this.workers.delete(id);
          this.workers.set(id, existing);
          this.mostRecent = id;
        }
        return worker;
      }
      // Dead or failed to start: replace it, unless another caller already did.
      if (this.workers.get(id) === existing) {
        this.workers.delete(id);
        this.started.delete(id);
        break;
      }
    }
    const resolved = options();
    const starting = resolved instanceof Promise ? resolved.then((known) => SandboxWorker.start(known)) : SandboxWorker.start(resolved);
    this.workers.set(id, starting);
    this.mostRecent = id;
    starting.then(
      (worker) => {
        if (this.workers.get(id) === starting) this.started.set(id, worker);
      },
      () => {
        if (this.workers.get(id) === starting) this.workers.delete(id);
      },
    );
    const worker = await starting;
    await this.evictIdle();
    return worker;
  }

  /** The live workers of a run (for cancellation and deadlines, which kill them). */
  async workersOf(runId: string): Promise<SandboxWorker[]> {
    const found: SandboxWorker[] = [];
    for (const [id, promise] of this.workers) {
      if (!id.startsWith(`${runId}\u0000`)) continue;
      const worker = await promise.catch(() => undefined);
      if (worker?.alive) found.push(worker);
    }
    return found;
  }

  /** Closes every worker (their children exit) and refuses further acquisitions. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.workers.values()];
    this.workers.clear();
    this.started.clear();
    await Promise.all(all.map(async (promise) => (await promise.catch(() => undefined))?.close()));
  }

  private async evictIdle(): Promise<void> {
    if (this.workers.size <= this.maxWorkers) return;
    for (const [id, promise] of this.workers) {
      if (this.workers.size <= this.maxWorkers) break;
      const worker = await promise.catch(() => undefined);
      if (worker && worker.busy > 0) continue;
      this.workers.delete(id);
      this.started.delete(id);
      await worker?.close();
    }
  }
}

/** Map key of a worker: run id and bundle path (a run id never contains NUL). */
/** The pool's map key of a worker key. */
function workerId(key: WorkerKey): string {
  return `${key.runId}\u0000${key.bundlePath}`;
}
