/**
 * Process and file-system isolation of shell commands (`ctx.getSandbox().exec` and the core
 * `bash` tool; seed "Execution Model": `ctx.getSandbox()` is "for isolated file or shell work",
 * and the sandbox "does not receive host secrets"; issue 4 item 4, issue 5).
 *
 * A command runs under util-linux `unshare`, never as a direct child shell of the host:
 *
 * 1. `unshare --user --map-root-user --mount --pid --fork --mount-proc [--kill-child]` — a new
 *    user namespace (the host's user is root inside it), a private copy of the host's mounts
 *    and a new PID namespace with its own `/proc`, so the host process, its `/proc/<pid>/environ`
 *    and every other host process are invisible (`$PPID` is 0). With `--kill-child`, killing
 *    the `unshare` process (SIGKILL on timeout) kills every process of the command.
 * 2. {@link SHELL_ISOLATION_SETUP} runs as PID 1 of that namespace: it bind-mounts the run's
 *    workspace onto itself (read-write), then reads `/proc/self/mountinfo` and remounts every
 *    other read-write mount point read-only (`/` included, `/dev/shm` where the bridge lives,
 *    `/sys`, …; `/proc` is the namespace's own and stays), keeping each mount's locked
 *    `nosuid`/`nodev`/`noexec` flags. Any failure stops it (exit 125 and a
 *    {@link ISOLATION_FAILURE_MARKER} line on stderr): the command never runs half-isolated.
 * 3. It then `exec`s `unshare --user --map-root-user --mount -- /bin/sh -c "$command"`. The
 *    second user namespace makes every mount it inherits *locked*: the command cannot unmount
 *    the namespace's `/proc` to reach the host's, nor remount `/` read-write, although it is
 *    root inside (without this step it could do both).
 *
 * The command is a positional argument of both shells, never part of the script text. The
 * environment is the caller's (the sandbox allowlist), and the working directory the
 * workspace. What stays: the file system is readable (read-only) and the network is the
 * host's. Background processes end with the command (PID 1 of the namespace exits).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { sandboxEnvironment } from "./sandbox-environment.js";

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
  /** True when `unshare` accepted `--kill-child` (util-linux ≥ 2.32). */
  readonly killChild: boolean;
}

/** The result of the once-per-process probe: the tools to use, or why isolation is unavailable. */
export type ShellIsolationProbe =
  | { readonly available: true; readonly tools: ShellIsolationTools }
  | { readonly available: false; readonly reason: string };

/** Starts the stderr line of a setup failure (followed by the reason). */
export const ISOLATION_FAILURE_MARKER = "assembly-line shell isolation: ";
/** Exit code of a setup failure (the command did not run). */
export const ISOLATION_FAILURE_EXIT_CODE = 125;

/**
 * The setup script (`/bin/sh -c SCRIPT name workspace unshare mount command`). Only builtins
 * besides the two absolute paths it is given. Mount points in mountinfo escape space, tab,
 * newline and backslash as `\ooo`; `decode` turns them back (a trailing `x` keeps a decoded
 * newline from being stripped by the command substitution).
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
workspace=$1 unshare_bin=$2 mount_bin=$3
err=$("$mount_bin" --bind -- "$workspace" "$workspace" 2>&1) || fail "could not bind-mount the workspace $workspace onto itself: $err"
table=
while IFS= read -r line; do table="$table$line
"; done < /proc/self/mountinfo
while read -r _ _ _ _ raw options _; do
  [ -n "$raw" ] || continue
  decode "$raw"
  point=$decoded
  case $point in /proc|/proc/*) continue ;; esac
  [ "$point" = "$workspace" ] && continue
  case ,$options, in *,ro,*) continue ;; esac
  flags=remount,bind,ro
  case ,$options, in *,nosuid,*) flags=$flags,nosuid ;; esac
  case ,$options, in *,nodev,*) flags=$flags,nodev ;; esac
  case ,$options, in *,noexec,*) flags=$flags,noexec ;; esac
  err=$("$mount_bin" -o "$flags" -- "$point" 2>&1) || fail "could not remount $point read-only: $err"
done <<MOUNTS
$table
MOUNTS
cd -- "$workspace" || fail "could not enter the workspace $workspace"
unset OLDPWD
exec "$unshare_bin" --user --map-root-user --mount -- /bin/sh -c "$4"`;

/** The argv (after the `unshare` executable) that runs `command` isolated in `workspace`. */
export function isolatedShellArgs(tools: ShellIsolationTools, workspace: string, command: string): string[] {
  return [
    "--user",
    "--map-root-user",
    "--mount",
    "--pid",
    "--fork",
    "--mount-proc",
    ...(tools.killChild ? ["--kill-child"] : []),
    "--",
    "/bin/sh",
    "-c",
    SHELL_ISOLATION_SETUP,
    "assembly-line-shell-setup",
    workspace,
    tools.unshare,
    tools.mount,
    command,
  ];
}

/** The reason in a setup failure's stderr, or `undefined` when the command itself ran. */
export function isolationFailureOf(exitCode: number, stderr: string): string | undefined {
  if (exitCode !== ISOLATION_FAILURE_EXIT_CODE || !stderr.startsWith(ISOLATION_FAILURE_MARKER)) return undefined;
  return stderr.slice(ISOLATION_FAILURE_MARKER.length).trim();
}

const DEFAULT_UNSHARE = "unshare";
const PROBE_TIMEOUT_MS = 15_000;
const SYSTEM_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

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
 * Probes once per process (per `unshare` command) whether isolated shell commands work here:
 * runs the real isolated command on `true` in a temporary workspace and checks it exits 0.
 * Never throws; a failure's `reason` names what is missing (Linux only, util-linux `unshare`
 * and `mount`, unprivileged user namespaces) or the setup's own error.
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
  let workspace: string;
  try {
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-shell-probe-")));
  } catch (error) {
    return { available: false, reason: `the probe could not create its temporary workspace in ${os.tmpdir()}: ${(error as Error).message}` };
  }
  try {
    const first = await tryIsolated({ unshare, mount, killChild: true }, workspace);
    if (first.ok) return { available: true, tools: { unshare, mount, killChild: true } };
    if (!/kill-child/.test(first.reason)) return { available: false, reason: first.reason };
    // An older unshare without --kill-child: isolation still works, a timeout kills less.
    const second = await tryIsolated({ unshare, mount, killChild: false }, workspace);
    return second.ok ? { available: true, tools: { unshare, mount, killChild: false } } : { available: false, reason: second.reason };
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

function tryIsolated(tools: ShellIsolationTools, workspace: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    const options = { cwd: workspace, env: sandboxEnvironment(workspace), timeout: PROBE_TIMEOUT_MS, killSignal: "SIGKILL" as const, encoding: "utf8" as const };
    execFile(tools.unshare, isolatedShellArgs(tools, workspace, "true"), options, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true });
      const code = (error as { code?: unknown }).code;
      const said = (typeof code === "number" ? isolationFailureOf(code, stderr) : undefined) ?? stderr.trim();
      const how = (error as { killed?: boolean }).killed ? `it did not finish within ${PROBE_TIMEOUT_MS} ms` : typeof code === "number" ? `it exited with code ${code}` : error.message;
      resolve({ ok: false, reason: `\`${tools.unshare} --user --map-root-user --mount --pid\` failed: ${said ? `${said} (${how})` : how}` });
    });
  });
}

/** Absolute path of an executable: `name` itself when it has a slash, else the first hit on PATH. */
function findExecutable(name: string, firstDirs: readonly string[] = []): string | undefined {
  if (name.includes("/")) return isExecutable(path.resolve(name)) ? path.resolve(name) : undefined;
  const fromPath = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  for (const dir of [...firstDirs, ...fromPath, ...SYSTEM_DIRS]) {
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
