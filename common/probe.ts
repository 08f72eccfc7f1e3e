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
 * One probe and its answer: `read` (text) and `bytes` carry a content digest ("file:<sha256>")
 * or the kind of non-file they met, plus the file's `stat` when it was a file; `list` carries a
 * digest of the listing (or `null`: not a directory); `real` the resolved path (or `null`);
 * `kind` the kind.
 */
export type Probe =
  | { readonly op: "read" | "bytes"; readonly path: string; readonly answer: string; readonly stat?: FileStat }
  | { readonly op: "list" | "real" | "kind"; readonly path: string; readonly answer: string | null };
