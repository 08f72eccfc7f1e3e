/**
 * Process and file-system isolation of shell commands (`ctx.getSandbox().exec` and the core
 * `bash` tool; seed "Execution Model": `ctx.getSandbox()` is "for isolated file or shell work",
 * and the sandbox "does not receive host secrets"; seed "file transfer and user delivery":
 * handoff paths are readable by the parent surface only, blobs are private; issues 4 and 5).
 *
 * A command runs under util-linux `unshare`, never as a direct child shell of the host:
 *
 * 1. `unshare --user --map-root-user --mount --pid --fork [--kill-child] [--net]` — a new user
 *    namespace (the host's user is root inside it), a private copy of the host's mounts and a
 *    new PID namespace (its own `/proc` comes with the setup's table, 2b), so the host process,
 *    its `/proc/<pid>/environ` and every other host process are invisible (`$PPID` is 0). With
 *    `--kill-child`, killing the `unshare` process (SIGKILL on timeout) kills every process of
 *    the command.
 * 2. {@link SHELL_ISOLATION_SETUP} runs as PID 1 of that namespace (no `--mount-proc`: the
 *    host's `/proc` stays reachable until the setup has made it read-only with every other
 *    mount). It hides with the sandbox process's link guard (`./link-guard.ts`, profile
 *    `SHELL_COMMAND_GUARD`): one job, one mechanism. The host writes the guard's mount table
 *    (`O_EXCL`) into a fresh private folder of the run
 *    (`<stateDir>/runs/<runId>/.shell-<pid>-XXXXXX/`, removed when the command ends, or by the
 *    run's next command when a killed host left it: {@link isolatedShellLaunch},
 *    {@link removeStaleShellTables}), and the setup
 *    a. remounts every mount of the namespace read-only in one `mount -a -o remount,bind,ro`
 *       process (libmount reads `/proc/self/mountinfo`, decodes its escapes and keeps each
 *       mount's current flags, the locked `nosuid`/`nodev`/`noexec` among them, which the
 *       kernel refuses to drop; `--options-source mtab`: nothing from `/etc/fstab` is mixed in);
 *       nothing is hidden yet, so every mount, those beneath the host's `/proc` included, is
 *       reachable;
 *    b. mounts the table in one `mount -a -T <table>` process: first an empty read-only file
 *       (or tmpfs) over each of `/etc`'s root-only files that exists (`HOST_SECRET_FILES`:
 *       `/etc/shadow`, `/etc/sudoers.d`…, which a root host's command read); then the agent root
 *       with the runtime's state directory (`<root>/.assemblyline/`: other runs' workspaces,
 *       `state.db`, the blob store, handoffs, deliveries, a fallback bridge; `agent.md` and the
 *       plugins' sources beside it), the host user's home folders (`hostHomeFolders`: `~/.ssh`,
 *       `~/.npmrc`, `~/.aws`; new-user trial 112, C4) and the folders where host sockets live (`/run`,
 *       `/var/run`, `/tmp`, `/var/tmp`, `/dev/shm`, `$XDG_RUNTIME_DIR`: the sandbox bridge, the
 *       session bus, docker's socket…) under read-only empty tmpfs mounts, under both network
 *       policies; kept at their paths: the run's workspace (writable; `X-mount.mkdir` makes its
 *       path in the tmpfs over the state directory, so `..` from it walks only through empty
 *       folders), the `PATH` folders inside the home or the agent root (`node` from nvm,
 *       `~/.local/bin`), the folders of the setup's programs, the certificates the host names
 *       and, under the host's network, the resolver's configuration (`/etc/resolv.conf`'s
 *       target, often in `/run`), read-only; then a `/proc` of the namespace;
 *    c. bounds the namespace's process count: it writes {@link SHELL_PROCESS_LIMIT} + 1 to the
 *       namespace's own `/proc/sys/kernel/pid_max` (per PID namespace since Linux 6.14; on older
 *       kernels the write fails and is ignored, leaving `prlimit --nproc`);
 *    d. enters the workspace only then, so no working directory keeps a reference into the
 *       hidden tree. Any failure stops it (exit 125 and a {@link ISOLATION_FAILURE_MARKER} line
 *       on stderr): the command never runs half-isolated. That includes an `unshare` for step 3
 *       that is not an executable file (checked before the `exec`, whose failure would exit 127,
 *       the code of a command not found, as if the command had run).
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
 * workspace (also its `HOME`, so it needs nothing of the host's home). What stays: the rest of
 * the file system is readable (read-only) — `/usr`, `/opt`, `/srv`, `/etc` but its root-only
 * files, other users' homes and other agents' roots as their permissions allow, the kept `PATH`
 * folders as a whole (docs/host-policy.md, "What a sandboxed tool may use") — unix sockets
 * outside the hidden folders can still be connected to, and under network `"host"` the network
 * is the host's. Background processes end with the command (PID 1 of the namespace
 * exits).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { processExists } from "./bridge-root.js";
import { hiddenSocketDirs, HOST_SECRET_FILES, hostHomeFolders, launchKeptPaths, pathFoldersInside, SHELL_COMMAND_GUARD, writeLinkGuardTable, type LinkGuardPaths } from "./link-guard.js";
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
  /** util-linux `mount` (2.38 or later: `X-mount.mkdir`), which mounts the link guard's table. */
  readonly mount: string;
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
 * The setup script (`/bin/sh -c SCRIPT name mount table workspace unshare command pidMax`; the
 * steps are the module comment's 2a–2d). Only builtins besides the two absolute paths it is
 * given; the table is the link guard's (`./link-guard.ts`), written by the host.
 */
export const SHELL_ISOLATION_SETUP = `set -u
fail() { printf '%s%s\\n' '${ISOLATION_FAILURE_MARKER}' "$1" >&2; exit ${ISOLATION_FAILURE_EXIT_CODE}; }
mount_bin=$1 table=$2 workspace=$3 unshare_bin=$4 user_command=$5 pid_max=$6
err=$("$mount_bin" -n -a -o remount,bind,ro --options-source mtab 2>&1) || fail "could not remount the mounts read-only: $err"
err=$("$mount_bin" -n -a -T "$table" 2>&1) || fail "could not mount the link guard's table $table (the hidden folders, the workspace): $err"
{ printf '%s\\n' "$pid_max" > /proc/sys/kernel/pid_max; } 2>/dev/null || :
cd -- "$workspace" 2>/dev/null || fail "could not enter the workspace $workspace"
unset OLDPWD
[ -f "$unshare_bin" ] && [ -x "$unshare_bin" ] || fail "could not run $unshare_bin for the command's own namespaces: it is not an executable file"
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
  /** Other paths kept visible, read-only, where they lie in a hidden folder (the probe's check; tests). */
  readonly keep?: readonly string[];
}

/** An isolated command's launch line, and the private folder holding its mount table (the caller removes it once the command has ended). */
export interface IsolatedShellLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** `<stateDir>/runs/<runId>/.shell-<host pid>-XXXXXX/`: the link guard's table and skeleton. */
  readonly tableDir: string;
}

/** The programs of an isolated command's namespaces: a folder holding one is not hidden (`hiddenSocketDirs`). */
function shellPrograms(tools: ShellIsolationTools): string[] {
  return ["/bin/sh", tools.unshare, tools.mount];
}

/**
 * What the link guard hides and keeps for `run` (`./link-guard.ts`, `SHELL_COMMAND_GUARD`):
 * hidden, the agent root (the state directory's folder, or the state directory alone when that
 * folder is `/`) but for the workspace, and the host user's home folders (`hostHomeFolders` of
 * `env`: new-user trial 112, C4); kept, read-only, the folders of `env.PATH` inside those
 * (`pathFoldersInside`: `node` from nvm, `~/.local/bin`), what every guarded launch keeps under
 * `run.network` (certificates; under `"host"` the resolver's configuration, `resolver` unless a
 * test names another), the folders of `programs` (the launch's `unshare`, `mount`, `/bin/sh`:
 * one in a hidden folder, as a test's wrapper in the probe's agent root `/tmp`, stays runnable),
 * and `run.keep`; covered, `HOST_SECRET_FILES`. Throws when the workspace is not inside the
 * state directory.
 */
export function shellGuardPaths(run: IsolatedCommand, tableDir: string, env: NodeJS.ProcessEnv = process.env, resolver?: string, programs: readonly string[] = []): LinkGuardPaths {
  if (!run.workspace.startsWith(`${run.stateDir}/`) || !path.isAbsolute(run.stateDir)) throw new Error(`the workspace ${run.workspace} is not inside the state directory ${run.stateDir}`);
  const agentRoot = path.dirname(run.stateDir);
  const hide = [agentRoot === "/" ? run.stateDir : agentRoot, ...hostHomeFolders(env).filter((home) => home !== agentRoot)];
  const keep = [...launchKeptPaths(run.network ?? "host", env, resolver), ...pathFoldersInside(hide, [run.stateDir], env), ...programs.map((program) => path.dirname(program)), ...(run.keep ?? [])];
  return { workspace: run.workspace, keep, tableDir, hide, cover: HOST_SECRET_FILES };
}

/**
 * The argv (after the `unshare` executable) that runs `run.command` isolated in `run.workspace`
 * with the link guard's table `table`; with `run.network` `"none"`, in a network namespace of
 * its own whose only device, the loopback, is down, as the sandbox process's
 * (`./process-isolation.ts`; review of 5 December, N4).
 */
export function isolatedShellArgs(tools: ShellIsolationTools, run: IsolatedCommand, table: string): string[] {
  return [
    "--user",
    "--map-root-user",
    "--mount",
    "--pid",
    "--fork",
    ...(tools.killChild ? ["--kill-child"] : []),
    ...(run.network === "none" ? ["--net"] : []),
    "--",
    "/bin/sh",
    "-c",
    SHELL_ISOLATION_SETUP,
    "assembly-line-shell-setup",
    tools.mount,
    table,
    run.workspace,
    tools.unshare,
    run.command,
    String(SHELL_PROCESS_LIMIT + 1),
  ];
}

/**
 * The whole launch of an isolated command: writes the link guard's table for it
 * ({@link shellGuardPaths}) into a fresh folder beside the workspace (`mkdtemp`, mode 0700;
 * the table itself `O_EXCL`), never visible to the command, and returns
 * {@link isolatedShellArgs} under `tools.unshare`, under `tools.prlimit` when the probe found it
 * (at most {@link SHELL_PROCESS_LIMIT} processes, and `run.dataLimitMb` of data each), itself
 * under `tools.setpriv --pdeathsig KILL` when the probe kept `setpriv` (the command dies with
 * the host however the host ends; host-file review of 5 December, H6). The one place the launch
 * line is made, so the probe runs exactly what commands run. The caller removes `tableDir` once
 * the command has ended. Throws (the folder removed) when the table cannot be written or the
 * state directory cannot be hidden.
 */
export function isolatedShellLaunch(tools: ShellIsolationTools, run: IsolatedCommand, env: NodeJS.ProcessEnv = process.env): IsolatedShellLaunch {
  // The host's pid in the name: a folder a killed host left behind can be told from a live one's.
  removeStaleShellTables(path.dirname(run.workspace));
  const tableDir = fs.mkdtempSync(path.join(path.dirname(run.workspace), `.shell-${process.pid}-`));
  let table: string;
  try {
    table = writeLinkGuardTable(shellGuardPaths(run, tableDir, env, undefined, shellPrograms(tools)), shellPrograms(tools), env, SHELL_COMMAND_GUARD);
  } catch (error) {
    fs.rmSync(tableDir, { recursive: true, force: true });
    throw error;
  }
  let command = tools.unshare;
  let args = isolatedShellArgs(tools, run, table);
  if (tools.prlimit !== undefined) {
    args = [`--nproc=${SHELL_PROCESS_LIMIT}`, ...(run.dataLimitMb === undefined ? [] : [`--data=${run.dataLimitMb * 1024 * 1024}`]), "--", command, ...args];
    command = tools.prlimit;
  }
  return tools.setpriv === undefined ? { command, args, tableDir } : { command: tools.setpriv, args: ["--pdeathsig", "KILL", "--", command, ...args], tableDir };
}

/** The name of an isolated command's table folder: `.shell-<host pid>-<mkdtemp's six characters>`. */
const SHELL_TABLE_NAME = /^\.shell-(\d{1,10})-[A-Za-z0-9]{6}$/;

/**
 * Removes the table folders in `runDir` that a killed host left behind (their host pid no longer
 * exists; a live host's, this one's included, are left alone), before a command adds its own.
 * Returns the names removed, sorted; never throws.
 */
export function removeStaleShellTables(runDir: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(runDir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const match = SHELL_TABLE_NAME.exec(name);
    if (!match || processExists(Number(match[1]))) continue;
    try {
      fs.rmSync(path.join(runDir, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed.sort();
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
 * runs the real isolated launch in the workspace of a temporary state directory
 * (`<tmp>/runs/probe/workspace`), keeping a file inside the hidden state directory (so every kind
 * of line of the link guard's table runs: staging, covers, the skeleton read through the stage,
 * the seals, `/proc`), and checks that the command sees that file, not its neighbour, and that
 * `..` cannot be written. Never throws; a failure's `reason` names what is missing (Linux only,
 * util-linux `unshare` and `mount` 2.38 or later, unprivileged user namespaces) or the setup's
 * own error.
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
  const found = findExecutable("setpriv", [path.dirname(unshare)]);
  const prlimit = findExecutable("prlimit", [path.dirname(unshare)]);
  // A success on this machine as it is now is remembered per agent (./probe-cache.ts), with
  // whether `setpriv` was kept: the fingerprint names the `setpriv` found (or its absence), so
  // one installed or replaced re-probes, and a remembered probe starts no process at all (every
  // `call` starts this probe in case its tool runs a shell command).
  // The setup script's text too (hashed as it is), and what it hides with: a success of an
  // older setup (a `mount` per path, `/run` and `/tmp` visible under the host's network) says
  // nothing of this one; the hidden folders by identity. Since helper-113 it hides the agent
  // root and the host's homes (but the `PATH` folders inside: `PATH` is hashed too) and covers
  // `HOST_SECRET_FILES` (hashed with their sizes and times): a success of the older table is not reused.
  const hiding = "hiding: the link guard's table (SHELL_COMMAND_GUARD), remount of all read-only first; the agent root, the host's homes but their PATH folders; HOST_SECRET_FILES covered";
  const inputs = [unshare, mount, "/bin/sh", found ?? "no setpriv", prlimit ?? "no prlimit", SHELL_ISOLATION_SETUP, hiding, `PATH=${process.env.PATH ?? ""}`, ...HOST_SECRET_FILES];
  const fingerprint = isolationFingerprint("shell", inputs, [...hiddenSocketDirs(["/bin/sh", unshare, mount]), ...hostHomeFolders()]);
  const tools = (killChild: boolean, setpriv: string | undefined): ShellIsolationTools => ({ unshare, mount, killChild, ...(setpriv === undefined ? {} : { setpriv }), ...(prlimit === undefined ? {} : { prlimit }) });
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
    const kept = path.join(stateDir, "kept", "file");
    fs.mkdirSync(workspace, { recursive: true });
    fs.mkdirSync(path.dirname(kept));
    fs.writeFileSync(kept, "kept\n");
    fs.writeFileSync(path.join(stateDir, "kept", "neighbour"), "hidden\n");
    const run = { workspace, stateDir, command: `${PROBE_CHECK} && ${probeHidingCheck(process.env, shellPrograms(withSetpriv(true)))}`, keep: [kept] };
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

/** The probe's command: the kept file is there, its neighbour is not, `..` is read-only, the workspace writable. */
const PROBE_CHECK = `{ test -f ../../../kept/file && ! test -e ../../../kept/neighbour && ! touch ../probe 2>/dev/null && touch probe; } || { echo "the link guard's table did not hide and keep as it should" >&2; exit 1; }`;

/**
 * The probe's check of what every command hides of this host (helper-113): in each of the host's
 * homes, its first entry (by name) that holds no kept `PATH` folder nor a folder of `programs`
 * (the launch's) is gone, and each of {@link HOST_SECRET_FILES} that holds something here (a
 * file of some bytes, a folder with entries) is empty. Made from the host's file system now;
 * `true` when there is nothing to check.
 */
export function probeHidingCheck(env: NodeJS.ProcessEnv = process.env, programs: readonly string[] = []): string {
  const checks: string[] = [];
  const homes = hostHomeFolders(env);
  const kept = [...pathFoldersInside(homes, [], env), ...programs.map((program) => path.dirname(program))];
  for (const home of homes) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(home).sort();
    } catch {
      // An unreadable home: nothing to compare with.
    }
    const gone = names.map((name) => path.join(home, name)).find((entry) => !kept.some((folder) => folder === entry || folder.startsWith(`${entry}/`)));
    if (gone !== undefined) checks.push(`! test -e ${shellWord(gone)} && ! test -L ${shellWord(gone)}`);
  }
  for (const file of HOST_SECRET_FILES) {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat?.isFile() && stat.size > 0) checks.push(`! test -s ${shellWord(file)}`);
    else if (stat?.isDirectory() && safeReaddir(file).length > 0) checks.push(`test -z "$(ls -A ${shellWord(file)})"`);
  }
  if (checks.length === 0) return "true";
  return `{ ${checks.join(" && ")}; } || { echo "the host's homes or /etc's root-only files were not hidden" >&2; exit 1; }`;
}

/** `text` as one single-quoted shell word. */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The names in `folder`, or none when it cannot be read (a non-root host's `/etc/sudoers.d`). */
function safeReaddir(folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch {
    return [];
  }
}

function tryIsolated(tools: ShellIsolationTools, run: IsolatedCommand): Promise<{ ok: true } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    const options = { cwd: run.workspace, env: sandboxEnvironment(run.workspace), timeout: PROBE_TIMEOUT_MS, killSignal: "SIGKILL" as const, encoding: "utf8" as const };
    let launch: IsolatedShellLaunch;
    try {
      launch = isolatedShellLaunch(tools, run);
    } catch (error) {
      return resolve({ ok: false, reason: `the link guard's table for the probe could not be written: ${(error as Error).message}` });
    }
    execFile(launch.command, launch.args, options, (error, _stdout, stderr) => {
      fs.rmSync(launch.tableDir, { recursive: true, force: true });
      if (!error) return resolve({ ok: true });
      const code = (error as { code?: unknown }).code;
      const said = (typeof code === "number" ? isolationFailureOf(code, stderr) : undefined) ?? stderr.trim();
      const how = (error as { killed?: boolean }).killed ? `it did not finish within ${PROBE_TIMEOUT_MS} ms` : typeof code === "number" ? `it exited with code ${code}` : error.message;
      resolve({ ok: false, reason: `\`${tools.unshare} --user --map-root-user --mount --pid\` failed: ${said ? `${said} (${how})` : how}` });
    });
  });
}
