/**
 * The worker thread of `createSchemaCompiler` (`schema-compiler.ts`) and the main
 * thread's side of it: jobs are posted in batches; each job is claimed exactly once, by the
 * worker (in posting order) or by the main thread (when it needs a verdict the worker has not
 * started, or instead of waiting, from the end of the queue), through shared memory.
 *
 * The worker builds its ajv instances from the options it is given and judges exactly as the
 * main thread's `judgeHere` does, so a verdict never depends on which thread computed it
 * (test/perf-cache/schema-compiler.test.ts compares both).
 */
import { createRequire } from "node:module";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type { Options } from "ajv";
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

/** What the worker needs to judge like the main thread. */
export interface WorkerSettings {
  /** Options of the meta-schema instances. */
  readonly metaOptions: Options;
  /** Options of the compile instances. */
  readonly compileOptions: Options;
  /** {@link DIALECT_URIS} as a plain object (the worker normalises `$schema` like `withCanonicalSchemaUri`). */
  readonly dialectUris: Readonly<Record<string, SchemaDialect>>;
  /** `CANONICAL_SCHEMA_URIS`. */
  readonly canonicalUris: Readonly<Record<SchemaDialect, string>>;
  /** The main thread's judge (for the jobs it claims itself). */
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
  let channel: MessageChannel;
  let worker: Worker;
  try {
    channel = new MessageChannel();
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        modules: ajvModulePaths(),
        metaOptions: settings.metaOptions,
        compileOptions: settings.compileOptions,
        dialectUris: settings.dialectUris,
        canonicalUris: settings.canonicalUris,
        signal,
        port: channel.port2,
      },
      transferList: [channel.port2],
      stdout: true,
      stderr: true,
    });
  } catch {
    return undefined;
  }
  worker.unref();
  // A worker that fails only makes the main thread judge the rest itself.
  worker.on("error", () => {});
  const port: MessagePort = channel.port1;
  port.unref();
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

/** Absolute paths of the ajv modules, so the worker loads exactly what this process uses. */
function ajvModulePaths(): Record<string, string> {
  const require = createRequire(import.meta.url);
  return {
    "draft-07": require.resolve("ajv"),
    "2019-09": require.resolve("ajv/dist/2019.js"),
    "2020-12": require.resolve("ajv/dist/2020.js"),
    formats: require.resolve("ajv-formats"),
  };
}

/**
 * The worker (CommonJS, evaluated from this string so it also runs from the TypeScript
 * sources under test). It builds the same instances as `createAjv` with the options it is
 * given (a fresh one for a schema with an `$id`, as `judgeHere` does), judges the jobs of each
 * posted batch in order, skips those the main thread claimed, and posts `[id, verdict]` pairs
 * in small batches (at once while the main thread waits), bumping `signal[0]` after each post.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { modules, metaOptions, compileOptions, dialectUris, canonicalUris, signal, port } = workerData;
const classOf = (file) => { const m = require(file); return m.default ?? m; };
const addFormats = classOf(modules.formats);
const create = (dialect, options) => {
  const Ajv = classOf(modules[dialect]);
  const ajv = new Ajv(options);
  addFormats(ajv);
  return ajv;
};
const metaInstances = new Map();
const compileInstances = new Map();
const shared = (instances, dialect, options) => {
  if (!instances.has(dialect)) instances.set(dialect, create(dialect, options));
  return instances.get(dialect);
};
const canonical = (schema, dialect) => {
  const uri = schema.$schema;
  if (typeof uri !== "string" || uri === canonicalUris[dialect] || !Object.hasOwn(dialectUris, uri.replace(/#$/, "")) || dialectUris[uri.replace(/#$/, "")] !== dialect) return schema;
  return { ...schema, $schema: canonicalUris[dialect] };
};
const messageOf = (error) => (error instanceof Error ? error.message : String(error));
const judge = (dialect, text) => {
  const schema = canonical(JSON.parse(text), dialect);
  try {
    const meta = shared(metaInstances, dialect, metaOptions);
    if (!meta.validateSchema(schema)) {
      const metaErrors = (meta.errors ?? []).map((e) => ({
        instancePath: e.instancePath,
        keyword: e.keyword,
        message: e.message,
        allowedValues: Array.isArray(e.params && e.params.allowedValues) ? e.params.allowedValues : undefined,
      }));
      return { metaErrors, compileError: null };
    }
  } catch (error) {
    return { metaErrors: null, compileError: messageOf(error) };
  }
  const fresh = text.includes('"$id"');
  const ajv = fresh ? create(dialect, compileOptions) : shared(compileInstances, dialect, compileOptions);
  try {
    ajv.compile(schema);
    return { metaErrors: null, compileError: null };
  } catch (error) {
    return { metaErrors: null, compileError: messageOf(error) };
  } finally {
    if (!fresh) {
      ajv.removeSchema(schema);
      ajv.removeSchema("");
    }
  }
};
let batch = [];
const flush = () => {
  if (batch.length === 0) return;
  port.postMessage(batch);
  batch = [];
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
};
// Warm up while the main thread reads the first packages: the default dialect's instances
// and its meta-schema's validator.
try { shared(metaInstances, "2020-12", metaOptions).validateSchema({ type: "object" }); shared(compileInstances, "2020-12", compileOptions); } catch {}
parentPort.on("message", ({ base, jobs, claims }) => {
  for (let index = 0; index < jobs.length; index++) {
    if (Atomics.compareExchange(claims, index, 0, 1) !== 0) continue; // 1: claimed by the worker
    let verdict = null; // null: the main thread judges it itself
    try {
      verdict = judge(jobs[index].dialect, jobs[index].text);
    } catch {}
    batch.push([base + index, verdict]);
    if (batch.length >= 16 || Atomics.load(signal, 1) !== 0) flush();
  }
  flush();
});
`;
