/**
 * The run's workspace (`<root>/.assemblyline/runs/<runId>/workspace/`) and the host side of
 * `ctx.getSandbox()` (seed "Execution Model": "ctx.getSandbox() ... for isolated file or shell
 * work"). Sandbox children ask the host for these operations over the bridge, so a child needs
 * no child-process permission; direct tools call them in-process.
 *
 * Paths are confined to the workspace: relative paths resolve against it, `/workspace/...`
 * maps onto it, and any path that leaves it — by `..` or an absolute path elsewhere — is
 * refused. The file exchange never goes through a symbolic link at all (on Linux each folder is
 * opened `O_NOFOLLOW` through the one before, so a link a shell command swaps in meanwhile is
 * refused too), as the sandbox process itself cannot (`../sandbox/process-isolation.ts`). Shell commands run `/bin/sh -c` in the workspace with the
 * sandbox's allowlisted environment (never the host's), isolated in their own user, mount and
 * PID namespaces when the host's policy and machine allow it (`../sandbox/shell-isolation.ts`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Readable } from "node:stream";
import { checkWriteTarget, type WriteRefusal } from "../../common/confined-write.js";
import { writeRefusalError } from "../errors.js";
import { closeFolder, entryOf, MAX_FOLDER_DEPTH, openFolderBeneath, readFileIn, type OpenFolder } from "./beneath.js";
import { WORKSPACE_TEMP_FOLDER, writeTemporaryName } from "./workspace-entries.js";
import { coverInheritedDescriptors } from "../sandbox/inherited-descriptors.js";
import { sandboxEnvironment } from "../sandbox/sandbox-environment.js";
import { isolatedShellLaunch, isolationFailureOf, type ShellIsolationTools } from "../sandbox/shell-isolation.js";

/**
 * Absolute workspace directory of a run, created when missing. `stateDir` is the agent root's
 * `.assemblyline/`, which `openArtifact` has checked; the folders below it are checked here
 * before anything is made: a `runs/`, run or workspace folder that is a link out of the agent
 * root (a planted `.assemblyline/runs` in a cloned repository) is refused, never written through,
 * and so is a run, workspace or `.tmp` folder that is a link at all.
 * Throws `RuntimeError` AL6301/AL6302 for such a path, or what `mkdir` throws.
 */
export function ensureWorkspace(stateDir: string, runId: string): string {
  const made = makeWorkspace(stateDir, runId);
  if (typeof made !== "string") throw writeRefusalError("A run's workspace (.assemblyline/runs/)", made, path.dirname(stateDir));
  return made;
}

/**
 * {@link ensureWorkspace} answering a refused path with the refusal instead of throwing: for the
 * early start of a `call` (`./early-start.ts`), which then starts nothing, and whose small file
 * (`cli/early-call.ts`) leaves the diagnostics catalogue out. Throws what `mkdir` throws.
 */
export function makeWorkspace(stateDir: string, runId: string): string | WriteRefusal {
  const dir = path.join(stateDir, "runs", runId, "workspace");
  const refusal = checkWriteTarget(path.dirname(stateDir), path.join(dir, WORKSPACE_TEMP_FOLDER), "directory") ?? linkBelowStateDir(stateDir, ["runs", runId, "workspace", WORKSPACE_TEMP_FOLDER]);
  if (refusal) return refusal;
  fs.mkdirSync(path.join(dir, WORKSPACE_TEMP_FOLDER), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  // Made as checked, unless a link was swapped in meanwhile: the real path says.
  const real = fs.realpathSync(dir);
  const expected = path.join(fs.realpathSync(stateDir), "runs", runId, "workspace");
  if (real !== expected) return linkBelowStateDir(stateDir, ["runs", runId, "workspace", WORKSPACE_TEMP_FOLDER]) ?? { kind: "link", path: dir, reason: `resolves to ${real}, not to its own folder ${expected}` };
  keepPrivate(path.dirname(path.dirname(real)));
  keepPrivate(path.dirname(real));
  return real;
}

/** The mode of `runs/` and of each run's folder: the host user's only ({@link keepPrivate}). */
export const PRIVATE_FOLDER_MODE = 0o700;

/**
 * Gives `folder` (`<stateDir>/runs` or a run's folder, real paths just checked not to be links)
 * mode {@link PRIVATE_FOLDER_MODE} when it is this user's and has another mode: what `mkdir`
 * made under the process's umask, or a folder an older runtime made 0755. A tool writes its
 * workspace as the host user, and may leave a setuid or setgid executable there (Node's
 * `chmod`, a shell's `chmod 4755`); with every folder above it 0755, any other local user ran
 * it as the host user (helper-89's review, finding 1). Behind a 0700 folder no other user
 * reaches anything a tool writes. A folder of another user is left as it is (not ours to
 * change); a `chmod` that fails is not an error of the call (the folder stays as it was).
 */
function keepPrivate(folder: string): void {
  try {
    const stats = fs.lstatSync(folder);
    const uid = process.getuid?.();
    if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) return;
    if ((stats.mode & 0o7777) !== PRIVATE_FOLDER_MODE) fs.chmodSync(folder, PRIVATE_FOLDER_MODE);
  } catch {
    // Gone meanwhile, or not ours to change: the call goes on as before.
  }
}

/**
 * The first of the folders `parts` below `stateDir` (each inside the one before) that is a
 * symbolic link, as a refusal; `undefined` when none is (missing ones are made). A run's folders
 * are never links, not even to a place inside the agent root: the workspace is where a tool
 * writes, and a planted `runs/<id>/workspace -> ../..` would make the state directory (state.db,
 * the caches, the artifact) a tool's workspace (review of 5 December, F1).
 */
function linkBelowStateDir(stateDir: string, parts: readonly string[]): WriteRefusal | undefined {
  let current = stateDir;
  for (const part of parts) {
    current = path.join(current, part);
    let stats: fs.Stats;
    try {
      stats = fs.lstatSync(current);
    } catch {
      return undefined;
    }
    if (stats.isSymbolicLink()) {
      let destination = "";
      try {
        destination = ` to ${fs.realpathSync(current)}`;
      } catch {
        // A dangling link: said without its target.
      }
      return { kind: "link", path: current, reason: `is a symbolic link${destination}; a run's folders are never links, or a tool would work in whatever they lead to` };
    }
  }
  return undefined;
}

/**
 * The state directory holding `workspace` — `<stateDir>` of `<stateDir>/runs/<runId>/workspace`,
 * the layout {@link ensureWorkspace} creates (its real path when `workspace` is one) — or
 * `undefined` when `workspace` is not an absolute path of that shape. An isolated shell command
 * hides that directory except the workspace (`../sandbox/shell-isolation.ts`).
 */
export function stateDirOfWorkspace(workspace: string): string | undefined {
  if (!path.isAbsolute(workspace)) return undefined;
  const normalized = path.resolve(workspace);
  const runs = path.dirname(path.dirname(normalized));
  if (path.basename(normalized) !== "workspace" || path.basename(runs) !== "runs" || path.dirname(runs) === runs) return undefined;
  return path.dirname(runs);
}

/** Default and maximum time of one `sandbox.exec` command, in milliseconds. */
export const EXEC_DEFAULT_TIMEOUT_MS = 60_000;
const EXEC_MAX_TIMEOUT_MS = 10 * 60_000;
const EXEC_MAX_BUFFER = 64 * 1024 * 1024;

/** `requested` mapped onto `workspace` (`/workspace/...` and relative paths); throws (code `EACCES`) when `..` or an absolute path leaves it. */
function mapIntoWorkspace(workspace: string, requested: string): string {
  const mapped = requested === "/workspace" || requested.startsWith("/workspace/") ? requested.slice("/workspace".length).replace(/^\/+/, "") : requested;
  const target = path.resolve(workspace, mapped);
  // `EACCES`, as `fs` sets a code on every failed exchange (new-user trial 112: this one had none).
  if (!isInside(workspace, target)) throw Object.assign(new Error(`The path '${requested}' is outside the run's workspace.`), { code: "EACCES" });
  return target;
}

/** Longest path the host names in a workspace (Linux's `PATH_MAX`). */
const PATH_MAX_BYTES = 4096;

/**
 * Opens the folder of `target` (a path {@link mapIntoWorkspace} gave) beneath the workspace,
 * never through a link (`./beneath.ts`; review of 5 December, N2): a link on the way — also one
 * a shell command swaps in while this runs — is refused with this module's message. With
 * `create`, missing folders are made on the way. Returns the folder (the caller closes it) and
 * the last component's name.
 */
function openTargetFolder(workspace: string, target: string, requested: string, create: boolean): { readonly folder: OpenFolder; readonly name: string } {
  const parts = path.relative(workspace, target).split(path.sep).filter((part) => part !== "");
  // A path the host could not name either, or deeper than any walk goes: refused before any
  // folder is opened (40,000 levels held the host's thread 48 s; helper-65 D1).
  if (parts.length > MAX_FOLDER_DEPTH || Buffer.byteLength(target) > PATH_MAX_BYTES) {
    throw new Error(`The path '${requested.length > 200 ? `${requested.slice(0, 200)}…` : requested}' is too long: at most ${MAX_FOLDER_DEPTH} folder levels and ${PATH_MAX_BYTES} bytes in all.`);
  }
  const name = parts.pop();
  if (name === undefined) throw new Error(`The path '${requested}' is the workspace itself, not a file in it.`);
  try {
    return { folder: openFolderBeneath(workspace, parts, create), name };
  } catch (error) {
    throw throughLinkOr(error, requested);
  }
}

/**
 * `error` as this module says it when a link (`ELOOP`) or a file (`ENOTDIR`) was on the way, or
 * nothing is there (`ENOENT`), in the tool's own path `requested`, never the host's descriptor
 * path; other errors unchanged. The error keeps Node's `code` (`err.code === "ENOENT"`, as a tool
 * that used `fs` would test), which crosses the bridge with the message (`ctx_result`).
 */
function throughLinkOr(error: unknown, requested: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const said = (message: string) => Object.assign(new Error(message), { code });
  if (code === "ENOTDIR") return said(`The path '${requested}' goes through a file where a folder is expected.`);
  if (code === "ELOOP") return said(`The path '${requested}' goes through a symbolic link; the workspace's files are exchanged only by their own paths.`);
  if (code === "EISDIR") return said(`The path '${requested}' is a folder, not a file.`);
  if (code === "EFTYPE") return said(`The path '${requested}' is not a regular file (a named pipe, socket or device); only files are exchanged.`);
  // A named pipe without a reader, a socket or a device without a driver (helper-65's review, E1).
  if (code === "ENXIO") return said(`The path '${requested}' is not a regular file (a named pipe with no reader, a socket or a device); only files are exchanged.`);
  // Node's own words name the path it opened, the host's `/proc/self/fd/<fd>/…` (new-user trial E6).
  if (code === "ENOENT") return said(`The file '${requested}' does not exist in the workspace.`);
  if (code !== undefined && error instanceof Error && error.message.includes("/proc/self/fd/")) {
    return said(error.message.replace(/'\/proc\/self\/fd\/[^']*'/g, `'${requested}'`));
  }
  return error;
}

/**
 * Largest workspace file `ctx.getSandbox()`'s `readFile` / `readFileBytes` return (48 MiB): its
 * bytes travel to the sandbox process in one bridge message, as base64 for bytes, and a file
 * is checked before it is read (host-file review of 5 December, H8: a sparse 1 GB file, nothing on disk,
 * took the host's memory from 65 MB to 1.1 GB).
 */
export const SANDBOX_READ_MAX_BYTES = 48 * 1024 * 1024;

/** Reads a workspace file as bytes, never through a link and never more than {@link SANDBOX_READ_MAX_BYTES} (`./beneath.ts`). */
async function readBeneath(workspace: string, requested: string): Promise<Buffer> {
  const { folder, name } = openTargetFolder(workspace, mapIntoWorkspace(workspace, requested), requested, false);
  try {
    return await readFileIn(folder, name, SANDBOX_READ_MAX_BYTES, (size) => new Error(`The file '${requested}' is ${size} bytes, over the ${SANDBOX_READ_MAX_BYTES} bytes (48 MiB) a sandbox file read carries; read it in parts with exec (head -c, split).`)).catch((error: unknown) => {
      throw throughLinkOr(error, requested);
    });
  } finally {
    closeFolder(folder);
  }
}

/** Reads a UTF-8 file of the workspace (never through a symbolic link). */
export async function readWorkspaceFile(workspace: string, requested: string): Promise<string> {
  return (await readBeneath(workspace, requested)).toString("utf8");
}

/** Reads a file of the workspace as its exact bytes (never through a symbolic link). */
export async function readWorkspaceFileBytes(workspace: string, requested: string): Promise<Buffer> {
  return readBeneath(workspace, requested);
}

/**
 * Writes a file of the workspace — a string as UTF-8, bytes as they are — atomically
 * (a new temporary file, then rename), creating folders; never through a symbolic link: one on
 * the way is refused, one as the last part is replaced (`./beneath.ts`).
 */
export async function writeWorkspaceFile(workspace: string, requested: string, contents: string | Uint8Array): Promise<void> {
  const { folder, name } = openTargetFolder(workspace, mapIntoWorkspace(workspace, requested), requested, true);
  try {
    // A short name of its own, so a file name the host allows is never too long with it.
    const temporary = entryOf(folder, writeTemporaryName());
    // `wx`: a new file (O_EXCL), so not a link either; the rename replaces a link named `name`.
    await fs.promises.writeFile(temporary, contents, { flag: "wx" });
    try {
      await fs.promises.rename(temporary, entryOf(folder, name));
    } catch (error) {
      // A folder named `name`, for one: the temporary does not stay behind.
      await fs.promises.rm(temporary, { force: true });
      throw throughLinkOr(error, requested);
    }
  } finally {
    closeFolder(folder);
  }
}

/** What `sandbox.exec` resolves with (the seed's shape; a non-zero exit code is a result, not an error). */
export type ShellResult = { readonly stdout: string; readonly stderr: string; readonly exitCode: number };

/** Thrown when an isolated command could not be set up (it did not run). */
export class ShellIsolationSetupError extends Error {
  constructor(reason: string) {
    super(`The shell command did not run: its isolation could not be set up (${reason}).`);
    this.name = "ShellIsolationSetupError";
  }
}

/**
 * Runs a shell command in the workspace; resolves with its output and exit code. With
 * `isolation`, the command runs under `unshare` (see `../sandbox/shell-isolation.ts`), sees
 * nothing of the workspace's state directory ({@link stateDirOfWorkspace}) but the workspace,
 * and a timeout kills it with SIGKILL, which takes every process of its PID namespace with it;
 * without, it is `/bin/sh -c` as a child of the host. Rejects when the command was stopped
 * after its timeout (default {@link EXEC_DEFAULT_TIMEOUT_MS}, at most 10 minutes), could not
 * start or ended on a signal, and with {@link ShellIsolationSetupError} when its isolation
 * could not be set up (also when an isolated `workspace` is not `<stateDir>/runs/<runId>/workspace`).
 * `network` `"none"` puts an isolated command in a network namespace without a usable device.
 * `stop` ends the command (its whole process group) when it aborts, and the promise rejects;
 * `dataLimitMb` bounds each process of an isolated command's data size (with the process-count
 * limit of `isolatedShellLaunch`, where util-linux `prlimit` is found);
 * an isolated command also dies with the host where the shell probe kept util-linux `setpriv`
 * (`isolatedShellLaunch`).
 */
export function execInWorkspace(
  workspace: string,
  command: string,
  timeoutMs: number | undefined,
  isolation?: ShellIsolationTools,
  network: "host" | "none" = "host",
  stop?: AbortSignal,
  dataLimitMb?: number,
): Promise<ShellResult> {
  const timeout = Math.min(Math.max(1, Math.floor(timeoutMs ?? EXEC_DEFAULT_TIMEOUT_MS)), EXEC_MAX_TIMEOUT_MS);
  let file = "/bin/sh";
  let args: readonly string[] = ["-c", command];
  // The isolated command's mount table (`isolatedShellLaunch`), removed once the command has ended.
  let tableDir: string | undefined;
  if (stop?.aborted) return Promise.reject(new Error(`The command did not run: its tool call has finished: ${command}`));
  if (isolation) {
    const stateDir = stateDirOfWorkspace(workspace);
    if (stateDir === undefined) return Promise.reject(new ShellIsolationSetupError(`the workspace ${workspace} is not <stateDir>/runs/<runId>/workspace, so there is no state directory to hide`));
    try {
      // Under `setpriv --pdeathsig KILL` when the probe kept it: dies with the host, whatever ends it.
      ({ command: file, args, tableDir } = isolatedShellLaunch(isolation, { workspace, stateDir, command, network, ...(dataLimitMb === undefined ? {} : { dataLimitMb }) }));
    } catch (error) {
      return Promise.reject(new ShellIsolationSetupError(`its mount table could not be written: ${(error as Error).message}`));
    }
  }
  return new Promise((resolve, reject) => {
    // `spawn`, not `execFile`: execFile drops `detached`, so the command would have no process
    // group of its own to end whole. Descriptors the host inherited without close-on-exec
    // become /dev/null (`../sandbox/inherited-descriptors.ts`; helper-89 finding 3).
    const spawned = spawn(file, args, { cwd: workspace, env: sandboxEnvironment(workspace), detached: true, stdio: coverInheritedDescriptors(["ignore", "pipe", "pipe"]) as ("pipe" | "ignore" | number)[] });
    // stdout and stderr are pipes whatever follows them in `stdio`.
    const child = spawned as ChildProcess & { readonly stdout: Readable; readonly stderr: Readable };
    let stopped: "call" | "timeout" | "output" | undefined;
    const output = { stdout: "", stderr: "", bytes: 0 };
    /** Kills the group, and stops waiting for pipes a process that left the group may hold. */
    const end = (why: "call" | "timeout" | "output"): void => {
      stopped ??= why;
      stopCommand(child);
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const collect = (stream: "stdout" | "stderr") => (chunk: string): void => {
      output.bytes += Buffer.byteLength(chunk, "utf8");
      if (output.bytes > EXEC_MAX_BUFFER) end("output");
      else output[stream] += chunk;
    };
    child.stdout.setEncoding("utf8").on("data", collect("stdout"));
    child.stderr.setEncoding("utf8").on("data", collect("stderr"));
    // The call that started the command has finished, or the runtime closes: a command left
    // running would race the next call's file work (host-file review of 5 December, H6).
    const onStop = (): void => end("call");
    stop?.addEventListener("abort", onStop, { once: true });
    // The timeout ends the whole group too, not only the shell (a `… & wait` left its loop running).
    const timer = setTimeout(() => end("timeout"), timeout);
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (tableDir !== undefined) fs.rmSync(tableDir, { recursive: true, force: true });
      stop?.removeEventListener("abort", onStop);
      outcome();
    };
    child.on("error", (error) => settle(() => reject(new Error(`The command could not run: ${error.message}`))));
    child.on("close", (code, signal) =>
      settle(() => {
        if (stopped === "call") return reject(new Error(`The command was stopped: its tool call has finished: ${command}`));
        if (stopped === "timeout") return reject(new Error(`The command was stopped after ${timeout} ms: ${command}`));
        if (stopped === "output") return reject(new Error(`The command was stopped: its output passed ${EXEC_MAX_BUFFER} bytes: ${command}`));
        if (code === null) return reject(new Error(`The command could not run: it ended on ${signal ?? "a signal"}: ${command}`));
        const setupFailure = isolation ? isolationFailureOf(code, output.stderr) : undefined;
        if (setupFailure !== undefined) return reject(new ShellIsolationSetupError(setupFailure));
        resolve({ stdout: output.stdout, stderr: output.stderr, exitCode: code });
      }),
    );
  });
}

/**
 * Ends a shell command's process group with SIGKILL (an isolated command's `unshare` with
 * `--kill-child` takes its whole PID namespace along), while its leader is not reaped: once it
 * is, the group's number may be another process's.
 */
function stopCommand(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
