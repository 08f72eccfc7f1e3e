/**
 * ajv's verdict on the schemas a plugin declares: the meta-schema check of their dialect,
 * then the strict-mode compile (issue 2 item 4: "compiled by ajv in strict mode"). It is the
 * most expensive check of a compile, about half a millisecond per schema, so 2,000
 * inputSchemas cost a second.
 *
 * A {@link SchemaCompiler} answers "what does ajv say about this schema?". The
 * implementations give the same answers:
 * - {@link inlineSchemaCompiler} judges on the calling thread when asked;
 * - {@link createSchemaCompiler} reuses verdicts from the persistent cache and, for many
 *   schemas, starts one `worker_threads` worker that judges the schemas announced while the
 *   entries are read, in order, while the main thread goes on with definition modules. Each
 *   schema is claimed exactly once through shared memory: when the main thread needs a
 *   verdict the worker has not started, it judges that schema itself; when it would have to
 *   wait, it takes the last unclaimed schema of the queue instead. Nothing is judged twice.
 *
 * A verdict is a pure function of the dialect and the schema's JSON text (every compile gets
 * a schema object of its own; a schema with an `$id` gets a fresh ajv instance), so the
 * diagnostics never depend on which thread judged what or in which order. A worker that
 * cannot start, throws or stops answering only makes the main thread judge on its own.
 */
import { createHash } from "node:crypto";
import type { ErrorObject, Options } from "ajv";
import { CANONICAL_SCHEMA_URIS, createAjv, DIALECT_URIS, withCanonicalSchemaUri, type AjvInstance, type SchemaDialect } from "../../contract/ajv.js";
import { withoutVendorKeywords } from "./vendor-keywords.js";
import { startWorker, type QueuedJob, type WorkerPool } from "./schema-worker.js";
import type { JsonObject } from "../../common/json-value.js";
import type { MetaSchemaError, SchemaVerdict } from "./schema-verdict.js";

export type { MetaSchemaError, SchemaVerdict };

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

/**
 * The options of every compile-time ajv instance: strict mode, union types allowed
 * (`type: ["string", "null"]` is plain JSON Schema), all errors, nothing added to the instance
 * by a compile, no code optimisation (we only need to know the schema compiles; the runtime
 * compiles its own optimised validators).
 */
export const COMPILE_TIME_AJV_OPTIONS: Options = { strict: true, allowUnionTypes: true, allErrors: true, addUsedSchema: false, code: { optimize: false } };

/**
 * Options of the instances that only compile: the schema was validated against its
 * meta-schema (with {@link COMPILE_TIME_AJV_OPTIONS}) first, so the compile does not do it again.
 * `addUsedSchema` is on because ajv resolves a `$ref: "#"` (a recursive schema) only through
 * the schema it registered under `""`; {@link judgeHere} removes it again after each compile.
 */
const COMPILE_ONLY_OPTIONS: Options = { ...COMPILE_TIME_AJV_OPTIONS, validateSchema: false, addUsedSchema: true };

/** Fewer schemas than this are judged inline: starting a worker costs more than it saves. */
export const WORKER_THRESHOLD = 64;

const metaInstances = new Map<SchemaDialect, AjvInstance>();
const compileInstances = new Map<SchemaDialect, AjvInstance>();

/** How `$id` appears in a schema's JSON text (a property named `$id` matches too: harmless). */
const ID_KEY = '"$id"';

function sharedInstance(instances: Map<SchemaDialect, AjvInstance>, dialect: SchemaDialect, options: Options): AjvInstance {
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = createAjv(dialect, options);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** The keywords ajv knows for `dialect` (what strict mode accepts), by name. */
export function knownKeywords(dialect: SchemaDialect): Readonly<Record<string, unknown>> {
  const ajv = sharedInstance(metaInstances, dialect, COMPILE_TIME_AJV_OPTIONS);
  return (ajv as unknown as { RULES: { keywords: Record<string, unknown> } }).RULES.keywords;
}

/**
 * Judges `schema` on this thread: meta-schema check with the shared instance of `dialect`,
 * then (when valid) the strict compile. A schema that declares an `$id` anywhere is compiled
 * by a fresh instance: ajv remembers nested `$id`s in the instance, and one plugin's schema
 * must not change how another's compiles. A root `$schema` that names `dialect` in another
 * spelling is read as the canonical one (ajv resolves only that). Never throws: whatever ajv
 * throws becomes `compileError`. Vendor keywords (`x-…`) are removed first: they are annotations,
 * and strict mode would refuse them (`vendor-keywords.ts`).
 */
function judgeHere(dialect: SchemaDialect, written: JsonObject, text = JSON.stringify(written)): SchemaVerdict {
  const schema = withCanonicalSchemaUri(withoutVendorKeywords(written, dialect), dialect);
  try {
    const meta = sharedInstance(metaInstances, dialect, COMPILE_TIME_AJV_OPTIONS);
    if (!meta.validateSchema(schema)) return { metaErrors: (meta.errors ?? []).map(toMetaSchemaError), compileError: null };
  } catch (error) {
    return { metaErrors: null, compileError: messageOf(error) };
  }
  const fresh = text.includes(ID_KEY);
  const ajv = fresh ? createAjv(dialect, COMPILE_ONLY_OPTIONS) : sharedInstance(compileInstances, dialect, COMPILE_ONLY_OPTIONS);
  try {
    ajv.compile(schema);
    return { metaErrors: null, compileError: null };
  } catch (error) {
    return { metaErrors: null, compileError: messageOf(error) };
  } finally {
    // The shared instance would keep every compiled schema; without an `$id` this drops it
    // from ajv's cache and from the `""` key `addUsedSchema` registered it under.
    if (!fresh) {
      ajv.removeSchema(schema);
      ajv.removeSchema("");
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function toMetaSchemaError(error: ErrorObject): MetaSchemaError {
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  return { instancePath: error.instancePath, keyword: error.keyword, message: error.message, allowedValues: Array.isArray(allowed) ? allowed : undefined };
}

/** The compiler that judges every schema on the calling thread, as asked. */
export const inlineSchemaCompiler: SchemaCompiler = {
  announce() {},
  verdict: (dialect, schema) => judgeHere(dialect, schema),
  close() {},
};

/** The key of a verdict in a {@link VerdictStore}: a hash of the dialect and the schema's JSON text. */
export function verdictKey(dialect: SchemaDialect, text: string): string {
  return createHash("sha256").update(dialect).update("\0").update(text).digest("base64url");
}

/**
 * A compiler for one analysis. Verdicts found in `store` are reused and new ones go to it;
 * identical schemas are judged once. Once at least {@link WORKER_THRESHOLD} distinct schemas
 * were announced and not found in `store`, it starts a worker thread that judges announced
 * schemas in announcement order while the caller goes on; otherwise, or when no worker can
 * start, verdicts are computed inline when asked. Call {@link SchemaCompiler.close} when done.
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
  return {
    announce(jobs) {
      for (const job of jobs) {
        const text = JSON.stringify(job.schema);
        const key = keyOf(job.dialect, text);
        if (verdicts.has(key) || pending.has(key)) continue;
        const stored = store?.get(key);
        if (stored) {
          counts.stored++;
          verdicts.set(key, stored);
        } else {
          // The worker judges the text ajv should see: without vendor keywords, as judgeHere does.
          const judged = withoutVendorKeywords(job.schema, job.dialect);
          pending.set(key, queue.push({ dialect: job.dialect, text: judged === job.schema ? text : JSON.stringify(judged) }) - 1);
        }
      }
      if (!pool && !poolFailed && queue.length >= WORKER_THRESHOLD) {
        pool = startWorker({
          metaOptions: COMPILE_TIME_AJV_OPTIONS,
          compileOptions: COMPILE_ONLY_OPTIONS,
          dialectUris: Object.fromEntries(DIALECT_URIS),
          canonicalUris: CANONICAL_SCHEMA_URIS,
          judgeHere,
        });
        poolFailed = pool === undefined;
      }
      if (pool && posted < queue.length) {
        pool.post(queue.slice(posted), posted);
        posted = queue.length;
      }
    },
    verdict(dialect, schema) {
      const text = JSON.stringify(schema);
      const key = keyOf(dialect, text);
      const known = verdicts.get(key);
      if (known) return known;
      const stored = store?.get(key);
      if (stored) {
        counts.stored++;
        verdicts.set(key, stored);
        return stored;
      }
      const id = pending.get(key);
      const judged = pool && id !== undefined && id < posted ? pool.verdict(id, () => judgeHere(dialect, schema, text)) : { verdict: judgeHere(dialect, schema, text), byWorker: false };
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
