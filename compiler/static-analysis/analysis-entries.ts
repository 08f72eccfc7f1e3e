/**
 * The entries' analyses of the analysis cache, in a file of their own:
 * `<root>/.assemblyline/cache/analysis-entries.bin` (issue 14 item 4; docs/caches.md, "The
 * entries' analyses"). Of the benchmark agent's 7.85 MB `analysis.bin`, 3.5 MB were the entry
 * modules' analyses, which a compile after a one-file change read and hashed but never
 * deserialized (a reused plugin's record carries its entry's outline). `analysis.bin` now holds,
 * in place of each such record's bytes, a reference ({@link EntryRef}: where the bytes are in this
 * file, their length and their SHA-256), and this file is read a record at a time, when an
 * analysis is asked for.
 *
 * Correctness: the reference is the proof. A record's bytes are read at their offset and used
 * only when their SHA-256 is the one `analysis.bin`'s sealed state recorded; anything else (the
 * file missing, replaced by another compile's, truncated, altered, a torn append) reads as
 * nothing, a miss. The file is a format line followed by records' bytes; new records are
 * appended at its end (a positional write at the size seen, never over bytes a reference may
 * name), and the whole file is written anew, atomically, when `analysis.bin` is.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import type { WriteRefusal } from "../../common/confined-write.js";
import { RecordFile } from "../../common/record-file.js";

/** Where the entries' analyses live, relative to the agent root. */
export const ANALYSIS_ENTRIES_FILE = path.join(".assemblyline", "cache", "analysis-entries.bin");

/** First bytes of an entries file of this format (then records' bytes, back to back). */
export const ANALYSIS_ENTRIES_MAGIC = Buffer.from("assembly-line analysis entries 1\n", "utf8");

/** Where a record's bytes are in the entries file: offset, length and their SHA-256 (32 bytes). */
export interface EntryRef {
  readonly at: number;
  readonly length: number;
  readonly digest: Uint8Array;
}

/** Whether `value` has an {@link EntryRef}'s shape (as deserialized from `analysis.bin`). */
export function isEntryRef(value: unknown): value is EntryRef {
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return false;
  const { at, length, digest } = value as Record<string, unknown>;
  return Number.isSafeInteger(at) && (at as number) >= ANALYSIS_ENTRIES_MAGIC.length && Number.isSafeInteger(length) && (length as number) >= 0 && digest instanceof Uint8Array && digest.length === 32;
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest();
}

/**
 * The entries file of one agent root, read lazily: {@link read} reads one record's bytes at a
 * time (or, after {@link readAll}, takes them from the whole file read once). The file's
 * mechanics are `common/record-file.ts`'s; the SHA-256 proof is this module's.
 */
export class EntriesFile {
  readonly #records: RecordFile;

  constructor(root: string, file = path.join(root, ANALYSIS_ENTRIES_FILE)) {
    this.#records = new RecordFile(root, file, ANALYSIS_ENTRIES_MAGIC);
  }

  /** The bytes `ref` names when the file holds them with that SHA-256; else `undefined` (a miss). Never throws. */
  read(ref: EntryRef): Uint8Array | undefined {
    const bytes = this.#records.range(ref.at, ref.length);
    return bytes && sha256(bytes).equals(ref.digest) ? bytes : undefined;
  }

  /** Reads the whole file once, for a save that writes every record anew (later {@link read}s use it). */
  readAll(): void {
    this.#records.readAll();
  }

  /** The file's size now (what {@link append} would write after); `undefined` when it is not there or no regular file. */
  size(): number | undefined {
    return this.#records.size();
  }

  /**
   * Appends `records` (bytes each) at the end of the file, when it is there, is ours to write
   * (`checkWriteTarget`: confined to the root, no link, one hard link) and starts with the
   * format line; one positional write at the size seen, without `fsync` (a torn append leaves
   * bytes whose digest does not match: a miss). Returns a reference per record, or `undefined`
   * when nothing was appended (the caller keeps the bytes in `analysis.bin`). Never throws.
   */
  append(records: readonly Uint8Array[]): { readonly refs?: EntryRef[]; readonly refusal?: WriteRefusal } {
    const { at, refusal } = this.#records.append(records);
    if (at === undefined) return refusal ? { refusal } : {};
    return { refs: records.map((bytes, i) => ({ at: at[i]!, length: bytes.byteLength, digest: sha256(bytes) })) };
  }

  /**
   * Writes a new entries file holding `records`, atomically and confined to the root
   * (`writeFileConfined`, without `fsync`). Returns a reference per record and the file's size,
   * or `undefined` when it was not written (`refusal` when refused). Never throws.
   */
  writeAll(records: readonly Uint8Array[]): { readonly refs?: EntryRef[]; readonly size?: number; readonly refusal?: WriteRefusal } {
    const { at, size, refusal } = this.#records.writeAll(records);
    if (at === undefined) return refusal ? { refusal } : {};
    return { refs: records.map((bytes, i) => ({ at: at[i]!, length: bytes.byteLength, digest: sha256(bytes) })), size: size! };
  }
}
