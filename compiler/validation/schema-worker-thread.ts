/**
 * The worker thread started by `startWorker` (`schema-worker.ts`): judges the jobs of each
 * posted batch in order with the same {@link judgeSchema} as the main thread, skips those the
 * main thread claimed, and posts `[id, verdict]` pairs in small batches (at once while the main
 * thread waits), bumping `signal[0]` after each post. Runs from `dist/` as this module's `.js`
 * file; under the TypeScript sources it is bundled first (see `schema-worker.ts`).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import type { SchemaDialect } from "../../contract/ajv.js";
import type { JsonObject } from "../../common/json-value.js";
import { judgeSchema } from "./schema-judge.js";
import type { SchemaVerdict } from "./schema-verdict.js";

const { signal, port } = workerData as { readonly signal: Int32Array; readonly port: MessagePort };
let batch: [number, SchemaVerdict | null][] = [];

const flush = (): void => {
  if (batch.length === 0) return;
  port.postMessage(batch);
  batch = [];
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
};

// Warm up while the main thread reads the first packages: the default dialect's instances.
try {
  judgeSchema("2020-12", { type: "object" });
} catch {
  // Judged again (and reported) when a real job needs it.
}

parentPort?.on("message", ({ base, jobs, claims }: { base: number; jobs: { dialect: SchemaDialect; text: string }[]; claims: Int32Array }) => {
  for (let index = 0; index < jobs.length; index++) {
    if (Atomics.compareExchange(claims, index, 0, 1) !== 0) continue; // 1: claimed by the worker
    let verdict: SchemaVerdict | null = null; // null: the main thread judges it itself
    try {
      const job = jobs[index]!;
      verdict = judgeSchema(job.dialect, JSON.parse(job.text) as JsonObject, job.text);
    } catch {
      // The main thread judges it.
    }
    batch.push([base + index, verdict]);
    if (batch.length >= 16 || Atomics.load(signal, 1) !== 0) flush();
  }
  flush();
});
