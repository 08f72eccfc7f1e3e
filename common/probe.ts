/**
 * The shape of one probe of the file system and its answer (the inputs record, the compile
 * record and the front end's plugin reuse; see `./probes.ts`, which asks and compares them).
 * A module of its own, without imports, so that `host.ts` can name it.
 */

/** What `stat` said about a file that was read. */
export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

/**
 * What a probe records of a `stat` (an `fs.Stats`, or anything with its four fields): the one
 * place that picks them (the disk host's reads, `./host.ts`; `statOf`, `./probes.ts`; the compile
 * record's own reads, `cli/compile-record.ts`). The read-ahead's worker, evaluated source that
 * imports nothing of ours, picks the same four (`./read-ahead.ts`).
 */
export function fileStatOf(stat: FileStat): FileStat {
  return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
}

/**
 * One probe and its answer: `read` (text) and `bytes` carry a content digest ("file:<sha256>")
 * or the kind of non-file they met, plus the file's `stat` when it was a file; `list` carries a
 * digest of the listing (or `null`: not a directory); `real` the resolved path (or `null`);
 * `kind` the kind.
 */
export type Probe =
  | { readonly op: "read" | "bytes"; readonly path: string; readonly answer: string; readonly stat?: FileStat }
  | { readonly op: "list" | "real" | "kind"; readonly path: string; readonly answer: string | null };

/**
 * Probes as stored in the binary records (the plugin records of the analysis cache,
 * `compiler/static-analysis/analysis-cache.ts`, and the compile record, `cli/compile-record.ts`):
 * one array per field and the `stat`s as numbers, instead of two objects per probe. `v8.serialize`
 * writes every key of every object, so the objects cost about as much as everything else in a
 * plugin record (issue 14 item 1; docs/performance.md, "Fourteenth round"). Made by
 * {@link packProbes}, undone by {@link unpackProbes}.
 */
export interface PackedProbes {
  /** Each probe's operation, as its index in {@link PROBE_OPS}. */
  readonly ops: Uint8Array;
  readonly paths: readonly string[];
  readonly answers: readonly (string | null)[];
  /** Four numbers per probe (size, mtimeMs, ctimeMs, ino); `NaN` in the first for a probe without a `stat`. */
  readonly stats: Float64Array;
}

/** The operations of {@link Probe}, in the order {@link PackedProbes.ops} numbers them. */
export const PROBE_OPS = ["read", "bytes", "list", "real", "kind"] as const;

/** `probes` as {@link PackedProbes}. */
export function packProbes(probes: readonly Probe[]): PackedProbes {
  const ops = new Uint8Array(probes.length);
  const paths: string[] = new Array(probes.length);
  const answers: (string | null)[] = new Array(probes.length);
  const stats = new Float64Array(probes.length * 4);
  probes.forEach((probe, i) => {
    ops[i] = PROBE_OPS.indexOf(probe.op);
    paths[i] = probe.path;
    answers[i] = probe.answer;
    const stat = "stat" in probe ? probe.stat : undefined;
    if (stat === undefined) stats[i * 4] = Number.NaN;
    else {
      stats[i * 4] = stat.size;
      stats[i * 4 + 1] = stat.mtimeMs;
      stats[i * 4 + 2] = stat.ctimeMs;
      stats[i * 4 + 3] = stat.ino;
    }
  });
  return { ops, paths, answers, stats };
}

/**
 * The probes {@link packProbes} packed, equal to the originals (key order included); `undefined`
 * when `packed` is not of that shape (a record that reads as a miss, never a crash).
 */
export function unpackProbes(packed: unknown): Probe[] | undefined {
  const arrays = packedArrays(packed);
  if (arrays === undefined) return undefined;
  const n = arrays.ops.length;
  const probes: Probe[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const probe = probeAt(arrays, i);
    if (probe === undefined) return undefined;
    probes[i] = probe;
  }
  return probes;
}

/**
 * Of the probes {@link packProbes} packed, the file read (`read` or `bytes` with a `stat`) with the
 * latest recorded modification time, without unpacking the others: the compile record's check
 * asks it first, and after the file being worked on was edited again that one `stat` ends the
 * check (docs/performance.md, "Incremental compiles with packaging", ninth round). `undefined`
 * when there is none or `packed` is not of {@link PackedProbes}' shape.
 */
export function newestFileProbe(packed: unknown): Probe | undefined {
  const arrays = packedArrays(packed);
  if (arrays === undefined) return undefined;
  const { ops, stats } = arrays;
  let newest = -1;
  for (let i = 0; i < ops.length; i++) {
    // ops 0 and 1 are `read` and `bytes` (PROBE_OPS); a NaN size is a probe without a `stat`.
    if (ops[i]! > 1 || Number.isNaN(stats[i * 4])) continue;
    if (newest === -1 || stats[i * 4 + 1]! > stats[newest * 4 + 1]!) newest = i;
  }
  return newest === -1 ? undefined : probeAt(arrays, newest);
}

/** {@link PackedProbes} when `packed` has its shape (typed arrays, arrays of one length); else `undefined`. */
function packedArrays(packed: unknown): { readonly ops: Uint8Array; readonly paths: readonly unknown[]; readonly answers: readonly unknown[]; readonly stats: Float64Array } | undefined {
  if (typeof packed !== "object" || packed === null) return undefined;
  const { ops, paths, answers, stats } = packed as Record<string, unknown>;
  if (!(ops instanceof Uint8Array) || !Array.isArray(paths) || !Array.isArray(answers) || !(stats instanceof Float64Array)) return undefined;
  const n = ops.length;
  if (paths.length !== n || answers.length !== n || stats.length !== n * 4) return undefined;
  return { ops, paths, answers, stats };
}

/** The `i`th packed probe; `undefined` when it is not of a probe's shape. */
function probeAt(arrays: NonNullable<ReturnType<typeof packedArrays>>, i: number): Probe | undefined {
  const { ops, paths, answers, stats } = arrays;
  const op = PROBE_OPS[ops[i]!];
  const path: unknown = paths[i];
  const answer: unknown = answers[i];
  if (op === undefined || typeof path !== "string" || (answer !== null && typeof answer !== "string")) return undefined;
  const at = i * 4;
  if (op === "read" || op === "bytes") {
    if (answer === null) return undefined;
    return Number.isNaN(stats[at]) ? { op, path, answer } : { op, path, answer, stat: { size: stats[at]!, mtimeMs: stats[at + 1]!, ctimeMs: stats[at + 2]!, ino: stats[at + 3]! } };
  }
  return { op, path, answer };
}
