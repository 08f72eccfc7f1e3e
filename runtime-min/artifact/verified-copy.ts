/**
 * What makes a file of `<stateDir>/bundles/` a verified copy (runtime-min/README.md, "Artifact
 * verification"): a regular file, not a link, named `<sha256>.mjs` where `<sha256>` is the
 * SHA-256 of its bytes in hex. The runtime names each copy so when it writes it
 * (`./bundle-cache.ts`), so a copy can be checked by its name alone, without the lock: by a
 * `call`'s early start before it spawns a process for it (`../execution/early-start.ts`), and by
 * the runtime before a sandbox process or a direct import uses it (`../execution/execute-authored.ts`),
 * which hands the sandbox process the identity of the file it hashed (`./copy-identity.ts`). Security trial 128, HIGH 3:
 * an edited copy ran once through the early start, whose process was spawned with the copy as it
 * was on disk while the runtime re-hashed the file that replaced it.
 *
 * Imports Node built-ins only: the early start runs before the CLI loads.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { closeQuietly, identityOf, type CopyIdentity } from "./copy-identity.js";

/** A verified copy's file name: the hex SHA-256 of its bytes, then `.mjs` (so Node loads it as an ES module). */
export const VERIFIED_COPY_NAME = /^([0-9a-f]{64})\.mjs$/;

/** The file name of the verified copy of `bytes` (see {@link VERIFIED_COPY_NAME}). */
export function verifiedCopyName(bytes: Uint8Array): string {
  return `${createHash("sha256").update(bytes).digest("hex")}.mjs`;
}

/**
 * The bytes of the copy at `file`, read through one descriptor opened without following a link
 * (`O_NOFOLLOW`), when that descriptor is a regular file whose bytes hash to the digest its name
 * states; else `undefined` (a missing file, a link, a folder, a name that states no digest, other
 * bytes). Never throws.
 *
 * The check and the read are one: the bytes returned are the bytes hashed, and a file swapped
 * under the name while they are read is not mixed in (the descriptor keeps the file it opened).
 */
export function readIntactCopy(file: string): Buffer | undefined {
  return checkIntactCopy(file)?.bytes;
}

/**
 * As {@link readIntactCopy}, with the identity of the file hashed, taken from the same
 * descriptor after its bytes were read (`./copy-identity.ts`): what the host hands the sandbox
 * process, which imports the copy only when it finds that very file, unchanged. Never throws.
 */
export function checkIntactCopy(file: string): { readonly bytes: Buffer; readonly identity: CopyIdentity } | undefined {
  const digest = VERIFIED_COPY_NAME.exec(path.basename(file))?.[1];
  if (digest === undefined) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    if (identityOf(fd) === undefined) return undefined;
    const bytes = fs.readFileSync(fd);
    // Taken after the read: a write during it changes the change time, so the identity then
    // names a state whose bytes were not hashed, and the sandbox process finds another.
    const identity = identityOf(fd);
    if (identity === undefined || createHash("sha256").update(bytes).digest("hex") !== digest) return undefined;
    return { bytes, identity };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}
