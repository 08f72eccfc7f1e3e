/**
 * Where bridge directories live. The bridge is an IPC channel, not state: its envelopes exist
 * only between publish and read. It therefore prefers memory-backed storage — `$XDG_RUNTIME_DIR`
 * or `/dev/shm` — where renames and unlinks cost a few microseconds instead of a journaled disk
 * update, and falls back to `<stateDir>/bridge`.
 *
 * A shared location gets a per-user directory with mode 0700, which must be a real directory
 * owned by this user (not a symbolic link), so no other user can read or plant envelopes.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The directory under which each sandbox worker gets its own bridge directory. */
export function chooseBridgeRoot(stateDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  const candidates: string[] = [];
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) candidates.push(path.join(env.XDG_RUNTIME_DIR, "assembly-line-bridge"));
  if (uid !== undefined) candidates.push(path.join("/dev/shm", `assembly-line-bridge-${uid}`));
  for (const candidate of candidates) {
    if (usablePrivateDir(candidate, uid)) return candidate;
  }
  const fallback = path.join(stateDir, "bridge");
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
