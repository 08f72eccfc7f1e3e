/**
 * A content-addressed cache of verified bundle bytes under `<stateDir>/bundles/`.
 *
 * After verification the runtime executes only these copies, never the artifact's files, so a
 * bundle swapped in the artifact after `openRuntime` cannot run; and a copy is re-hashed before
 * each sandbox process or direct import uses it; the sandbox process imports it only when it is
 * still the very file the host hashed (what a verified copy is: `./verified-copy.ts`; its
 * identity: `./copy-identity.ts`). Files end in `.mjs`, so Node loads them as ES
 * modules whatever `package.json` says.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ssri from "ssri";
import type { CopyIdentity } from "./copy-identity.js";
import { checkIntactCopy, readIntactCopy, verifiedCopyName } from "./verified-copy.js";

/**
 * Writes `bytes` (verified against the lock) to `<stateDir>/bundles/<sha256>.mjs` and returns that
 * file's real path: a sandbox process imports the bundle by it, and Node's permission model
 * refuses an import through a link it was not allowed to read (an agent root reached as
 * `ln -s …/agent here` failed every sandboxed call with "Access to this API has been restricted").
 *
 * A copy already there is kept when it is intact (`readIntactCopy`: a regular file whose bytes
 * hash to its name); anything else under that name (other bytes, a link, even one to the very
 * bytes) is replaced, atomically, by a new file of `bytes`: the copy is a cache of bytes the
 * runtime has just verified, so the call runs those (security trial 128, HIGH 3).
 *
 * @returns the copy's real path, and in `replaced` what stood under its name instead of an
 *   intact copy (`"edited"`, `"a symbolic link"`, `"not a regular file"`), for the AL8069
 *   warning; absent when the copy was intact or missing.
 */
export function materializeBundle(stateDir: string, bytes: Buffer): { readonly path: string; readonly replaced?: string } {
  const dir = path.join(stateDir, "bundles");
  const file = path.join(dir, verifiedCopyName(bytes));
  if (readIntactCopy(file) !== undefined) return { path: fs.realpathSync(file) };
  const found = fs.lstatSync(file, { throwIfNoEntry: false });
  const replaced = found === undefined ? undefined : found.isSymbolicLink() ? "a symbolic link" : found.isFile() ? "edited" : "not a regular file";
  fs.mkdirSync(dir, { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  // `wx`: never written through a link planted under the temporary name.
  fs.writeFileSync(temporary, bytes, { mode: 0o444, flag: "wx" });
  // Over a link, `rename` replaces the link itself, never the file it names.
  fs.renameSync(temporary, file);
  return { path: fs.realpathSync(file), ...(replaced === undefined ? {} : { replaced }) };
}

/**
 * The identity of the cached copy at `file` (`./copy-identity.ts`) when it is intact
 * (`checkIntactCopy`) and hashes to `integrity`; else `undefined`. Never throws.
 */
export function checkCachedBundle(file: string, integrity: string): CopyIdentity | undefined {
  try {
    const copy = checkIntactCopy(file);
    return copy !== undefined && ssri.checkData(copy.bytes, integrity) ? copy.identity : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes anew the verified copy at `copy` when it was **removed** (nothing at its path): from the
 * artifact's bundle at `artifactBundle`, when those bytes still hash to `integrity` and name that
 * very copy. A host that runs for long keeps working when `.assemblyline/bundles/` is cleaned
 * under it (helper-133 found the next call refused with AL8012, "hashes to different bytes").
 * An edited copy or a link is not restored here: the runtime refuses it (AL8012), as anything
 * but the copy it wrote is someone's change. Returns whether the copy was written; never throws.
 */
export function restoreRemovedCopy(stateDir: string, copy: string, artifactBundle: string, integrity: string): boolean {
  try {
    if (fs.lstatSync(copy, { throwIfNoEntry: false }) !== undefined) return false;
    const bytes = fs.readFileSync(artifactBundle);
    if (!ssri.checkData(bytes, integrity)) return false;
    if (path.basename(copy) !== verifiedCopyName(bytes)) return false;
    // The copy's path is the real path `materializeBundle` returned when the runtime opened.
    return materializeBundle(stateDir, bytes).path === copy;
  } catch {
    return false;
  }
}
