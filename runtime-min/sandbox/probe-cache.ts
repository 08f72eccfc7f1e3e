/**
 * Remembers, per agent, that an isolation probe succeeded on this machine as it is now (issue 14
 * item 3, `call` start-up; docs/performance.md). Each host process used to probe anew: the
 * shell probe alone launches a dozen processes (a `mount` per mount point), which cost a whole
 * `call echo` more than its sandbox process. Now a success is recorded in
 * `<root>/.assemblyline/cache/isolation.json` with the fingerprint of everything the outcome
 * depends on, and a later process whose fingerprint is the same skips the launch:
 *
 * - the boot (`/proc/sys/kernel/random/boot_id`) and kernel release, the process's user,
 *   mount, PID and network namespaces (`/proc/self/ns/*`: another container, or a host that
 *   entered other namespaces, differs), its uid and gid;
 * - the kernel settings that allow unprivileged user namespaces (`user.max_user_namespaces`,
 *   `kernel.unprivileged_userns_clone`, `kernel.apparmor_restrict_unprivileged_userns`, where
 *   present);
 * - the probe's own inputs (the executables' paths, sizes and modification times, the
 *   directories it hides, the temporary directory).
 *
 * Only successes are recorded. A probe that fails runs again in every process, so a missing
 * isolation is still found and warned about each time (AL8031, AL8060), and a cached success
 * can only claim isolation that an isolated launch then attempts (a launch that fails is
 * reported as such, never run without isolation). Without `/proc` (not Linux) nothing is
 * cached. A cache that cannot be read or written changes nothing but the time.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { updateWithFileStats } from "../../common/file-stats-hash.js";
import * as os from "node:os";
import * as path from "node:path";
import { writeFileConfined } from "../../common/confined-write.js";
import { readSmallRegularFile } from "../../common/small-file.js";

/** The cache file, relative to the agent root. */
export const ISOLATION_CACHE_FILE = ".assemblyline/cache/isolation.json";

/**
 * The most bytes of `isolation.json` read (two records of a fingerprint and a short value). A
 * larger file, a link, a FIFO or a device is not read (`common/small-file.ts`): a miss.
 */
const MAX_ISOLATION_CACHE_BYTES = 16 * 1024;

/** Which probe a record belongs to. */
export type ProbeKind = "process" | "shell";

/** The kernel settings read into the fingerprint (absent files are recorded as absent). */
const KERNEL_SETTINGS = ["/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"];
const NAMESPACES = ["user", "mnt", "pid", "net"];

let cacheRoot: string | undefined;

/**
 * Successes found while the root's `.assemblyline/` did not exist yet: a fresh agent's first
 * `call` starts its probes before it compiles, and they finish before the compile makes the
 * folder. Written when the root is named again and the folder exists ({@link useIsolationCache},
 * which `openRuntime` calls after the compile), so the agent's second call already knows them.
 */
const pending = new Map<ProbeKind, { readonly fingerprint: string; readonly value: string }>();

/**
 * Names the agent root whose `.assemblyline/cache/` keeps the probes' successes in this process
 * (the first root named wins: the probes run once per process). `openRuntime` and
 * `startIsolationProbes` call it before probing; without it nothing is cached. Naming the root
 * again writes the successes kept while its `.assemblyline/` did not exist, once it does.
 */
export function useIsolationCache(root: string): void {
  cacheRoot ??= path.resolve(root);
  if (pending.size > 0 && cacheRoot === path.resolve(root)) {
    for (const [kind, { fingerprint, value }] of [...pending]) recordSuccess(kind, fingerprint, value);
  }
}

/**
 * The fingerprint of a probe's outcome on this machine now: `kind`, the `inputs` the probe
 * gives (executable paths) with the size and modification time of each existing file among
 * them, the `directories` it mounts over (the hidden host directories) by identity — device and
 * inode, not modification time, which changes whenever anything creates a file in them (any
 * POSIX semaphore in `/dev/shm`) and says nothing about whether a mount over them works — and
 * the machine facts of the module comment. `undefined` when the facts cannot be read (then
 * nothing is cached).
 */
export function isolationFingerprint(kind: ProbeKind, inputs: readonly string[], directories: readonly string[] = []): string | undefined {
  if (process.platform !== "linux") return undefined;
  const hash = createHash("sha256").update(`${kind}\0${os.release()}\0${os.tmpdir()}\0${process.getuid?.()}\0${process.getgid?.()}`);
  try {
    hash.update(`\0${fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()}`);
    for (const name of NAMESPACES) hash.update(`\0${fs.readlinkSync(`/proc/self/ns/${name}`)}`);
  } catch {
    return undefined;
  }
  for (const file of KERNEL_SETTINGS) {
    let value = "absent";
    try {
      value = fs.readFileSync(file, "utf8").trim();
    } catch {
      // Not on this kernel.
    }
    hash.update(`\0${file}=${value}`);
  }
  // A bare command name (not a path) is fingerprinted by its name alone.
  for (const input of inputs) if (!path.isAbsolute(input)) hash.update(`\0${input}`);
  updateWithFileStats(hash, inputs.filter((input) => path.isAbsolute(input)));
  for (const directory of directories) {
    const stat = fs.statSync(directory, { throwIfNoEntry: false });
    hash.update(stat?.isDirectory() ? `\0${directory}\0${stat.dev}:${stat.ino}` : `\0${directory}\0missing`);
  }
  return hash.digest("base64url");
}

/**
 * The value recorded with a success of `kind` under `fingerprint`, or `undefined` when the
 * cache holds none (no cache root, no file, another fingerprint, an unreadable file).
 */
export function cachedSuccess(kind: ProbeKind, fingerprint: string | undefined): string | undefined {
  if (cacheRoot === undefined || fingerprint === undefined) return undefined;
  try {
    const record = JSON.parse(readSmallRegularFile(path.join(cacheRoot, ISOLATION_CACHE_FILE), MAX_ISOLATION_CACHE_BYTES) ?? "null") as { [kind: string]: { fingerprint?: unknown; value?: unknown } | undefined } | null;
    if (record === null || typeof record !== "object") return undefined;
    const entry = Object.hasOwn(record, kind) ? record[kind] : undefined;
    return entry?.fingerprint === fingerprint && typeof entry.value === "string" ? entry.value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records a success of `kind` under `fingerprint` with `value` (what the probe found beyond
 * "it works", e.g. whether `unshare` knows `--kill-child`), keeping the other kind's record.
 * Written confined to the root (never through a link out of it), and only when the root's
 * `.assemblyline/` already exists; until then kept in this process, and written when
 * {@link useIsolationCache} names the root again. Never throws.
 */
export function recordSuccess(kind: ProbeKind, fingerprint: string | undefined, value: string): void {
  if (cacheRoot === undefined || fingerprint === undefined) return;
  const file = path.join(cacheRoot, ISOLATION_CACHE_FILE);
  try {
    // Never creates the root or its state directory (a mistyped root stays missing: AL1024); a
    // success is kept until the folder exists (see `pending`).
    if (!fs.statSync(path.join(cacheRoot, ".assemblyline"), { throwIfNoEntry: false })?.isDirectory()) {
      pending.set(kind, { fingerprint, value });
      return;
    }
    pending.delete(kind);
    let record: { [kind: string]: unknown } = {};
    try {
      const read = JSON.parse(readSmallRegularFile(file, MAX_ISOLATION_CACHE_BYTES) ?? "null") as unknown;
      if (read !== null && typeof read === "object" && !Array.isArray(read)) record = read as { [kind: string]: unknown };
    } catch {
      // None yet, or unreadable: start afresh.
    }
    const kept = Object.fromEntries(Object.entries(record).filter(([name]) => name !== kind && (name === "process" || name === "shell")));
    writeFileConfined(cacheRoot, file, `${JSON.stringify({ ...kept, [kind]: { fingerprint, value } })}\n`, { createFolders: true });
  } catch {
    // Only a shortcut: the next process probes again.
  }
}
