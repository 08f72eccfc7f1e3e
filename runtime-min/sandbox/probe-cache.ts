/**
 * Remembers, per agent and per user, that an isolation probe succeeded on this machine as it is now (issue 14
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
 *
 * **Per user too** (the test suite's budget, docs/performance.md): a success is also kept in the
 * user's private cache folder, the one the code caches use (`common/private-cache-folder.ts`:
 * `assembly-line-code-cache-<uid>` under the OS temporary folder, mode 0700, not used when it is
 * a link, another user's, or writable by group or others), one file per kind and fingerprint
 * (`isolation-<hash>.json`), so that a new agent's first `call` does not probe again on a
 * machine where another agent's did. Read after the agent's own record, only once a root is
 * named; a hit there is copied into the agent's record. Written with every success, mode 0600;
 * a record file that is not this user's or that group or others can write is not read (checked
 * on the open file: `isPrivateStat`). It follows the folder's rules, not its switch: it holds
 * no code, so `ASSEMBLY_LINE_CODE_CACHE=0` leaves it on. Stale files (30 days) are pruned by the
 * process that writes one.
 *
 * **Why a forged record cannot weaken isolation** (per agent or per user): a record holds only
 * successes, and a success only says "launch the sandbox process, or the shell command, inside
 * the namespaces and link guard". A record that claims that wrongly makes the isolated launch
 * be attempted on a machine where it fails: the launch's failure is reported for that call
 * (a sandbox process that does not start; a shell command that "did not run: its isolation
 * could not be set up", `ShellIsolationSetupError`), and nothing then runs without isolation. A record cannot say "run unisolated": that is the outcome of a failed probe,
 * which is never recorded. The worst a forger gets is calls that fail, in the agent they can
 * write, or — per user — only as this user, who can write the folder anyway.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { updateWithFileStats } from "../../common/file-stats-hash.js";
import * as os from "node:os";
import * as path from "node:path";
import { writeFileConfined } from "../../common/confined-write.js";
import { defaultCodeCacheFolder, isPrivateFolder, isPrivateStat, pruneStaleCacheFiles } from "../../common/private-cache-folder.js";
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

/** The per-user record files and the temporaries of killed writers (`common/confined-write.ts`), for pruning. */
const USER_RECORD_FILE = /^isolation-[0-9a-f]{32}\.json(?:\.\d+-[0-9a-f]{8}\.tmp)?$/;

/** The most bytes of a per-user record (one kind's fingerprint and value). */
const MAX_USER_RECORD_BYTES = 4 * 1024;

/** The per-user folder: `undefined` until first needed, `null` when there is none (not private, not creatable). */
let userFolder: string | null | undefined;

/** What this process's cache did (for tests and benchmarks). */
export interface IsolationCacheStats {
  /** Lookups answered by the agent's own record. */
  readonly agentHits: number;
  /** Lookups answered by the per-user record (the agent's had none). */
  readonly userHits: number;
  /** Lookups neither record answered (with a root named and a fingerprint): the probe runs. */
  readonly misses: number;
  /** Per-user record files written. */
  readonly userWrites: number;
}

const stats = { agentHits: 0, userHits: 0, misses: 0, userWrites: 0 };

/** What the cache did in this process so far: hits per record, misses, per-user writes. */
export function isolationCacheStats(): IsolationCacheStats {
  return { ...stats };
}

/**
 * Names the per-user folder instead of the default (`assembly-line-code-cache-<uid>` under the
 * OS temporary folder), or `null` for none: for tests. The folder is used only when it is
 * private (`isPrivateFolder`, checked when next needed).
 */
export function useUserIsolationFolder(dir: string | null): void {
  userFolder = dir === null ? null : isPrivateFolder(dir) ? dir : null;
}

/** The per-user folder, checked once per process; `undefined` when there is none. */
function privateFolder(): string | undefined {
  if (userFolder === undefined) {
    const dir = defaultCodeCacheFolder();
    userFolder = isPrivateFolder(dir) ? dir : null;
  }
  return userFolder ?? undefined;
}

/** The per-user record's file for `kind` under `fingerprint` in `folder`. */
function userRecordFile(folder: string, kind: ProbeKind, fingerprint: string): string {
  return path.join(folder, `isolation-${createHash("sha256").update(`${kind}\0${fingerprint}`).digest("hex").slice(0, 32)}.json`);
}

/** The value of the per-user record of `kind` under `fingerprint`, when one is there and is this user's alone. */
function userSuccess(kind: ProbeKind, fingerprint: string): string | undefined {
  const folder = privateFolder();
  if (folder === undefined) return undefined;
  try {
    const record = JSON.parse(readSmallRegularFile(userRecordFile(folder, kind, fingerprint), MAX_USER_RECORD_BYTES, isPrivateStat) ?? "null") as { kind?: unknown; fingerprint?: unknown; value?: unknown } | null;
    return record !== null && typeof record === "object" && record.kind === kind && record.fingerprint === fingerprint && typeof record.value === "string" ? record.value : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the per-user record of a success (atomically, mode 0600, confined to the folder), then prunes stale ones. Never throws. */
function recordUserSuccess(kind: ProbeKind, fingerprint: string, value: string): void {
  const folder = privateFolder();
  if (folder === undefined) return;
  try {
    if (writeFileConfined(folder, userRecordFile(folder, kind, fingerprint), `${JSON.stringify({ kind, fingerprint, value })}\n`, { mode: 0o600, durable: false }) === undefined) stats.userWrites += 1;
    pruneStaleCacheFiles(folder, USER_RECORD_FILE);
  } catch {
    // Only a shortcut: the next agent probes again.
  }
}

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
    for (const [kind, { fingerprint, value }] of [...pending]) recordAgentSuccess(kind, fingerprint, value);
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
 * The value recorded with a success of `kind` under `fingerprint`: the agent's record first,
 * then the per-user one (a hit there is copied into the agent's record); `undefined` when
 * neither holds one (no cache root, no file, another fingerprint, an unreadable or foreign file).
 */
export function cachedSuccess(kind: ProbeKind, fingerprint: string | undefined): string | undefined {
  if (cacheRoot === undefined || fingerprint === undefined) return undefined;
  const agent = agentSuccess(kind, fingerprint);
  if (agent !== undefined) {
    stats.agentHits += 1;
    return agent;
  }
  const user = userSuccess(kind, fingerprint);
  if (user === undefined) {
    stats.misses += 1;
    return undefined;
  }
  stats.userHits += 1;
  recordAgentSuccess(kind, fingerprint, user);
  return user;
}

/** The value of the agent's own record of `kind` under `fingerprint`, if any. */
function agentSuccess(kind: ProbeKind, fingerprint: string): string | undefined {
  if (cacheRoot === undefined) return undefined;
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
 * "it works", e.g. whether `unshare` knows `--kill-child`) in the agent's record, keeping the
 * other kind's, and in the per-user one. Only once a root is named. The agent's record is
 * written confined to the root (never through a link out of it), and only when the root's
 * `.assemblyline/` already exists; until then kept in this process, and written when
 * {@link useIsolationCache} names the root again. Never throws.
 */
export function recordSuccess(kind: ProbeKind, fingerprint: string | undefined, value: string): void {
  if (cacheRoot === undefined || fingerprint === undefined) return;
  recordAgentSuccess(kind, fingerprint, value);
  recordUserSuccess(kind, fingerprint, value);
}

/** Writes the agent's record of a success (see {@link recordSuccess}). Never throws. */
function recordAgentSuccess(kind: ProbeKind, fingerprint: string, value: string): void {
  if (cacheRoot === undefined) return;
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
