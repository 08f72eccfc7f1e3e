/**
 * ajv's verdict on the schemas a plugin declares: the meta-schema check of their dialect,
 * then the strict-mode compile (issue 2 item 4: "compiled by ajv in strict mode"). ajv's
 * compile generates and evaluates a validator's code, about 1.5 ms of CPU per schema, so
 * 2,000 inputSchemas cost seconds; the precheck (`schema-precheck.ts`) proves most real
 * schemas acceptable without it (issue 14 item 1), and only the rest go to ajv.
 *
 * A {@link SchemaCompiler} answers "what does ajv say about this schema?". The
 * implementations give the same answers:
 * - {@link inlineSchemaCompiler} judges on the calling thread when asked;
 * - {@link createSchemaCompiler} reuses verdicts from the persistent cache, takes the
 *   precheck's verdict where it has one and, when many schemas need ajv, starts one
 *   `worker_threads` worker that judges those announced while the entries are read, in
 *   order, while the main thread goes on with definition modules. Each schema is claimed
 *   exactly once through shared memory: when the main thread needs a verdict the worker has
 *   not started, it judges that schema itself; when it would have to wait, it takes the last
 *   unclaimed schema of the queue instead. Nothing is judged twice.
 *
 * A verdict is a pure function of the dialect and the schema's JSON text (every compile gets
 * a schema object of its own; a schema with an `$id` gets a fresh ajv instance), so the
 * diagnostics never depend on which thread judged what or in which order. A worker that
 * cannot start, throws or stops answering only makes the main thread judge on its own.
 *
 * The worker pays only for schemas that need ajv: on 2,000 schemas the precheck proves, it
 * added about 0.1 s of CPU and up to 0.3 s of wall time (starting a thread, posting texts)
 * for nothing, so it is not started for them (docs/performance.md has the figures).
 */
import { createHash } from "node:crypto";
import type { SchemaDialect } from "../../contract/ajv.js";
import { ACCEPTED, acceptedWithoutAjv, judgeSchema } from "./schema-judge.js";
import { startWorker, type QueuedJob, type WorkerPool } from "./schema-worker.js";
import type { JsonObject } from "../../common/json-value.js";
import type { MetaSchemaError, SchemaVerdict } from "./schema-verdict.js";

export type { MetaSchemaError, SchemaVerdict };
export { COMPILE_TIME_AJV_OPTIONS, knownFormats, knownKeywords } from "./schema-judge.js";

/** Fewer schemas needing ajv than this are judged inline: starting a worker costs more than it saves. */
export const WORKER_THRESHOLD = 64;

/** One schema to judge, with the dialect its `$schema` selects. */
export interface SchemaCompileJob {
  readonly dialect: SchemaDialect;
  readonly schema: JsonObject;
}

/** Checks schemas against their meta-schema and compiles them with ajv in strict mode. */
export interface SchemaCompiler {
  /** Says which verdicts will be asked for later (a worker may start on them now). */
  announce(jobs: readonly SchemaCompileJob[]): void;
  /** ajv's verdict on `schema` in `dialect`. Never throws. */
  verdict(dialect: SchemaDialect, schema: JsonObject): SchemaVerdict;
  /** Releases the worker, if any. Verdicts asked for afterwards are computed inline. */
  close(): void;
}

/** Verdicts kept between runs (the persistent analysis cache), by {@link verdictKey}. */
export interface VerdictStore {
  get(key: string): SchemaVerdict | undefined;
  set(key: string, verdict: SchemaVerdict): void;
}

/** The compiler that judges every schema on the calling thread, as asked. */
export const inlineSchemaCompiler: SchemaCompiler = {
  announce() {},
  verdict: (dialect, schema) => judgeSchema(dialect, schema),
  close() {},
};

/** The key of a verdict in a {@link VerdictStore}: a hash of the dialect and the schema's JSON text. */
export function verdictKey(dialect: SchemaDialect, text: string): string {
  return createHash("sha256").update(dialect).update("\0").update(text).digest("base64url");
}

/**
 * A compiler for one analysis. Verdicts found in `store` are reused and new ones go to it;
 * identical schemas are judged once. An announced schema the precheck proves acceptable gets
 * its verdict at once, on this thread. Once at least {@link WORKER_THRESHOLD} distinct schemas
 * that need ajv were announced and not found in `store`, it starts a worker thread that
 * judges them in announcement order while the caller goes on; otherwise, or when no worker
 * can start, verdicts are computed inline when asked. Call {@link SchemaCompiler.close} when done.
 */
export function createSchemaCompiler(store?: VerdictStore): SchemaCompiler & { counts(): SchemaCompilerCounts } {
  const counts = { stored: 0, inline: 0, worker: 0 };
  const verdicts = new Map<string, SchemaVerdict>();
  /** Announced schemas without a verdict yet, by key; `id` indexes `queue`. */
  const pending = new Map<string, number>();
  const queue: QueuedJob[] = [];
  let posted = 0;
  let pool: WorkerPool | undefined;
  let poolFailed = false;
  const keyOf = (dialect: SchemaDialect, text: string): string => (store ? verdictKey(dialect, text) : `${dialect}\0${text}`);
  /**
   * The key of each announced schema object, by dialect: validation asks for the verdict on the
   * very objects pass 1 announced, so their JSON text is not written (nor hashed) again.
   * Schemas are plain data no stage changes once analysed.
   */
  const announcedKeys = new WeakMap<JsonObject, Partial<Record<SchemaDialect, string>>>();
  return {
    announce(jobs) {
      for (const job of jobs) {
        const text = JSON.stringify(job.schema);
        const key = keyOf(job.dialect, text);
        const keys = announcedKeys.get(job.schema);
        if (keys) keys[job.dialect] = key;
        else announcedKeys.set(job.schema, { [job.dialect]: key });
        if (verdicts.has(key) || pending.has(key)) continue;
        const stored = store?.get(key);
        if (stored) {
          counts.stored++;
          verdicts.set(key, stored);
        } else if (acceptedWithoutAjv(job.dialect, job.schema)) {
          counts.inline++;
          verdicts.set(key, ACCEPTED);
          store?.set(key, ACCEPTED);
        } else {
          pending.set(key, queue.push({ dialect: job.dialect, text }) - 1);
        }
      }
      if (!pool && !poolFailed && queue.length >= WORKER_THRESHOLD) {
        pool = startWorker({
          judgeHere: judgeSchema,
        });
        poolFailed = pool === undefined;
      }
      if (pool && posted < queue.length) {
        pool.post(queue.slice(posted), posted);
        posted = queue.length;
      }
    },
    verdict(dialect, schema) {
      const key = announcedKeys.get(schema)?.[dialect] ?? keyOf(dialect, JSON.stringify(schema));
      const known = verdicts.get(key);
      if (known) return known;
      const stored = store?.get(key);
      if (stored) {
        counts.stored++;
        verdicts.set(key, stored);
        return stored;
      }
      const id = pending.get(key);
      const judged = pool && id !== undefined && id < posted ? pool.verdict(id, () => judgeSchema(dialect, schema)) : { verdict: judgeSchema(dialect, schema), byWorker: false };
      const verdict = judged.verdict;
      if (judged.byWorker) counts.worker++;
      else counts.inline++;
      verdicts.set(key, verdict);
      store?.set(key, verdict);
      return verdict;
    },
    close() {
      pool?.close();
    },
    counts: () => ({ ...counts, workerBatches: pool?.batchesPosted() ?? 0 }),
  };
}

/** Who produced the verdicts a compiler handed out (for tests and benchmarks). */
export interface SchemaCompilerCounts {
  /** Distinct schemas whose verdict came from the {@link VerdictStore}. */
  readonly stored: number;
  /** Distinct schemas judged on the calling thread. */
  readonly inline: number;
  /** Distinct schemas judged by the worker. */
  readonly worker: number;
  /** Batches of verdicts the worker has posted so far (read from shared memory, claims nothing). */
  readonly workerBatches: number;
}
