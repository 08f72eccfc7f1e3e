/**
 * The stat fingerprint of files that are trusted by size and modification time rather than
 * read (issue 14: the toolchain's own files, which a key must notice changing without hashing
 * megabytes on every run): each file adds `\0<path>\0<size>\0<mtimeMs>` to the hash, or
 * `\0<path>\0missing` when it cannot be stat'ed. Used by the toolchain keys of the analysis
 * cache, the bundle cache and the inputs/compile record, and by the isolation probe cache's
 * executables. Content hashes of the user's inputs are not made here: they are read.
 */
import type { Hash } from "node:crypto";
import * as fs from "node:fs";

/**
 * Adds the stat fingerprint of each of `files` to `hash`, in the order given. Never throws: a
 * file that is missing or cannot be stat'ed adds its path and `missing`.
 */
export function updateWithFileStats(hash: Hash, files: Iterable<string>): void {
  for (const file of files) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(file, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    hash.update(stat ? `\0${file}\0${stat.size}\0${stat.mtimeMs}` : `\0${file}\0missing`);
  }
}

/**
 * The stat signature of a regular file as the compile record and the bundle cache write it:
 * `<size>:<mtimeNs>:<ctimeNs>:<ino>` from `lstat` (nanoseconds), or `"-"` when `file` is missing
 * or not a regular file (a link is never trusted). Any write to the file, even one that restores
 * its size and modification time, changes its change time. Never throws.
 */
export function statSignature(file: string): string {
  try {
    const stat = fs.lstatSync(file, { bigint: true });
    return stat.isFile() ? signatureOfStats(stat) : "-";
  } catch {
    return "-";
  }
}

/**
 * The one format of a stat signature, `<size>:<mtimeNs>:<ctimeNs>:<ino>`, from stats taken with
 * `bigint: true`: what the compile record, the bundle cache, `--watch` and {@link statSignature}
 * write and compare (a signature written by one is compared by another).
 */
export function signatureOfStats(stat: fs.BigIntStats): string {
  return `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}`;
}
