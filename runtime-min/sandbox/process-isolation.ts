/**
 * How a sandbox child process is launched so that it cannot reach its host (issue 12 items 1–3;
 * seed "Execution Model": authored code runs in "a separate sandboxed Node process").
 *
 * The child is started as
 *
 *     setpriv --pdeathsig KILL -- unshare --user --map-root-user --pid --fork --mount-proc
 *       --kill-child [--net] -- /bin/sh -c <link guard> … node <flags> --input-type=module - <bridgeDir>
 *
 * in its own session and process group (`spawn(..., { detached: true })`):
 *
 * - **Own PID namespace** (`--pid --fork --mount-proc`): the child is PID 1 of a namespace that
 *   holds nothing else, with its own `/proc`. It cannot name — signal, trace, read the
 *   `/proc/<pid>` of — any host process: `process.ppid` is 0 and `process.kill(<host pid>)`
 *   fails with ESRCH. The user namespace (`--user --map-root-user`) makes this work without
 *   privileges and leaves the child's rights on files those of the host user.
 * - **Own session** (`detached`): a signal to a process group reaches every member whatever
 *   namespace the sender is in, so `process.kill(0, sig)` would otherwise hit the host's group.
 * - **Dies with its host, whatever kills the host**: `setpriv --pdeathsig KILL` sets the
 *   kernel's parent-death signal on the `unshare` process (kept across `execve`), so the end of
 *   the host — SIGKILL included — kills it, and `--kill-child` sets the same signal on the Node
 *   child it forks. Node has no `prctl`, and a watchdog inside the child cannot run while a tool
 *   loops (`for (;;) {}` blocks its event loop); the kernel needs no cooperation from the child.
 *   The probe checks `setpriv --pdeathsig` on its own first (`./launchers.ts`): one without it
 *   (util-linux < 2.33, busybox) is left out of the launch, which then relies on `--kill-child`.
 * - **Network policy `"none"`** (`--net`): a new network namespace whose only device, the
 *   loopback, is down, so every connection fails.
 * - **No symbolic link in the workspace is followed** (`nosymfollow`, {@link LINK_GUARD_SCRIPT}):
 *   the permission model checks the path a tool names, not where a link in it leads, and an
 *   isolated shell command (`ctx.getSandbox().exec`, `./shell-isolation.ts`) can leave a link in
 *   the workspace (`ln -s / out`) that its own namespace makes harmless but the child would
 *   follow, to read and write anything the host user can (review of 5 December, F0). Inside the
 *   child's mount namespace the workspace is bind-mounted onto itself with `nosymfollow`, so
 *   every path through a link there fails with `ELOOP`; the host's view is unchanged. A shell
 *   cannot make a hard link into the workspace either: there the workspace is a mount of its own
 *   (`link` across mounts fails with `EXDEV`), and the child may not call `link`.
 * - **A bounded data size** (`RLIMIT_DATA`: the link guard's `ulimit -d`, else `prlimit --data`): the heap limit (`memoryMb`,
 *   `--max-old-space-size`) does not count `Buffer`s and `ArrayBuffer`s, so the child's data as
 *   a whole is capped at twice `memoryMb` plus a headroom (`../host-limits.ts`); an allocation
 *   past it fails in the tool (`RangeError: Array buffer allocation failed`) or stops the
 *   process. Without either (not Linux, no util-linux) only the heap is limited.
 *
 * Whether this works is probed once per process with the real launch (a success is remembered
 * per agent while the machine stays as it is: `./probe-cache.ts`). Where it does not (not
 * Linux, no util-linux, user namespaces disabled) the child still gets its own session and,
 * with a `setpriv` that passed its check, the parent-death signal; the runtime warns (AL8060) and refuses network
 * policy `"none"` (AL8061), which it cannot enforce.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LINK_GUARD_SCRIPT, hiddenSocketDirs, launchKeptPaths, writeLinkGuardTable, type LinkGuardPaths } from "./link-guard.js";
import { findExecutable, PROBE_TIMEOUT_MS, rememberedSetpriv, setprivWorks, withSetprivNote } from "./launchers.js";
import { cachedSuccess, isolationFingerprint, recordSuccess } from "./probe-cache.js";

/** Network policy of sandboxed tools (host-owned, like the execution mode). */
export type NetworkPolicy = "host" | "none";

/** The policies, for validation and messages. */
export const NETWORK_POLICIES: readonly NetworkPolicy[] = ["host", "none"];

/** The executables of a launch (absolute paths; `undefined` when unusable here). */
export interface LaunchTools {
  /** util-linux `setpriv` (parent-death signal), when present. */
  readonly setpriv: string | undefined;
  /** util-linux `unshare`, when the probe showed that the namespaces work. */
  readonly unshare: string | undefined;
  /** util-linux `prlimit` (the process's data size, the backstop of `memoryMb`), when present. */
  readonly prlimit: string | undefined;
  /**
   * util-linux `mount`, when the probe showed that the link guard works with `unshare` (Linux ≥
   * 5.10, util-linux ≥ 2.38): the child's workspace is bind-mounted onto itself `nosymfollow` in
   * the child's own mount namespace ({@link LINK_GUARD_SCRIPT}).
   */
  readonly mount?: string;
}

/** What the once-per-process probe found. */
export interface ProcessIsolationProbe {
  readonly tools: LaunchTools;
  /** Why the child cannot get its own PID and network namespaces here; absent when it can. */
  readonly unavailableReason?: string;
  /**
   * Why the child gets its namespaces but not the link guard (util-linux `mount` before 2.38,
   * Linux before 5.10): `tools.mount` is then unset. The runtime then counts shell commands as
   * not isolated for sandboxed tools (`WorkspaceShell.withoutLinkGuard`).
   */
  readonly linkGuardUnavailableReason?: string;
}

/** A command line that starts a sandbox child. */
export interface SandboxLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** True when the child runs in its own PID namespace (and, for `"none"`, network namespace). */
  readonly isolated: boolean;
}

/**
 * The command line of a sandbox child: `program` (this Node unless given: the probe passes
 * `/bin/sh`) with `nodeArgs`, wrapped as the module comment describes in what `tools` offers.
 * With `dataLimitMb`, `program` runs under that data size (`RLIMIT_DATA`, soft and hard, set
 * for the child alone): by the link guard's shell (`ulimit -d`) where it runs, else by
 * `prlimit --data=<bytes> --` (innermost) where `tools.prlimit` is.
 * With `guard`, `tools.unshare` and `tools.mount`, the link guard runs first in the child's
 * namespaces (`./link-guard.ts`): its mount table is written into `guard.tableDir` now, with
 * the certificates the host names to Node and OpenSSL (`./sandbox-environment.ts`) and, under
 * the host's network, the resolver's configuration kept visible. Network `"none"` needs
 * `tools.unshare` (callers check). Throws what writing the table throws.
 */
export function sandboxLaunch(tools: LaunchTools, nodeArgs: readonly string[], network: NetworkPolicy, program: string = process.execPath, dataLimitMb?: number, guard?: LinkGuardPaths): SandboxLaunch {
  let command = program;
  let args: string[] = [...nodeArgs];
  let isolated = false;
  const guarded = tools.unshare !== undefined && tools.mount !== undefined && guard !== undefined;
  // Under the link guard its shell sets the data size itself (`ulimit -d`): one process fewer.
  if (tools.prlimit && dataLimitMb !== undefined && !guarded) {
    args = [`--data=${dataLimitMb * 1024 * 1024}`, "--", command, ...args];
    command = tools.prlimit;
  }
  if (guarded) {
    // The certificates, and under the host's network the resolver's configuration, wherever it lies (`/run/systemd/resolve/`…).
    const keep = [...guard.keep, ...launchKeptPaths(network)];
    const mount = tools.mount as string;
    const table = writeLinkGuardTable({ ...guard, keep }, [program, mount, PROBE_SHELL]);
    args = ["-c", LINK_GUARD_SCRIPT, "link-guard", mount, table, guard.workspace, dataLimitMb === undefined ? "" : String(dataLimitMb * 1024), command, ...args];
    command = PROBE_SHELL;
  }
  if (tools.unshare) {
    args = ["--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "--kill-child", ...(network === "none" ? ["--net"] : []), "--", command, ...args];
    command = tools.unshare;
    isolated = true;
  }
  if (tools.setpriv) {
    args = ["--pdeathsig", "KILL", "--", command, ...args];
    command = tools.setpriv;
  }
  return { command, args, isolated };
}

/** The program the probe launches in the namespaces (POSIX requires it at this path). */
const PROBE_SHELL = "/bin/sh";
let probe: Promise<ProcessIsolationProbe> | undefined;
let override: LaunchTools | undefined;

/**
 * Replaces the probe's findings (tests: `{ setpriv: undefined, unshare: undefined, prlimit:
 * undefined }` launches children as before this hardening, to reproduce what it prevents; a
 * `prlimit` left out drops the data-size backstop). `undefined` restores the probe. Call it
 * before `openRuntime`.
 */
export function setSandboxLaunchTools(tools: LaunchTools | undefined): void {
  override = tools;
}

/**
 * Probes once per process which launch works here: finds `setpriv` and `unshare` and runs the
 * isolated launch (network namespace included, the same flags as a sandbox child's) of
 * `/bin/sh -c` checking it is PID 1 with no parent in its namespace. A shell rather than Node
 * (issue 14 item 3, `call` start-up): the namespaces are what is probed, and a shell starts in
 * ~1 ms where Node takes ~80 ms of CPU; a Node that then fails to start inside them is the
 * sandbox start failure of that call, reported as such. Never throws.
 */
export function probeProcessIsolation(): Promise<ProcessIsolationProbe> {
  if (override) return Promise.resolve(override.unshare ? { tools: override } : { tools: override, unavailableReason: "the host turned it off (setSandboxLaunchTools)" });
  probe ??= runProbe();
  return probe;
}

/**
 * The launchers a sandbox process gets now, when they are known without launching anything:
 * those {@link setSandboxLaunchTools} set, or those of an isolated launch this machine, as it is
 * now, is remembered to allow (`./probe-cache.ts`, the root named by `useIsolationCache`), found
 * as the probe finds them. `undefined` when only the probe can tell. Synchronous: what a `call`
 * reads before it may start its sandbox process early (`../execution/early-start.ts`). Never
 * throws.
 */
export function knownLaunchTools(): LaunchTools | undefined {
  if (override) return override;
  try {
    const found = findLaunchers();
    return found.kind === "remembered" ? found.tools : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes `tools` as this process's probe result, unless a probe already started: the launchers
 * a `call`'s early start found with {@link knownLaunchTools} in the binary's own copy of this
 * module (`../execution/early-start.ts`), which is what the probe would find from the same
 * remembered success, so it is not looked for twice (issue 14 item 3). Never throws.
 */
export function takeKnownLaunchTools(tools: LaunchTools): void {
  probe ??= Promise.resolve({ tools });
}

/** The launchers on this machine, and whether an isolated launch of them is remembered to work. */
function findLaunchers():
  | { readonly kind: "unavailable"; readonly probe: ProcessIsolationProbe }
  | { readonly kind: "remembered"; readonly tools: LaunchTools }
  | { readonly kind: "unknown"; readonly tools: LaunchTools & { readonly unshare: string; readonly mount: string }; readonly fingerprint: string | undefined } {
  if (process.platform !== "linux") return { kind: "unavailable", probe: { tools: { setpriv: undefined, unshare: undefined, prlimit: undefined }, unavailableReason: `namespaces are a Linux feature and this host runs ${process.platform}` } };
  const setpriv = findExecutable("setpriv");
  const unshare = findExecutable("unshare");
  // Not probed: a `prlimit` that fails makes the child's start fail, which that call reports.
  const prlimit = findExecutable("prlimit");
  if (!unshare) return { kind: "unavailable", probe: { tools: { setpriv, unshare: undefined, prlimit }, unavailableReason: "util-linux `unshare` was not found on PATH" } };
  const mount = findExecutable("mount", [path.dirname(unshare)]);
  if (!mount) return { kind: "unavailable", probe: { tools: { setpriv, unshare: undefined, prlimit }, unavailableReason: "util-linux `mount` (the link guard) was not found on PATH" } };
  // A success on this machine as it is now is remembered per agent (./probe-cache.ts); the
  // kernel's release is part of it, since the link guard needs Linux 5.10.
  const fingerprint = isolationFingerprint("process", [setpriv ?? "no setpriv", unshare, mount, PROBE_SHELL, `kernel ${os.release()}`, "link guard: one mount table, ulimit -d"], hiddenSocketDirs([process.execPath, mount, PROBE_SHELL]));
  const remembered = cachedSuccess("process", fingerprint);
  const note = rememberedSetpriv(remembered);
  const base = note?.value;
  const kept = note?.setprivLeftOut ? undefined : setpriv;
  if (base === ISOLATED_WITH_LINK_GUARD) return { kind: "remembered", tools: { setpriv: kept, unshare, prlimit, mount } };
  if (base === ISOLATED_WITHOUT_LINK_GUARD) return { kind: "remembered", tools: { setpriv: kept, unshare, prlimit } };
  return { kind: "unknown", tools: { setpriv, unshare, prlimit, mount }, fingerprint };
}

/** What the probe cache remembers of a launch that isolates and guards links (older records said "isolated"). */
const ISOLATED_WITH_LINK_GUARD = "isolated, links guarded";
/** What it remembers of a launch that isolates but whose link guard failed. */
const ISOLATED_WITHOUT_LINK_GUARD = "isolated, links not guarded";
/** The reason said for a remembered launch without the link guard. */
const NO_LINK_GUARD = "`mount --bind -o nosymfollow` did not work here (it needs util-linux 2.38 and Linux 5.10)";

async function runProbe(): Promise<ProcessIsolationProbe> {
  const found = findLaunchers();
  if (found.kind === "unavailable") return found.probe;
  if (found.kind === "remembered") return found.tools.mount ? { tools: found.tools } : { tools: found.tools, linkGuardUnavailableReason: NO_LINK_GUARD };
  const { tools, fingerprint } = found;
  const { unshare, prlimit, mount } = tools;
  // A `setpriv` that cannot set the parent-death signal is left out rather than failing every launch.
  const setpriv = tools.setpriv !== undefined && (await setprivWorks(tools.setpriv)) ? tools.setpriv : undefined;
  const leftOut = setpriv !== tools.setpriv;
  const namespaces = `\`${unshare} --user --map-root-user --pid --net\``;
  // The launch of a sandbox process, with `/bin/sh` for Node, in a workspace holding a link that
  // the guard must keep the shell from following (`test -e` through it fails with ELOOP), and
  // keeping a file outside it: under `/tmp`, a hidden folder, this runs every kind of line of
  // the link guard's table (`./link-guard.ts`).
  let folder: string | undefined;
  let failure: string | undefined;
  try {
    folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "assembly-line-probe-")));
    const workspace = path.join(folder, "workspace");
    const kept = path.join(folder, "kept", "file");
    const tableDir = path.join(folder, "table");
    fs.mkdirSync(workspace);
    fs.mkdirSync(path.dirname(kept));
    fs.mkdirSync(tableDir, { mode: 0o700 });
    fs.writeFileSync(kept, "kept\n");
    fs.symlinkSync("/", path.join(workspace, "link"));
    const check = `${PID_ONE_CHECK}; ! test -e "$1/link/" || { echo "mount -o nosymfollow did not stop a link (Linux 5.10 and util-linux 2.38 are needed)" >&2; exit 1; }; test -f "$2" || { echo "the link guard hid a path it keeps" >&2; exit 1; }`;
    const failed = await launchFails(sandboxLaunch({ setpriv, unshare, prlimit: undefined, mount }, ["-c", check, "probe", workspace, kept], "none", PROBE_SHELL, PROBE_DATA_LIMIT_MB, { workspace, keep: [kept], tableDir }));
    failure = failed && `${namespaces} with the link guard (\`mount -a\` of its table: \`nosymfollow\` binds, \`X-mount.mkdir\`) failed: ${failed}`;
  } catch (error) {
    failure = `could not prepare the link guard's probe folder: ${(error as Error).message}`;
  } finally {
    if (folder !== undefined) fs.rmSync(folder, { recursive: true, force: true });
  }
  if (failure === undefined) {
    recordSuccess("process", fingerprint, withSetprivNote(ISOLATED_WITH_LINK_GUARD, leftOut));
    return { tools: { setpriv, unshare, prlimit, mount } };
  }
  // The namespaces without the guard (an older util-linux or kernel): kept, so that the PID and
  // network isolation and `network: "none"` still hold; the runtime then counts shell commands
  // of sandboxed tools as not isolated (review of 5 December, N1).
  const plainFailure = await launchFails(sandboxLaunch({ setpriv, unshare, prlimit: undefined }, ["-c", PID_ONE_CHECK], "none", PROBE_SHELL));
  if (plainFailure !== undefined) return { tools: { setpriv, unshare: undefined, prlimit }, unavailableReason: `${namespaces} failed: ${plainFailure}` };
  recordSuccess("process", fingerprint, withSetprivNote(ISOLATED_WITHOUT_LINK_GUARD, leftOut));
  return { tools: { setpriv, unshare, prlimit }, linkGuardUnavailableReason: failure };
}

/** The data size the probe's launch runs under (the link guard's `ulimit -d`), ample for a shell. */
const PROBE_DATA_LIMIT_MB = 256;

/** The probe's check that the shell is PID 1 of a namespace of its own, with no parent in it. */
const PID_ONE_CHECK = 'test $$ -eq 1 && test "$PPID" -eq 0 || { echo "not PID 1 of its own namespace" >&2; exit 1; }';

/** Runs a probe's launch; resolves with what it printed when it failed, `undefined` when it succeeded. */
function launchFails(launch: SandboxLaunch): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(launch.command, launch.args, { timeout: PROBE_TIMEOUT_MS, killSignal: "SIGKILL", encoding: "utf8" }, (error, _stdout, stderr) => {
      resolve(error ? stderr.trim() || error.message : undefined);
    });
  });
}
