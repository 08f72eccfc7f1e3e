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
import * as fs from "node:fs";
import * as path from "node:path";
import { checkWriteTarget, writeFileConfined, type WriteRefusal } from "../../common/confined-write.js";

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
 * time (or, after {@link readAll}, takes them from the whole file read once).
 */
export class EntriesFile {
  readonly #root: string;
  readonly #file: string;
  #whole: Buffer | null | undefined;

  constructor(root: string, file = path.join(root, ANALYSIS_ENTRIES_FILE)) {
    this.#root = root;
    this.#file = file;
  }

  /** The bytes `ref` names when the file holds them with that SHA-256; else `undefined` (a miss). Never throws. */
  read(ref: EntryRef): Uint8Array | undefined {
    let bytes: Uint8Array | undefined;
    if (this.#whole !== undefined) bytes = this.#whole && ref.at + ref.length <= this.#whole.length ? this.#whole.subarray(ref.at, ref.at + ref.length) : undefined;
    else bytes = this.#readRange(ref);
    return bytes && sha256(bytes).equals(ref.digest) ? bytes : undefined;
  }

  /** Reads the whole file once, for a save that writes every record anew (later {@link read}s use it). */
  readAll(): void {
    if (this.#whole !== undefined) return;
    try {
      const fd = fs.openSync(this.#file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        this.#whole = fs.fstatSync(fd).isFile() ? fs.readFileSync(fd) : null;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      this.#whole = null;
    }
    if (this.#whole && !this.#whole.subarray(0, ANALYSIS_ENTRIES_MAGIC.length).equals(ANALYSIS_ENTRIES_MAGIC)) this.#whole = null;
  }

  #readRange(ref: EntryRef): Uint8Array | undefined {
    try {
      const fd = fs.openSync(this.#file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        if (!fs.fstatSync(fd).isFile()) return undefined;
        const bytes = Buffer.allocUnsafe(ref.length);
        let done = 0;
        while (done < ref.length) {
          const n = fs.readSync(fd, bytes, done, ref.length - done, ref.at + done);
          if (n === 0) return undefined;
          done += n;
        }
        return bytes;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }

  /** The file's size now (what {@link append} would write after); `undefined` when it is not there or no regular file. */
  size(): number | undefined {
    try {
      const stat = fs.lstatSync(this.#file);
      return stat.isFile() ? stat.size : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Appends `records` (bytes each) at the end of the file, when it is there, is ours to write
   * ({@link checkWriteTarget}: confined to the root, no link, one hard link) and starts with the
   * format line; one positional write at the size seen, without `fsync` (a torn append leaves
   * bytes whose digest does not match: a miss). Returns a reference per record, or `undefined`
   * when nothing was appended (the caller keeps the bytes in `analysis.bin`). Never throws.
   */
  append(records: readonly Uint8Array[]): { readonly refs?: EntryRef[]; readonly refusal?: WriteRefusal } {
    try {
      const refusal = checkWriteTarget(this.#root, this.#file, "file");
      if (refusal) return { refusal };
      const fd = fs.openSync(this.#file, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW);
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile() || stat.nlink !== 1 || stat.size < ANALYSIS_ENTRIES_MAGIC.length) return {};
        const head = Buffer.alloc(ANALYSIS_ENTRIES_MAGIC.length);
        if (fs.readSync(fd, head, 0, head.length, 0) !== head.length || !head.equals(ANALYSIS_ENTRIES_MAGIC)) return {};
        const refs: EntryRef[] = [];
        let at = stat.size;
        for (const bytes of records) {
          refs.push({ at, length: bytes.byteLength, digest: sha256(bytes) });
          at += bytes.byteLength;
        }
        const all = Buffer.concat(records);
        let written = 0;
        while (written < all.length) {
          const n = fs.writeSync(fd, all, written, all.length - written, stat.size + written);
          if (n <= 0) return {};
          written += n;
        }
        return { refs };
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return {};
    }
  }

  /**
   * Writes a new entries file holding `records`, atomically and confined to the root
   * (`writeFileConfined`, without `fsync`). Returns a reference per record and the file's size,
   * or `undefined` when it was not written (`refusal` when refused). Never throws.
   */
  writeAll(records: readonly Uint8Array[]): { readonly refs?: EntryRef[]; readonly size?: number; readonly refusal?: WriteRefusal } {
    const refs: EntryRef[] = [];
    let at = ANALYSIS_ENTRIES_MAGIC.length;
    for (const bytes of records) {
      refs.push({ at, length: bytes.byteLength, digest: sha256(bytes) });
      at += bytes.byteLength;
    }
    try {
      const refusal = writeFileConfined(this.#root, this.#file, [ANALYSIS_ENTRIES_MAGIC, ...records], { createFolders: true, durable: false });
      return refusal === undefined ? { refs, size: at } : { refusal };
    } catch {
      return {};
    }
  }
}
