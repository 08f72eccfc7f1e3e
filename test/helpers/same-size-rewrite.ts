/**
 * Test helper: changes one byte of a file near its end (a space becomes `!`, anything else a
 * space), keeping its length, and restores its modification time unless told not to: after it,
 * only the file's change time (and its bytes) say it changed. What a signature of size and mtime
 * alone would miss (the compile record's and the artifact's racily-clean checks).
 */
import * as fs from "node:fs";

/** Rewrites `file` with one byte changed and the same length; restores its mtime when `keepMtime` (default). Returns the old bytes. */
export function rewriteSameSize(file: string, options: { readonly keepMtime?: boolean } = {}): Buffer {
  const before = fs.statSync(file);
  const original = fs.readFileSync(file);
  const changed = Buffer.from(original);
  const at = changed.length - 2;
  changed[at] = changed[at] === 0x20 ? 0x21 : 0x20;
  fs.writeFileSync(file, changed);
  if (options.keepMtime ?? true) fs.utimesSync(file, before.atime, before.mtime);
  return original;
}
