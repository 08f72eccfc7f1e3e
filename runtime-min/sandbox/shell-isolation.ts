/**
 * Process and file-system isolation of shell commands (`ctx.getSandbox().exec` and the core
 * `bash` tool; seed "Execution Model": `ctx.getSandbox()` is "for isolated file or shell work",
 * and the sandbox "does not receive host secrets"; seed "file transfer and user delivery":
 * handoff paths are readable by the parent surface only, blobs are private; issues 4 and 5).
 *
 * A command runs under util-linux `unshare`, never as a direct child shell of the host:
 *
 * 1. `unshare --user --map-root-user --mount --pid --fork --mount-proc [--kill-child]` — a new
 *    user namespace (the host's user is root inside it), a private copy of the host's mounts
 *    and a new PID namespace with its own `/proc`, so the host process, its `/proc/<pid>/environ`
 *    and every other host process are invisible (`$PPID` is 0). With `--kill-child`, killing
 *    the `unshare` process (SIGKILL on timeout) kills every process of the command.
 * 2. {@link SHELL_ISOLATION_SETUP} runs as PID 1 of that namespace. It first bounds the
 *    namespace's process count: it writes {@link SHELL_PROCESS_LIMIT} + 1 to the namespace's own
 *    `/proc/sys/kernel/pid_max` (per PID namespace since Linux 6.14; on older kernels the write
 *    fails and is ignored, leaving `prlimit --nproc`). Then it hides the runtime's
 *    state directory (`<root>/.assemblyline/`: other runs' workspaces, `state.db`, the blob
 *    store, handoffs, deliveries, a fallback bridge) except the run's own workspace:
 *    a. *stage*: mounts an empty tmpfs over the first hidden host directory (`/dev/shm`, else
 *       `$XDG_RUNTIME_DIR`, else `/tmp`) that does not contain the state directory, and
 *       bind-mounts the workspace onto it;
 *    b. mounts an empty tmpfs over each other hidden host directory — `/dev/shm` and
 *       `$XDG_RUNTIME_DIR`, where the sandbox bridge (and the session bus) live;
 *    c. mounts an empty tmpfs over the state directory, creates the workspace's path in it and
 *       `mount --move`s the staged workspace there: the workspace keeps its absolute path, and
 *       `..` from it walks only through empty directories of the tmpfs;
 *    d. reads `/proc/self/mountinfo` and remounts every other read-write mount point read-only
 *       (`/` included, the new tmpfs mounts too; `/proc` is the namespace's own and stays;
 *       mounts beneath a hidden directory are unreachable and skipped), keeping each mount's
 *       locked `nosuid`/`nodev`/`noexec` flags;
 *    e. enters the workspace only then, so no working directory keeps a reference into the
 *       hidden tree. Any failure stops it (exit 125 and a {@link ISOLATION_FAILURE_MARKER} line
 *       on stderr): the command never runs half-isolated.
 * 3. It then `exec`s `unshare --user --map-root-user --mount --pid --fork --mount-proc --
 *    /bin/sh -c "$command"`. The second user namespace makes every mount it inherits *locked*:
 *    the command cannot unmount the namespace's `/proc` to reach the host's, nor a tmpfs to
 *    reveal what it hides, nor remount `/` read-write, nor bind-mount a directory without the
 *    mounts that cover parts of it, although it is root inside (without this step it could do
 *    all of these). The second PID namespace keeps the first one's `pid_max` out of the
 *    command's reach: Linux lets a process write the `pid_max` of its own PID namespace only,
 *    and lets it do so when its user is the namespace's root, which every namespace here maps to
 *    the host's user; a process of the command still needs a PID in the first namespace too.
 *
 * The command is a positional argument of both shells, never part of the script text. The
 * environment is the caller's (the sandbox allowlist), and the working directory the
 * workspace. What stays: the rest of the file system is readable (read-only) — the agent root
 * beside `.assemblyline/`, the host user's home, `/etc` — unix sockets outside the hidden
 * directories can still be connected to, and the network is the host's. Background processes
 * end with the command (PID 1 of the namespace exits).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { existingRealFolders, hiddenSocketDirs } from "./link-guard.js";
import { sandboxEnvironment } from "./sandbox-environment.js";
import { findExecutable, PROBE_TIMEOUT_MS, rememberedSetpriv, setprivWorks, SYSTEM_DIRS, withSetprivNote } from "./launchers.js";
import { cachedSuccess, isolationFingerprint, recordSuccess } from "./probe-cache.js";

/**
 * Host policy for shell commands (`RuntimeOptions.shellIsolation`; never set by agent files):
 * `"auto"` (default) isolates when {@link probeShellIsolation} succeeds and otherwise runs
 * commands unisolated with one runtime warning (AL8031); `"required"` fails a shell request
 * without isolation with `configuration_error`; `"off"` never isolates (the host's choice).
 */
export type ShellIsolationPolicy = "auto" | "required" | "off";

/** The policies, for validation and messages. */
export const SHELL_ISOLATION_POLICIES: readonly ShellIsolationPolicy[] = ["auto", "required", "off"];

/** The executables an isolated command needs (absolute paths) and what `unshare` supports. */
export interface ShellIsolationTools {
  readonly unshare: string;
  readonly mount: string;
  /** coreutils `mkdir`: creates the workspace's path inside the tmpfs over the state directory. */
  readonly mkdir: string;
  /** True when `unshare` accepted `--kill-child` (util-linux ≥ 2.32). */
  readonly killChild: boolean;
  /**
   * util-linux `setpriv`, when present and the probe ran the isolated command under
   * `setpriv --pdeathsig KILL` (util-linux ≥ 2.33): commands start under it, so they die with the host.
   */
  readonly setpriv?: string;
  /**
   * util-linux `prlimit`, when present: commands start under it, with at most
   * {@link SHELL_PROCESS_LIMIT} processes and the data size their runtime gives them
   * (`IsolatedCommand.dataLimitMb`).
   */
  readonly prlimit?: string;
}

/**
 * Most processes (threads included) one shell command may run at once: a fork bomb in a command
 * stops there, with `fork` failing `EAGAIN` ("Resource temporarily unavailable"), instead of
 * filling the host's process table (helper-65 E5, helper-89 finding 8). Two bounds apply it:
 * - the command's PID namespace has no PID above it (`pid_max`, written by
 *   {@link SHELL_ISOLATION_SETUP}; Linux 6.14 and later). This one also holds for a host
 *   running as root;
 * - `RLIMIT_NPROC` (`prlimit --nproc`, set before the command's user namespaces are made, so it
 *   counts the command's own processes). Linux exempts uid 0 of the initial user namespace from
 *   it, whatever namespace that user enters, so it does not bound a root host.
 * A root host on a kernel before 6.14 has neither (docs/host-policy.md).
 */
export const SHELL_PROCESS_LIMIT = 1024;

/** The result of the once-per-process probe: the tools to use, or why isolation is unavailable. */
export type ShellIsolationProbe =
  | { readonly available: true; readonly tools: ShellIsolationTools }
  | { readonly available: false; readonly reason: string };

/** Starts the stderr line of a setup failure (followed by the reason). */
export const ISOLATION_FAILURE_MARKER = "assembly-line shell isolation: ";
/** Exit code of a setup failure (the command did not run). */
export const ISOLATION_FAILURE_EXIT_CODE = 125;

/**
 * The setup script (`/bin/sh -c SCRIPT name workspace stateDir unshare mount mkdir command
 * pidMax hiddenDir...`; the steps are the module comment's 2–2e). Only builtins besides the three
 * absolute paths it is given. Mount points in mountinfo escape space, tab, newline and
 * backslash as `\ooo`; `decode` turns them back (a trailing `x` keeps a decoded newline from
 * being stripped by the command substitution).
 */
export const SHELL_ISOLATION_SETUP = `set -u
fail() { printf '%s%s\\n' '${ISOLATION_FAILURE_MARKER}' "$1" >&2; exit ${ISOLATION_FAILURE_EXIT_CODE}; }
decode() {
  rest=$1 decoded=
  while :; do
    case $rest in *\\\\*) ;; *) break ;; esac
    decoded=$decoded\${rest%%\\\\*}
    rest=\${rest#*\\\\}
    digits=\${rest%"\${rest#???}"}
    rest=\${rest#???}
    char=$(printf "\\\\\${digits}x")
    decoded=$decoded\${char%x}
  done
  decoded=$decoded$rest
}
cover() {
  err=$("$mount_bin" -t tmpfs -o mode=0755,nosuid,nodev -- tmpfs "$1" 2>&1) || fail "could not mount an empty tmpfs over $1: $err"
}
workspace=$1 state=$2 unshare_bin=$3 mount_bin=$4 mkdir_bin=$5 user_command=$6 pid_max=$7
shift 7
{ printf '%s\\n' "$pid_max" > /proc/sys/kernel/pid_max; } 2>/dev/null || :
case $state in /?*) ;; *) fail "the state directory '$state' is not an absolute path" ;; esac
case $workspace in "$state"/?*) ;; *) fail "the workspace $workspace is not inside the state directory $state" ;; esac
stage=
for dir in "$@" /tmp; do
  [ -d "$dir" ] && [ ! -L "$dir" ] || continue
  case $state/ in "$dir"/*) continue ;; esac
  stage=$dir
  break
done
[ -n "$stage" ] || fail "no directory outside the state directory $state to stage the workspace in"
listed=
for dir in "$@"; do [ "$dir" = "$stage" ] && listed=1; done
[ -n "$listed" ] || set -- "$@" "$stage"
cover "$stage"
err=$("$mount_bin" --bind -- "$workspace" "$stage" 2>&1) || fail "could not bind-mount the workspace $workspace onto $stage: $err"
for dir in "$@"; do
  [ "$dir" = "$stage" ] || [ ! -d "$dir" ] || cover "$dir"
done
err=$("$mkdir_bin" -p -- "$state" 2>&1) || fail "could not create the state directory's path $state: $err"
cover "$state"
err=$("$mkdir_bin" -p -- "$workspace" 2>&1) || fail "could not create the workspace's path $workspace in the empty state directory: $err"
err=$("$mount_bin" --move -- "$stage" "$workspace" 2>&1) || fail "could not move the workspace from $stage to $workspace: $err"
table=
while IFS= read -r line; do table="$table$line
"; done < /proc/self/mountinfo
while read -r _ _ _ _ raw options _; do
  [ -n "$raw" ] || continue
  decode "$raw"
  point=$decoded
  case $point in /proc|/proc/*) continue ;; esac
  [ "$point" = "$workspace" ] && continue
  hidden=
  for dir in "$state" "$@"; do
    case $point in "$dir"/*) hidden=1 ;; esac
  done
  [ -z "$hidden" ] || continue
  case ,$options, in *,ro,*) continue ;; esac
  flags=remount,bind,ro
  case ,$options, in *,nosuid,*) flags=$flags,nosuid ;; esac
  case ,$options, in *,nodev,*) flags=$flags,nodev ;; esac
  case ,$options, in *,noexec,*) flags=$flags,noexec ;; esac
  err=$("$mount_bin" -o "$flags" -- "$point" 2>&1) || fail "could not remount $point read-only: $err"
done <<MOUNTS
$table
MOUNTS
cd -- "$workspace" 2>/dev/null || fail "could not enter the workspace $workspace"
unset OLDPWD
exec "$unshare_bin" --user --map-root-user --mount --pid --fork --mount-proc -- /bin/sh -c "$user_command"`;

/** What one isolated command needs: where it runs, what to hide, and the command itself. */
export interface IsolatedCommand {
  /** Absolute, real path of the run's workspace (the only writable directory). */
  readonly workspace: string;
  /** Absolute, real path of the state directory holding `workspace`; hidden but for it. */
  readonly stateDir: string;
  /** The shell command (`/bin/sh -c`). */
  readonly command: string;
  /** The host's network policy (default `"host"`). */
  readonly network?: "host" | "none";
  /** The data size (`RLIMIT_DATA`, MiB) of each of the command's processes, with `tools.prlimit`; none when absent. */
  readonly dataLimitMb?: number;
}

/**
 * Host directories an isolated command never sees (each gets an empty tmpfs): `/dev/shm` and
 * `$XDG_RUNTIME_DIR` — the places `chooseBridgeRoot` puts the sandbox bridge, which also hold
 * the host user's session sockets. Real paths of the ones that exist, in that order (the first
 * one that does not contain the state directory is where the setup stages the workspace).
 */
export function hiddenHostDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  return existingRealFolders(["/dev/shm"], env);
}

/**
 * What a command under network `"none"` never sees: {@link hiddenHostDirs}, and the other
 * folders where host sockets live (`/run`, `/var/run`, `/tmp`, `/var/tmp`: docker's and the
 * system bus's sockets, ssh and gpg agents…). A network namespace separates only abstract
 * sockets, so without this a command reached every socket file the host user may use
 * (helper-89's review, finding 2). Under the host's network they stay visible (read-only):
 * the resolver's configuration often lives in `/run`, and the network reaches the host's
 * services anyway. Folders holding a program of the setup are left visible.
 */
export function offlineHiddenDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const found = new Set(hiddenHostDirs(env));
  for (const dir of hiddenSocketDirs(["/bin/sh", process.execPath], env)) found.add(dir);
  return [...found];
}

/**
 * The argv (after the `unshare` executable) that runs `run.command` isolated in `run.workspace`;
 * with `run.network` `"none"`, in a network namespace of its own whose only device, the
 * loopback, is down, as the sandbox process's (`./process-isolation.ts`; review of 5 December, N4).
 */
export function isolatedShellArgs(tools: ShellIsolationTools, run: IsolatedCommand, hidden: readonly string[] = hiddenHostDirs()): string[] {
  return [
    "--user",
    "--map-root-user",
    "--mount",
    "--pid",
    "--fork",
    "--mount-proc",
    ...(tools.killChild ? ["--kill-child"] : []),
    ...(run.network === "none" ? ["--net"] : []),
    "--",
    "/bin/sh",
    "-c",
    SHELL_ISOLATION_SETUP,
    "assembly-line-shell-setup",
    run.workspace,
    run.stateDir,
    tools.unshare,
    tools.mount,
    tools.mkdir,
    run.command,
    String(SHELL_PROCESS_LIMIT + 1),
    ...hidden,
  ];
}

/**
 * The whole launch of an isolated command: {@link isolatedShellArgs} under `tools.unshare`,
 * under `tools.prlimit` when the probe found it (at most {@link SHELL_PROCESS_LIMIT} processes,
 * and `run.dataLimitMb` of data each), itself under `tools.setpriv --pdeathsig KILL` when the probe kept `setpriv` (the command dies
 * with the host however the host ends; host-file review of 5 December, H6). The one place the
 * launch line is made, so the probe runs exactly what commands run.
 */
export function isolatedShellLaunch(tools: ShellIsolationTools, run: IsolatedCommand, hidden: readonly string[] = run.network === "none" ? offlineHiddenDirs() : hiddenHostDirs()): { readonly command: string; readonly args: readonly string[] } {
  let command = tools.unshare;
  let args = isolatedShellArgs(tools, run, hidden);
  if (tools.prlimit !== undefined) {
    args = [`--nproc=${SHELL_PROCESS_LIMIT}`, ...(run.dataLimitMb === undefined ? [] : [`--data=${run.dataLimitMb * 1024 * 1024}`]), "--", command, ...args];
    command = tools.prlimit;
  }
  return tools.setpriv === undefined ? { command, args } : { command: tools.setpriv, args: ["--pdeathsig", "KILL", "--", command, ...args] };
}

/** The reason in a setup failure's stderr, or `undefined` when the command itself ran. */
export function isolationFailureOf(exitCode: number, stderr: string): string | undefined {
  if (exitCode !== ISOLATION_FAILURE_EXIT_CODE || !stderr.startsWith(ISOLATION_FAILURE_MARKER)) return undefined;
  return stderr.slice(ISOLATION_FAILURE_MARKER.length).trim();
}

const DEFAULT_UNSHARE = "unshare";

let unshareCommand = DEFAULT_UNSHARE;
const probes = new Map<string, Promise<ShellIsolationProbe>>();

/**
 * Chooses the `unshare` executable later probes use: a name looked up on the host's `PATH`
 * (and the system directories), or a path. `undefined` restores the default `"unshare"`.
 * Meant for tests (a nonexistent path forces the probe to fail) and for hosts that keep
 * util-linux elsewhere; call it before `openRuntime`.
 */
export function setUnshareCommand(command: string | undefined): void {
  unshareCommand = command ?? DEFAULT_UNSHARE;
}

/**
 * Probes once per process (per `unshare` command; a success is remembered per agent while the
 * machine stays as it is: `./probe-cache.ts`) whether isolated shell commands work here:
 * runs the real isolated command on `true` in the workspace of a temporary state directory
 * (`<tmp>/runs/probe/workspace`) and checks it exits 0. Never throws; a failure's `reason`
 * names what is missing (Linux only, util-linux `unshare` and `mount`, `mkdir`, unprivileged
 * user namespaces) or the setup's own error.
 */
export function probeShellIsolation(): Promise<ShellIsolationProbe> {
  const command = unshareCommand;
  let probe = probes.get(command);
  if (!probe) {
    probe = runProbe(command);
    probes.set(command, probe);
  }
  return probe;
}

async function runProbe(command: string): Promise<ShellIsolationProbe> {
  if (process.platform !== "linux") return { available: false, reason: `namespaces are a Linux feature and this host runs ${process.platform}` };
  const unshare = findExecutable(command);
  if (!unshare) {
    const where = command.includes("/") ? `'${command}' is not an executable file` : `no '${command}' on PATH or in ${SYSTEM_DIRS.join(", ")}`;
    return { available: false, reason: `util-linux \`unshare\` was not found (${where})` };
  }
  const mount = findExecutable("mount", [path.dirname(unshare)]);
  if (!mount) return { available: false, reason: "util-linux `mount` was not found on PATH" };
  const mkdir = findExecutable("mkdir");
  if (!mkdir) return { available: false, reason: "`mkdir` was not found on PATH" };
  const found = findExecutable("setpriv", [path.dirname(unshare)]);
  const prlimit = findExecutable("prlimit", [path.dirname(unshare)]);
  // A success on this machine as it is now is remembered per agent (./probe-cache.ts), with
  // whether `setpriv` was kept: the fingerprint names the `setpriv` found (or its absence), so
  // one installed or replaced re-probes, and a remembered probe starts no process at all (every
  // `call` starts this probe in case its tool runs a shell command).
  // The setup script's text too (hashed as it is): a success of an older setup says nothing of this one.
  const fingerprint = isolationFingerprint("shell", [unshare, mount, mkdir, "/bin/sh", found ?? "no setpriv", prlimit ?? "no prlimit", SHELL_ISOLATION_SETUP], hiddenHostDirs());
  const tools = (killChild: boolean, setpriv: string | undefined): ShellIsolationTools => ({ unshare, mount, mkdir, killChild, ...(setpriv === undefined ? {} : { setpriv }), ...(prlimit === undefined ? {} : { prlimit }) });
  const cached = cachedSuccess("shell", fingerprint);
  const remembered = rememberedSetpriv(cached);
  if (remembered?.value === "kill-child" || remembered?.value === "no-kill-child") return { available: true, tools: tools(remembered.value === "kill-child", remembered.setprivLeftOut ? undefined : found) };
  // Probed on its own first: a `setpriv` without `--pdeathsig` (util-linux < 2.33, busybox) is
  // left out, and commands still run isolated, dying with the host only through `--kill-child`.
  const setpriv = found !== undefined && (await setprivWorks(found)) ? found : undefined;
  return probeTools((killChild) => tools(killChild, setpriv), fingerprint, setpriv !== found);
}

/** Runs the isolated probe command with `withSetpriv`'s tools; remembers a success under `fingerprint` (noting a `setpriv` left out). */
async function probeTools(withSetpriv: (killChild: boolean) => ShellIsolationTools, fingerprint: string | undefined, setprivLeftOut: boolean): Promise<ShellIsolationProbe> {
  let stateDir: string;
  try {
    stateDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-shell-probe-")));
  } catch (error) {
    return { available: false, reason: `the probe could not create its temporary state directory in ${os.tmpdir()}: ${(error as Error).message}` };
  }
  try {
    // The real layout (`<stateDir>/runs/<runId>/workspace`), so the probe hides a state directory too.
    const workspace = path.join(stateDir, "runs", "probe", "workspace");
    fs.mkdirSync(workspace, { recursive: true });
    const run = { workspace, stateDir, command: "true" };
    const first = await tryIsolated(withSetpriv(true), run);
    if (first.ok) {
      recordSuccess("shell", fingerprint, withSetprivNote("kill-child", setprivLeftOut));
      return { available: true, tools: withSetpriv(true) };
    }
    if (!/kill-child/.test(first.reason)) return { available: false, reason: first.reason };
    // An older unshare without --kill-child: isolation still works, a timeout kills less.
    const second = await tryIsolated(withSetpriv(false), run);
    if (!second.ok) return { available: false, reason: second.reason };
    recordSuccess("shell", fingerprint, withSetprivNote("no-kill-child", setprivLeftOut));
    return { available: true, tools: withSetpriv(false) };
  } catch (error) {
    return { available: false, reason: `the probe could not prepare its workspace in ${stateDir}: ${(error as Error).message}` };
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

function tryIsolated(tools: ShellIsolationTools, run: IsolatedCommand): Promise<{ ok: true } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    const options = { cwd: run.workspace, env: sandboxEnvironment(run.workspace), timeout: PROBE_TIMEOUT_MS, killSignal: "SIGKILL" as const, encoding: "utf8" as const };
    const launch = isolatedShellLaunch(tools, run);
    execFile(launch.command, launch.args, options, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true });
      const code = (error as { code?: unknown }).code;
      const said = (typeof code === "number" ? isolationFailureOf(code, stderr) : undefined) ?? stderr.trim();
      const how = (error as { killed?: boolean }).killed ? `it did not finish within ${PROBE_TIMEOUT_MS} ms` : typeof code === "number" ? `it exited with code ${code}` : error.message;
      resolve({ ok: false, reason: `\`${tools.unshare} --user --map-root-user --mount --pid\` failed: ${said ? `${said} (${how})` : how}` });
    });
  });
}
