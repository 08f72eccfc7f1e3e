/**
 * Whether a file holds exactly some bytes, read a chunk at a time up to the first difference
 * and never whole: the lock write's "unchanged" check and its check that the lock still holds
 * the bytes read (`lockfile/write-lockfile.ts`), the artifact's reuse of an old file
 * (`build/emit-artifact.ts`; the benchmark agent's 2.5 MB manifest differs from the last
 * compile's within its first lines after any lock change) and the compile record's check of
 * the artifact files the compile wrote (`cli/compile-record.ts`). Even a comparison that reads
 * to the end costs less than a whole read: one small buffer instead of a new one of the file's
 * size, whose fresh pages the kernel faults in one by one (docs/performance.md, "Incremental
 * compiles with packaging", fifteenth round).
 */
import * as fs from "node:fs";

/** Bytes compared per read. */
const COMPARE_CHUNK = 256 * 1024;

/**
 * True when `file` holds exactly `bytes` (its size first, then a chunk at a time, stopping at
 * the first difference, and nothing after the end); false when it differs or cannot be read.
 * Follows a link: callers that must not `lstat` first. Never throws.
 */
export function fileHolds(file: string, bytes: Uint8Array): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "r");
    if (fs.fstatSync(fd).size !== bytes.byteLength) return false;
    const chunk = Buffer.allocUnsafe(Math.min(COMPARE_CHUNK, Math.max(bytes.byteLength, 1)));
    for (let offset = 0; offset < bytes.byteLength; ) {
      const read = fs.readSync(fd, chunk, 0, Math.min(chunk.length, bytes.byteLength - offset), offset);
      if (read === 0 || !chunk.subarray(0, read).equals(bytes.subarray(offset, offset + read))) return false;
      offset += read;
    }
    // Nothing after the expected end (the file grew since the fstat).
    return fs.readSync(fd, chunk, 0, 1, bytes.byteLength) === 0;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
