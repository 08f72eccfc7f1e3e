/**
 * The worker thread of `createSchemaCompiler` (`schema-compiler.ts`) and the main
 * thread's side of it: jobs are posted in batches; each job is claimed exactly once, by the
 * worker (in posting order) or by the main thread (when it needs a verdict the worker has not
 * started, or instead of waiting, from the end of the queue), through shared memory.
 *
 * The worker (`schema-worker-thread.ts`) imports the same `judgeSchema` (`schema-judge.ts`) as
 * the main thread, so a verdict never depends on which thread computed it
 * (test/perf-cache/schema-compiler.test.ts compares both).
 */
import { receiveMessageOnPort } from "node:worker_threads";
import { startHelperWorker } from "../helper-worker.js";
import type { SchemaDialect } from "../../contract/ajv.js";
import type { SchemaVerdict } from "./schema-verdict.js";
import type { JsonObject } from "../../common/json-value.js";

/** How long the main thread waits for a verdict the worker claimed before computing it itself. */
const WAIT_LIMIT_MS = 2_000;

/** A schema waiting for its verdict, as the worker receives it. */
export interface QueuedJob {
  readonly dialect: SchemaDialect;
  readonly text: string;
}

/** The main thread's side of the worker: posts jobs; claims, waits for and receives verdicts by id. */
export interface WorkerPool {
  /** Hands `jobs` (ids `base`, `base + 1`, …, after every id posted before) to the worker. */
  post(jobs: readonly QueuedJob[], base: number): void;
  /** The verdict of job `id`, and whether the worker (not this thread) judged it. */
  verdict(id: number, judgeInline: () => SchemaVerdict): { readonly verdict: SchemaVerdict; readonly byWorker: boolean };
  /** How many batches of verdicts the worker has posted. */
  batchesPosted(): number;
  close(): void;
}

/** Claim states of a job in shared memory (one `Int32Array` per posted batch). */
const UNCLAIMED = 0;
const CLAIMED_BY_WORKER = 1;
const CLAIMED_BY_MAIN = 2;

/** What the main thread's side of the worker needs. */
export interface WorkerSettings {
  /** The main thread's judge (for the jobs it claims itself): `judgeSchema`, as in the worker. */
  readonly judgeHere: (dialect: SchemaDialect, schema: JsonObject, text: string) => SchemaVerdict;
}

/** Starts the worker; `undefined` when no worker can start (then everything is judged inline). */
export function startWorker(settings: WorkerSettings): WorkerPool | undefined {
  // signal[0] counts the worker's posts; signal[1] is 1 while the main thread waits.
  const signal = new Int32Array(new SharedArrayBuffer(8));
  /** Verdicts the worker posted (`null`: it could not judge) or this thread stole. */
  const results = new Map<number, { readonly verdict: SchemaVerdict | null; readonly byWorker: boolean }>();
  const jobs: QueuedJob[] = [];
  /** Per posted job: the claims array of its batch and its index there. */
  const slots: { readonly claims: Int32Array; readonly index: number }[] = [];
  const started = startHelperWorker(import.meta.url, "schema-worker-thread", signal);
  if (!started) return undefined;
  const { worker, port } = started;
  const claim = (id: number): number => Atomics.compareExchange(slots[id]!.claims, slots[id]!.index, UNCLAIMED, CLAIMED_BY_MAIN);
  const drain = (): void => {
    for (let message = receiveMessageOnPort(port); message; message = receiveMessageOnPort(port)) {
      for (const [id, verdict] of message.message as [number, SchemaVerdict | null][]) results.set(id, { verdict, byWorker: true });
    }
  };
  // Instead of waiting, the main thread judges the last job nobody claimed yet (the worker
  // goes from the first): both threads stay busy until the queue is empty.
  let stealFrom = -1;
  const steal = (): boolean => {
    while (stealFrom >= 0) {
      const id = stealFrom--;
      const state = claim(id);
      // The worker claims in order: below a job it claimed, nothing is left.
      if (state === CLAIMED_BY_WORKER) break;
      if (state === UNCLAIMED) {
        const job = jobs[id]!;
        results.set(id, { verdict: settings.judgeHere(job.dialect, JSON.parse(job.text) as JsonObject, job.text), byWorker: false });
        return true;
      }
    }
    stealFrom = -1;
    return false;
  };
  return {
    post(batch, base) {
      const claims = new Int32Array(new SharedArrayBuffer(4 * batch.length));
      batch.forEach((job, index) => {
        jobs[base + index] = job;
        slots[base + index] = { claims, index };
      });
      stealFrom = jobs.length - 1;
      worker.postMessage({ base, jobs: batch, claims });
    },
    verdict(id, judgeInline) {
      const inline = () => ({ verdict: judgeInline(), byWorker: false });
      if (claim(id) === UNCLAIMED) return inline();
      for (;;) {
        const seen = Atomics.load(signal, 0);
        drain();
        const result = results.get(id);
        if (result) return result.verdict ? { verdict: result.verdict, byWorker: result.byWorker } : inline();
        if (steal()) continue;
        Atomics.store(signal, 1, 1);
        const waited = Atomics.wait(signal, 0, seen, WAIT_LIMIT_MS);
        Atomics.store(signal, 1, 0);
        if (waited === "timed-out") return inline();
      }
    },
    batchesPosted: () => Atomics.load(signal, 0),
    close() {
      port.close();
      void worker.terminate();
    },
  };
}

