/**
 * Where bridge directories live. The bridge is an IPC channel, not state: its envelopes exist
 * only between publish and read. It therefore prefers memory-backed storage — `$XDG_RUNTIME_DIR`
 * or `/dev/shm` — where renames and unlinks cost a few microseconds instead of a journaled disk
 * update, and falls back to `<stateDir>/bridge`.
 *
 * A shared location gets a per-user directory with mode 0700, which must be a real directory
 * owned by this user (not a symbolic link), so no other user can read or plant envelopes.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { checkWriteTarget, type WriteRefusal } from "../../common/confined-write.js";

/**
 * The directory under which each sandbox worker gets its own bridge directory, or why the
 * fallback cannot be used: `<stateDir>/bridge` is made only where that makes nothing through a
 * link (`checkWriteTarget` of the agent root, and the folder itself is no link at all: the
 * sandbox process may write in it; review of 5 December, F4). `sharedMemory` is `/dev/shm`
 * but in tests. Throws what `mkdir` throws.
 */
export function chooseBridgeRoot(stateDir: string, env: NodeJS.ProcessEnv = process.env, sharedMemory = "/dev/shm"): string | WriteRefusal {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const candidates: string[] = [];
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) candidates.push(path.join(env.XDG_RUNTIME_DIR, "assembly-line-bridge"));
  if (uid !== undefined) candidates.push(path.join(sharedMemory, `assembly-line-bridge-${uid}`));
  for (const candidate of candidates) {
    if (usablePrivateDir(candidate, uid)) return candidate;
  }
  const fallback = path.join(stateDir, "bridge");
  const refusal = checkWriteTarget(path.dirname(stateDir), fallback, "directory");
  if (refusal) return refusal;
  if (fs.lstatSync(fallback, { throwIfNoEntry: false })?.isSymbolicLink()) {
    return { kind: "link", path: fallback, reason: "is a symbolic link; the sandbox bridge folder is never one, or a sandboxed tool would write in whatever it leads to" };
  }
  fs.mkdirSync(fallback, { recursive: true, mode: 0o700 });
  return fallback;
}

function usablePrivateDir(dir: string, uid: number | undefined): boolean {
  try {
    if (!fs.existsSync(path.dirname(dir))) return false;
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  try {
    const stat = fs.lstatSync(dir);
    if (!stat.isDirectory() || stat.isSymbolicLink()) return false;
    if (uid !== undefined && stat.uid !== uid) return false;
    if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** A bridge folder's name: the host's pid, then a UUID (`./sandbox-worker.ts`). */
const BRIDGE_DIR_NAME = /^(\d{1,10})-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A bridge folder of an earlier version: a bare UUID, without the host's pid. */
const LEGACY_BRIDGE_DIR_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A legacy bridge folder untouched for this long belongs to no live host. */
const LEGACY_BRIDGE_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Removes bridge folders under `bridgeRoot` that a killed host left behind (issue 12 item 8):
 * folders named `<pid>-<uuid>` whose host pid no longer exists, folders such a host moved aside
 * for removal (`.trash-<pid>-<uuid>`, {@link removeBridgeFolder}), and bare-UUID folders of
 * earlier versions untouched for a day. Anything else in the folder is left alone. Returns the
 * folders removed (or moved aside to be); never throws.
 */
export function removeStaleBridges(bridgeRoot: string, now = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(bridgeRoot);
  } catch {
    return removed;
  }
  for (const name of names) {
    const match = BRIDGE_DIR_NAME.exec(name) ?? TRASH_NAME.exec(name);
    const entry = path.join(bridgeRoot, name);
    try {
      if (match) {
        if (processExists(Number(match[1]))) continue;
      } else if (!LEGACY_BRIDGE_DIR_NAME.test(name) || now - fs.lstatSync(entry).mtimeMs < LEGACY_BRIDGE_AGE_MS) {
        continue;
      }
      if (removeBridgeFolder(entry)) removed.push(entry);
    } catch {
      // Not ours to remove, or gone meanwhile.
    }
  }
  return removed.sort();
}

/** True when a process `pid` exists (ours or not: `EPERM` counts), for the sweeps of folders named after their host's pid. Never throws. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Entries a bridge folder holds in normal use is a handful; up to this many files are removed at once, in the host's thread. */
const SMALL_BRIDGE_ENTRIES = 64;
/** A bridge folder moved aside for removal in the background: `.trash-<host pid>-<uuid>`. */
const TRASH_NAME = /^\.trash-(\d{1,10})-[0-9a-f-]{36}$/;

/**
 * Removes a bridge folder and whatever is in it; never throws, and never holds the host's
 * thread for long (it runs in a sandbox process's exit handler, and a throw there would end the
 * host). Returns whether the folder is gone from its place (removed, or moved aside to be).
 *
 * The sandbox process may write in its bridge folder, so a hostile tool can leave anything
 * there: a folder chain deeper than `PATH_MAX`, on which Node 20's recursive `rmSync` throws
 * (host-file review of 5 December, H7: the host died with exit status 1, its run lease held), a
 * folder where the host's spare envelope was (H7b), folders without permissions, or hundreds of
 * thousands of files, whose removal held the host's event loop for as long as the tool took to
 * make them, long enough to lose other runs' leases (helper-65 B1). So a folder of a few plain
 * files and folders — what the protocol and the link guard leave — is removed at once; anything else is renamed aside
 * (`.trash-<pid>-<uuid>`) and removed by `rm -rf` (any depth, after `chmod -R u+rwx`) in a
 * process of its own that the host does not wait for. What a killed host left aside, the next
 * sweep ({@link removeStaleBridges}) removes.
 */
export function removeBridgeFolder(dir: string): boolean {
  try {
    if (removeIfSmall(dir)) return true;
  } catch {
    // Below: what a tool may have left there.
  }
  let aside = path.join(path.dirname(dir), `.trash-${process.pid}-${randomUUID()}`);
  try {
    fs.renameSync(dir, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    aside = dir;
  }
  try {
    const remover = spawn("/bin/sh", ["-c", 'chmod -R u+rwx -- "$1" 2>/dev/null; rm -rf -- "$1"', "remove-bridge", aside], { detached: true, stdio: "ignore" });
    remover.on("error", () => undefined);
    remover.unref();
  } catch {
    return aside !== dir;
  }
  return true;
}

/**
 * Removes `dir` when its tree holds at most {@link SMALL_BRIDGE_ENTRIES} entries, all plain
 * files and folders (reading no more than that: what the protocol and the link guard's table
 * and skeleton leave, `./link-guard.ts`); returns whether it did. Throws what reading or
 * removing throws (the caller then moves the folder aside).
 */
function removeIfSmall(dir: string): boolean {
  const files: string[] = [];
  const folders: string[] = [dir];
  for (let index = 0; index < folders.length; index++) {
    let folder: fs.Dir;
    try {
      folder = fs.opendirSync(folders[index] as string);
    } catch (error) {
      if (index === 0 && (error as NodeJS.ErrnoException).code === "ENOENT") return true;
      throw error;
    }
    try {
      for (let entry = folder.readSync(); entry !== null; entry = folder.readSync()) {
        if (files.length + folders.length > SMALL_BRIDGE_ENTRIES) return false;
        const full = path.join(folders[index] as string, entry.name);
        if (entry.isFile()) files.push(full);
        else if (entry.isDirectory()) folders.push(full);
        else return false;
      }
    } finally {
      folder.closeSync();
    }
  }
  for (const file of files) fs.rmSync(file, { force: true });
  for (const folder of folders.reverse()) fs.rmdirSync(folder);
  return true;
}
