/**
 * The identity of a verified copy's file as the host checked it: device, inode, size and change
 * time (`ctime`, which every write and every change of mode updates, and which no process can set
 * back). The host hashes a copy through one descriptor and takes the identity from that same
 * descriptor (`./verified-copy.ts`); the sandbox process imports the copy only when the file it
 * finds at the copy's path has that identity (`../sandbox/child.ts`): the same file, not written
 * since. That is what lets the process import only the bytes the host hashed without hashing
 * them again: `node:crypto` costs a sandbox process about 4 ms to load (`./tool-context.ts`), and
 * reading the identity is one `open` and one `fstat` (security trial 128, HIGH 3).
 *
 * Imports `node:fs` only: the sandbox child bundles this module.
 */
import * as fs from "node:fs";

/** Which file a verified copy was, and how it was, when the host hashed it. Plain JSON: it crosses the bridge. */
export interface CopyIdentity {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  /** The change time in nanoseconds. */
  readonly ctimeNs: string;
}

/** The identity of the regular file open on `fd`, or `undefined` for anything else (a folder, a device). Throws what `fstat` throws. */
export function identityOf(fd: number): CopyIdentity | undefined {
  const stat = fs.fstatSync(fd, { bigint: true });
  if (!stat.isFile()) return undefined;
  return { dev: String(stat.dev), ino: String(stat.ino), size: String(stat.size), ctimeNs: String(stat.ctimeNs) };
}

/**
 * True when `file`, opened without following a link (`O_NOFOLLOW`), is a regular file with
 * `identity`: the file the host hashed, not written nor re-moded since. Never throws.
 */
export function hasIdentity(file: string, identity: CopyIdentity): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    const found = identityOf(fd);
    return found !== undefined && found.dev === identity.dev && found.ino === identity.ino && found.size === identity.size && found.ctimeNs === identity.ctimeNs;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

/** Closes `fd`, ignoring a failure (nothing was written through it). */
export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Nothing was written through it: nothing is lost.
  }
}
