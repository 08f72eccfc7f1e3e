/**
 * A cache's side file of records (issue 14 item 4): a format line followed by records' bytes,
 * back to back, which a sealed index names by offset and length. The mechanics every such file
 * shares live here; what proves a record (its digest, recorded in the sealed index) is the
 * user's: the entries' analyses (`compiler/static-analysis/analysis-entries.ts`, SHA-256) and
 * the bundles' bytes (`packaging/bundle-bytes.ts`, the bundle's SHA-512 SRI). A record read
 * here is only bytes at an offset: the caller uses them only when their digest is the recorded
 * one, so a missing, replaced, truncated, altered or torn file is a miss, never other bytes.
 *
 * Writes never follow a link: an append checks the target with `checkWriteTarget` (confined to
 * the root, no link on the way), opens it with `O_NOFOLLOW`, requires one hard link and the
 * format line, and writes at the size it saw (never over bytes a reference may name); a whole
 * write is `writeFileConfined` (atomic, confined, no `fsync`). Nothing here throws.
 */
import * as fs from "node:fs";
import { checkWriteTarget, writeFileConfined, type WriteRefusal } from "./confined-write.js";

/** One side file of records under a format line, read lazily (see the module header). */
export class RecordFile {
  readonly #root: string;
  readonly #file: string;
  readonly #magic: Buffer;
  #whole: Buffer | null | undefined;

  /** `root`: the agent root writes are confined to; `file`: the absolute file; `magic`: its format line. */
  constructor(root: string, file: string, magic: Buffer) {
    this.#root = root;
    this.#file = file;
    this.#magic = magic;
  }

  /** Length of the format line: the smallest offset a record can have. */
  get firstOffset(): number {
    return this.#magic.length;
  }

  /**
   * The `length` bytes at offset `at` (one positioned read of a regular file, never through a
   * link; or a view of the whole file after {@link readAll}); `undefined` when the file is not
   * there, is no regular file, or ends before them. Unverified: the caller checks their digest.
   */
  range(at: number, length: number): Uint8Array | undefined {
    if (at < this.#magic.length || length < 0) return undefined;
    if (this.#whole !== undefined) return this.#whole && at + length <= this.#whole.length ? this.#whole.subarray(at, at + length) : undefined;
    try {
      const fd = fs.openSync(this.#file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        if (!fs.fstatSync(fd).isFile()) return undefined;
        const bytes = Buffer.allocUnsafe(length);
        let done = 0;
        while (done < length) {
          const n = fs.readSync(fd, bytes, done, length - done, at + done);
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

  /** Reads the whole file once (for a save that writes every record anew); later {@link range}s use it. */
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
    if (this.#whole && !this.#whole.subarray(0, this.#magic.length).equals(this.#magic)) this.#whole = null;
  }

  /**
   * The file's size when it is a regular file (never through a link) that starts with the format
   * line; `undefined` otherwise (missing, another format, a link). One `open` and a short read.
   */
  formatSize(): number | undefined {
    try {
      const fd = fs.openSync(this.#file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile() || stat.size < this.#magic.length) return undefined;
        const head = Buffer.alloc(this.#magic.length);
        return fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(this.#magic) ? stat.size : undefined;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }

  /** The file's size now; `undefined` when it is not there or is no regular file. */
  size(): number | undefined {
    try {
      const stat = fs.lstatSync(this.#file);
      return stat.isFile() ? stat.size : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Appends `records` at the end of the file, when it is there, is ours to write (confined, no
   * link, one hard link) and starts with the format line: one positional write at the size seen,
   * without `fsync` (a torn append leaves bytes whose digest does not match: a miss). Returns
   * each record's offset, or none when nothing was appended (with the refusal when refused).
   */
  append(records: readonly Uint8Array[]): { readonly at?: number[]; readonly refusal?: WriteRefusal } {
    try {
      const refusal = checkWriteTarget(this.#root, this.#file, "file");
      if (refusal) return { refusal };
      const fd = fs.openSync(this.#file, fs.constants.O_RDWR | fs.constants.O_NOFOLLOW);
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile() || stat.nlink !== 1 || stat.size < this.#magic.length) return {};
        const head = Buffer.alloc(this.#magic.length);
        if (fs.readSync(fd, head, 0, head.length, 0) !== head.length || !head.equals(this.#magic)) return {};
        const at: number[] = [];
        let next = stat.size;
        for (const bytes of records) {
          at.push(next);
          next += bytes.byteLength;
        }
        const all = Buffer.concat(records);
        let written = 0;
        while (written < all.length) {
          const n = fs.writeSync(fd, all, written, all.length - written, stat.size + written);
          if (n <= 0) return {};
          written += n;
        }
        return { at };
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return {};
    }
  }

  /**
   * Writes a new file holding `records`, atomically and confined to the root
   * (`writeFileConfined`, without `fsync`). Returns each record's offset and the file's size, or
   * none when it was not written (with the refusal when refused).
   */
  writeAll(records: readonly Uint8Array[]): { readonly at?: number[]; readonly size?: number; readonly refusal?: WriteRefusal } {
    const at: number[] = [];
    let next = this.#magic.length;
    for (const bytes of records) {
      at.push(next);
      next += bytes.byteLength;
    }
    try {
      const refusal = writeFileConfined(this.#root, this.#file, [this.#magic, ...records], { createFolders: true, durable: false });
      return refusal === undefined ? { at, size: next } : { refusal };
    } catch {
      return {};
    }
  }
}
