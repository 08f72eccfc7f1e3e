/**
 * The user's own folder for the caches that hold code the host runs: V8's compiled code of the
 * CLI and its dependencies (`./code-cache.ts`) and ajv's generated validators of the agent's
 * input schemas (`contract/validator-code-cache.ts`). What is read from it runs in the host
 * process, so it is used only when nobody else can have written it (docs/caches.md):
 *
 * - under the OS temporary folder, `assembly-line-code-cache-<uid>`, made with mode 0700;
 * - not used when it is a link, owned by another user, or writable by group or others;
 * - not used at all when `ASSEMBLY_LINE_CODE_CACHE=0`.
 *
 * Each cache names its own files and deletes its own files not written for
 * {@link STALE_CACHE_DAYS} days, and the oldest written beyond {@link MAX_CACHE_BYTES} in all
 * ({@link pruneStaleCacheFiles}); anything else in the folder is left alone. One place for these rules (issue 8: a rule lives in one place).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The environment variable that turns the code caches off when `"0"`. */
export const CODE_CACHE_ENV = "ASSEMBLY_LINE_CODE_CACHE";

/**
 * A cache file not written for this long is deleted by the next process that writes that cache
 * (any installation's): the files are per installation, flags and content, so checkouts,
 * `npm ci` runs, profiler runs and edited schemas would otherwise leave theirs for good.
 */
export const STALE_CACHE_DAYS = 30;

/**
 * The most bytes one cache's files keep in the folder; beyond it the oldest written go first
 * (as ccache's `max_size`). One installation's code cache is at most about 60 MB (the shared
 * file, 8 MB, and up to 16 kinds of run of the CLI bundle, 2.6 MB each, and of the host bundle),
 * so this keeps a few installations' worth; without it, every checkout, `npm ci`, test install
 * and profiler run of a month stayed: 716 files, 725 MB in one day of running the test suite
 * on this project's machine, in a folder that is RAM where the OS temporary folder is a tmpfs.
 */
export const MAX_CACHE_BYTES = 256 * 1024 * 1024;

/** Whether the user turned the code caches off (`ASSEMBLY_LINE_CODE_CACHE=0`). */
export function codeCachesOff(): boolean {
  return process.env[CODE_CACHE_ENV] === "0";
}

/** Where the code caches live unless told otherwise: `assembly-line-code-cache-<uid>` under the OS temporary folder. */
export function defaultCodeCacheFolder(): string {
  return path.join(os.tmpdir(), `assembly-line-code-cache-${typeof process.getuid === "function" ? process.getuid() : "user"}`);
}

/**
 * True when `dir` exists (or was just created, mode 0700) as a folder of this user that nobody
 * else can write: not a link, owned by this user, no group or other write bit. Never throws.
 */
export function isPrivateFolder(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && isPrivateStat(stat);
  } catch {
    return false;
  }
}

/**
 * True when a file or folder with this `stat` is this user's and nobody else can write it: owned
 * by this user, no group or other write bit (always true on Windows, whose temporary folder is
 * per user). The one ownership rule of the private folder ({@link isPrivateFolder}) and of the
 * records read from it that are not sealed code (`runtime-min/sandbox/probe-cache.ts`).
 */
export function isPrivateStat(stat: { readonly uid: number; readonly mode: number }): boolean {
  if (process.platform === "win32") return true;
  return stat.uid === process.getuid!() && (stat.mode & 0o022) === 0;
}

/**
 * The folder the code caches use: `dir` (default {@link defaultCodeCacheFolder}) when the caches
 * are on and it {@link isPrivateFolder is private}; otherwise `undefined` (no code is cached).
 */
export function codeCacheFolder(dir: string = defaultCodeCacheFolder()): string | undefined {
  if (codeCachesOff()) return undefined;
  return isPrivateFolder(dir) ? dir : undefined;
}

/**
 * Deletes the files of `dir` whose names match `pattern` (one cache's files, and the temporaries
 * its killed writers left) that were last written more than {@link STALE_CACHE_DAYS} days ago,
 * then, while those left hold more than `maxBytes` (default {@link MAX_CACHE_BYTES}), the oldest
 * written of them. A file in use elsewhere is only a miss for its process, which writes it
 * again. Never throws.
 */
export function pruneStaleCacheFiles(dir: string, pattern: RegExp, maxBytes: number = MAX_CACHE_BYTES): void {
  const before = Date.now() - STALE_CACHE_DAYS * 24 * 60 * 60 * 1000;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // An unreadable folder: nothing pruned.
  }
  const kept: { readonly file: string; readonly written: number; readonly size: number }[] = [];
  for (const name of names) {
    if (!pattern.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const stat = fs.lstatSync(file);
      if (!stat.isFile()) continue;
      if (stat.mtimeMs < before) fs.rmSync(file, { force: true });
      else kept.push({ file, written: stat.mtimeMs, size: stat.size });
    } catch {
      // Gone already, or not ours to remove: left alone.
    }
  }
  let total = 0;
  for (const { file, size } of kept.sort((a, b) => b.written - a.written)) {
    total += size;
    if (total <= maxBytes) continue;
    try {
      fs.rmSync(file, { force: true });
    } catch {
      // Not ours to remove: left alone.
    }
  }
}
