/**
 * Writes that never leave the agent root through a link (issue 12 item 4). Before the lock, the
 * artifact, the analysis cache or the state directory is written, every existing component of
 * the target's path below the root is checked with `lstat` (never following a link):
 *
 * - a symbolic link whose real target lies outside the root is refused (a cloned repository
 *   could otherwise ship `plugins.lock -> ../../.bashrc` and have `compile` overwrite it);
 * - a file where a folder is expected, or a folder where a file is expected, is refused, so an
 *   odd tree is a diagnostic instead of an `ENOTDIR` crash (issue 12 item 7);
 * - the target file itself, when it exists, must not be a symbolic link at all and must have
 *   exactly one link: a hard link shares its bytes with another name that may be anywhere.
 *
 * {@link writeFileConfined} then writes a fresh temporary file (`wx`: never an existing one) and
 * renames it over the target, which replaces a link planted after the check instead of
 * following it. Targets outside the root (an explicit `--out`) are the user's choice and are
 * not checked. Only `node:` built-ins, so every layer can use it.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { isPathInside, relativeInside } from "./path-inside.js";

/** Why a write was refused. */
export interface WriteRefusal {
  /** `"link"`: a symbolic or hard link; `"shape"`: a file where a folder is expected, or the reverse. */
  readonly kind: "link" | "shape";
  /** The offending path (absolute). */
  readonly path: string;
  /** What the path is and why that stops the write, e.g. "is a symbolic link to /etc, outside the agent root". */
  readonly reason: string;
}

/** What the target of a write is expected to be. */
export type WriteTargetKind = "file" | "directory";

/**
 * Checks that writing `target` (a `kind`; absolute or relative to `root`) cannot follow a link
 * out of `root` and meets no file where a folder is expected. Returns the refusal, or
 * `undefined` when the write may go ahead (missing components are fine: they will be created).
 * Never throws.
 */
export function checkWriteTarget(root: string, target: string, kind: WriteTargetKind = "file"): WriteRefusal | undefined {
  const base = path.resolve(root);
  const absolute = path.resolve(base, target);
  const relative = relativeInside(base, absolute);
  if (relative === undefined || relative === "") return undefined;
  const realRoot = realpathOr(base);
  const parts = relative.split(path.sep);
  let current = base;
  for (let index = 0; index < parts.length; index += 1) {
    current = path.join(current, parts[index] as string);
    const last = index === parts.length - 1;
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(current);
    } catch {
      return undefined;
    }
    const wantDirectory = !last || kind === "directory";
    if (stat.isSymbolicLink()) {
      const destination = realpathOr(current);
      const inside = destination !== undefined && isPathInside(realRoot ?? base, destination);
      if (!wantDirectory) {
        return { kind: "link", path: current, reason: `is a symbolic link${destination ? ` to ${destination}` : ""}; writing through it would change ${inside ? "another file" : "a file outside the agent root"}` };
      }
      if (!inside) return { kind: "link", path: current, reason: destination ? `is a symbolic link to ${destination}, outside the agent root` : "is a symbolic link that leads nowhere" };
      stat = fs.statSync(current);
    }
    if (wantDirectory && !stat.isDirectory()) return { kind: "shape", path: current, reason: `is a ${describe(stat)} where a folder is expected` };
    if (!wantDirectory) {
      if (!stat.isFile()) return { kind: "shape", path: current, reason: `is a ${describe(stat)} where a file is expected` };
      if (stat.nlink > 1) return { kind: "link", path: current, reason: `has ${stat.nlink} hard links, so its bytes are shared with another name that may lie outside the agent root` };
    }
  }
  return undefined;
}

/**
 * Writes `data` to `target` atomically (a temporary file `<target>.<pid>-<hex>.tmp` in the same
 * folder, fsynced, renamed over the target) after {@link checkWriteTarget}. Returns the refusal
 * instead of writing when the check fails; throws the file system's error when the write
 * itself fails (the old file is then intact and the temporary file removed). With
 * `createFolders`, missing folders on the way are created first (they were checked: none of
 * the existing ones is a link out of the root).
 *
 * `durable: false` leaves out the `fsync` (the replacement stays atomic): only for a file whose
 * loss or damage after a power failure its reader detects and treats as absent — a sealed cache
 * (`sealed-file.ts`: magic and checksum) or a stamp written only to read the file system's clock.
 * On ext4 the `fsync` of even an empty file waits for the journal to commit everything the
 * compile changed before it (the artifact's 2,000 links): 30 ms of a one-file compile's main
 * thread went to the compile record's stamp alone (issue 14 item 4).
 *
 * `mode` is the new file's permission bits before the umask (default 0644; 0600 for a file of
 * the user's private code caches, `private-cache-folder.ts`).
 */
export function writeFileConfined(root: string, target: string, data: string | Uint8Array | readonly Uint8Array[], options: { readonly createFolders?: boolean; readonly durable?: boolean; readonly mode?: number } = {}): WriteRefusal | undefined {
  const refusal = checkWriteTarget(root, target, "file");
  if (refusal) return refusal;
  const absolute = path.resolve(root, target);
  if (options.createFolders) fs.mkdirSync(path.dirname(absolute), { recursive: true });
  const temporary = `${absolute}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    const fd = fs.openSync(temporary, "wx", options.mode ?? 0o644);
    try {
      if (typeof data === "string" || data instanceof Uint8Array) fs.writeFileSync(fd, data);
      else writeParts(fd, data);
      if (options.durable !== false) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, absolute);
  } catch (error) {
    try {
      fs.rmSync(temporary, { force: true });
    } catch {
      // Nothing was created (the folder is not writable or not a folder).
    }
    throw error;
  }
  return undefined;
}

/** Writes `parts` one after another at `fd`'s position (`writev`, again after a short write), without joining them. */
function writeParts(fd: number, parts: readonly Uint8Array[]): void {
  let pending = parts.filter((part) => part.byteLength > 0);
  while (pending.length > 0) {
    // At most 1,024 buffers per call (IOV_MAX on Linux and macOS).
    let written = fs.writevSync(fd, pending.slice(0, 1024));
    if (written === 0) throw new Error("the file system took none of the bytes");
    let done = 0;
    while (done < pending.length && written >= pending[done]!.byteLength) written -= pending[done++]!.byteLength;
    pending = pending.slice(done);
    if (written > 0) pending[0] = pending[0]!.subarray(written);
  }
}

/** Name pattern of {@link writeFileConfined}'s temporary files for `base` (a file name), for cleanup. */
export function confinedTemporaryPattern(base: string): RegExp {
  return new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.\\d+-[0-9a-f]{8}\\.tmp$`);
}

function realpathOr(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

function describe(stat: fs.Stats): string {
  if (stat.isDirectory()) return "folder";
  if (stat.isFile()) return "file";
  if (stat.isSymbolicLink()) return "symbolic link";
  if (stat.isFIFO()) return "named pipe";
  if (stat.isSocket()) return "socket";
  return "device or other special file";
}
