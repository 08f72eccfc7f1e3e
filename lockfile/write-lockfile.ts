/**
 * Writing `plugins.lock` (issue 3 item 4): only when the content changes, atomically.
 */
import * as fs from "node:fs";
import { fileHolds } from "../common/file-holds.js";
import * as path from "node:path";
import { writeFileConfined } from "../common/confined-write.js";
import { writeRefusalDiagnostic } from "../diagnostics/write-refusal.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { fileStart } from "../common/positions.js";
import { isJsonObject } from "../common/json-value.js";
import { LOCKFILE_VERSION } from "../contract/lockfile-types.js";

/** Options of {@link writeLockfileIfChanged}. */
export interface WriteLockfileOptions {
  /**
   * `"tolerate-crlf"` (default): an existing lock that equals `text` once its CRLF line ends
   * are read as LF is left alone, so a Git checkout with `autocrlf` is not rewritten by every
   * compile (the same rule `checkLockfile` uses). `"exact"`: any byte difference rewrites.
   */
  readonly lineEndings?: "tolerate-crlf" | "exact";
  /**
   * Bytes the caller knows to be exactly the UTF-8 encoding of `text` (a compile encodes its
   * lock once, or passes the previous lock's bytes when their text is the new lock's): the file
   * is compared with them, a chunk at a time, and they are what is written, instead of `text`
   * encoded again (a 2.5 MB lock on a 2,000-tool agent, about 10 ms each time). The comparison
   * still reads the file as it is now.
   */
  readonly textBytes?: Uint8Array;
  /**
   * The bytes of the lock the caller read before and found readable (`readLockfile`'s `ok`: its
   * `lockfileVersion` is this toolchain's). A file that still holds exactly these bytes is not
   * decoded and scanned for a newer `lockfileVersion` (the safety net below), which it cannot have.
   */
  readonly readableBytes?: Uint8Array;
}

/** Result of {@link writeLockfileIfChanged}. */
export interface WriteLockfileResult {
  /** True when the file was (re)written. */
  readonly changed: boolean;
  /**
   * Set when nothing was written although the content differs: AL6007 when the existing lock
   * has a newer `lockfileVersion` (it is never rewritten), AL6010 when the write failed (the
   * previous lock is intact, since the write is atomic).
   */
  readonly diagnostic?: Diagnostic;
}

/**
 * Writes `text` (from `serializeLockfile`) to `lockPath` as UTF-8, unless the file already
 * holds it: then the file is not touched at all (its mtime stays). Otherwise the file is
 * replaced atomically with `writeFileConfined` (a temporary file in the same directory,
 * fsynced, then renamed over the lock), so a reader never sees a half-written lock and a
 * failed write leaves the old one. A lock that is a symbolic link or has more than one hard
 * link is never written (AL6301), nor one that is a folder (AL6302): the diagnostic names it.
 *
 * A lock whose `lockfileVersion` is newer than {@link LOCKFILE_VERSION} is never overwritten
 * (AL6007): a safety net for callers that did not run `readLockfile` first.
 *
 * Callers must not call this when the compile reported errors (issue 3 item 4). Never throws.
 */
export function writeLockfileIfChanged(lockPath: string, text: string, options: WriteLockfileOptions = {}): WriteLockfileResult {
  if (options.textBytes !== undefined && fileHolds(lockPath, options.textBytes)) return { changed: false };
  const bytes = options.textBytes ?? Buffer.from(text, "utf8");
  // The file as it is now. When it still holds exactly the bytes the caller read, those bytes
  // are it: compared a chunk at a time into one small buffer instead of read whole into a new
  // one (the benchmark agent's lock is 2.7 MB, and after any change the first comparison above
  // stops at its first chunk; docs/performance.md, "Fifteenth round").
  const stillReadable = options.readableBytes !== undefined && fileHolds(lockPath, options.readableBytes);
  const existing = stillReadable ? asBuffer(options.readableBytes!) : readExisting(lockPath);
  if (existing !== undefined) {
    if (existing.equals(bytes)) return { changed: false };
    let existingText: string | undefined;
    // Only a lock with a carriage return can equal the text once its CRLF are read as LF.
    if (options.lineEndings !== "exact" && existing.includes(CARRIAGE_RETURN) && (existingText = existing.toString("utf8")).replace(/\r\n/g, "\n") === text) return { changed: false };
    const readable = stillReadable;
    const newer = readable ? undefined : newerVersionOf(existingText ?? existing.toString("utf8"));
    if (newer !== undefined) {
      return { changed: false, diagnostic: createDiagnostic(Diagnostics.LockfileUnsupportedVersion, fileStart(lockPath), [newer, LOCKFILE_VERSION]) };
    }
  }
  try {
    // Never through a link out of the agent root (AL6301) or into a non-file (AL6302).
    const root = path.dirname(path.resolve(lockPath));
    const refusal = writeFileConfined(root, lockPath, bytes);
    if (refusal) return { changed: false, diagnostic: writeRefusalDiagnostic("plugins.lock", refusal, root) };
    return { changed: true };
  } catch (error) {
    const reason = describeWriteError(error as NodeJS.ErrnoException);
    return { changed: false, diagnostic: createDiagnostic(Diagnostics.LockfileWriteFailed, fileStart(lockPath), [reason]) };
  }
}


/** `bytes` as a `Buffer` over the same memory (no copy). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function readExisting(lockPath: string): Buffer | undefined {
  try {
    return fs.readFileSync(lockPath);
  } catch {
    return undefined;
  }
}

function newerVersionOf(text: string): number | undefined {
  // Without parsing the whole lock (2.5 MB on a 2,000-tool agent): a root `lockfileVersion`
  // above ours is one of the numbers written after a `"lockfileVersion"` key, unless a key spells
  // a character as an escape (`\u…`), which only the parse below reads.
  if (!text.includes("\\u") && !versionNumbers(text).some((version) => version > LOCKFILE_VERSION)) return undefined;
  try {
    const value: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    const version = isJsonObject(value) ? value.lockfileVersion : undefined;
    return typeof version === "number" && Number.isInteger(version) && version > LOCKFILE_VERSION ? version : undefined;
  } catch {
    return undefined;
  }
}

const CARRIAGE_RETURN = 0x0d;

/** The numbers written as the value of a `"lockfileVersion"` key anywhere in `text` (NaN for a malformed one, never above a version). */
function versionNumbers(text: string): number[] {
  return [...text.matchAll(/"lockfileVersion"\s*:\s*(-?[0-9][0-9.eE+-]*)/g)].map((match) => Number(match[1]));
}

function describeWriteError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENOENT":
    case "ENOTDIR":
      return "its directory does not exist";
    case "EROFS":
      return "the file system is read-only";
    case "ENOSPC":
      return "the disk is full";
    default:
      return error.code ?? error.message;
  }
}
