/**
 * Spawns one sandbox child process (seed "Execution Model"; issue 12: isolation and limits):
 * its own bridge folder, the permission model's allowlist, the heap flag, the launchers of
 * `./process-isolation.ts` and the allowlisted environment, with the entry script written to its
 * standard input. The one place a sandbox process is launched: `SandboxWorker.start` spawns
 * through it, and so does the early start of a `call` (`../execution/early-start.ts`), whose
 * process a worker adopts only when these options are equal to its own.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Writable } from "node:stream";
import { processDataLimitMb } from "../host-limits.js";
import { removeBridgeFolder } from "./bridge-root.js";
import { WORKSPACE_TEMP_FOLDER } from "../execution/workspace-entries.js";
import { coverInheritedDescriptors } from "./inherited-descriptors.js";
import { sandboxLaunch, type LaunchTools, type NetworkPolicy, type SandboxLaunch } from "./process-isolation.js";
import { sandboxEnvironment, sandboxNodeFlags, type PermissionSupport } from "./sandbox-environment.js";

/** Everything that decides how a sandbox process is launched (and nothing else). */
export interface SandboxSpawnOptions {
  /** Text of the child entry script, fed to the child on stdin (see `./child-script.ts`). */
  readonly childSource: string;
  /** Absolute path of the verified bundle this process serves. */
  readonly bundlePath: string;
  /** The run's workspace: the child's cwd, HOME and only writable place besides its bridge. */
  readonly workspace: string;
  /** Directory under which this process's bridge directory is created. */
  readonly bridgeRoot: string;
  readonly permission: PermissionSupport;
  /** How the child is launched (`./process-isolation.ts`). */
  readonly launch: LaunchTools;
  /** Network policy; `"none"` needs `launch.unshare`. */
  readonly network: NetworkPolicy;
  /** V8 heap limit of the child in MiB (`--max-old-space-size`; host limit `memoryMb`). */
  readonly memoryMb: number;
  /** Largest result the child may return, in bytes of JSON (host limit `maxResultBytes`). */
  readonly maxResultBytes: number;
}

/** A spawned sandbox process and its bridge folder. */
export interface SpawnedSandbox {
  readonly child: ChildProcess;
  readonly bridgeDir: string;
  /** What the process took from the host at its spawn besides its options ({@link inheritedState}). */
  readonly inherited: InheritedState;
}

/**
 * What a sandbox process takes from the host process when it is spawned, besides its
 * {@link SandboxSpawnOptions}: its environment (the allowlist of `./sandbox-environment.ts`, read
 * from the host's `process.env` at that moment), and the file-creation mask, user, group,
 * supplementary groups and scheduling priority, which a child inherits. A project configuration
 * written in JavaScript runs in the host and may change any of them after a `call`'s early start
 * spawned its process (`../execution/early-start.ts`), so adopting that process compares them
 * too ({@link sameInheritedState}).
 */
export interface InheritedState {
  readonly env: Readonly<Record<string, string>>;
  readonly umask: number;
  readonly uid: number | undefined;
  readonly gid: number | undefined;
  readonly groups: string;
  readonly priority: number | undefined;
}

/** The {@link InheritedState} a process spawned now, with `workspace`, would take from this host. */
export function inheritedState(workspace: string): InheritedState {
  return {
    env: sandboxEnvironment(workspace),
    // Reading the mask sets it and sets it back (Node offers no other way); on the main thread only.
    umask: process.umask(),
    uid: process.getuid?.(),
    gid: process.getgid?.(),
    groups: (process.getgroups?.() ?? []).join(","),
    priority: priorityOfThisProcess(),
  };
}

/** True when a process spawned now with `workspace` would inherit what `spawned` did. */
export function sameInheritedState(spawned: SpawnedSandbox, workspace: string): boolean {
  const now = inheritedState(workspace);
  const before = spawned.inherited;
  const names = Object.keys(now.env);
  return (
    now.umask === before.umask &&
    now.uid === before.uid &&
    now.gid === before.gid &&
    now.groups === before.groups &&
    now.priority === before.priority &&
    names.length === Object.keys(before.env).length &&
    names.every((name) => before.env[name] === now.env[name])
  );
}

function priorityOfThisProcess(): number | undefined {
  try {
    return os.getPriority();
  } catch {
    return undefined;
  }
}

/**
 * Creates the process's bridge folder (`<bridgeRoot>/<host pid>-<uuid>`, mode 0700: the host's
 * pid leads the name, so a later host can tell a dead host's leftovers, `./bridge-root.ts`) and
 * the workspace's `.tmp`, then spawns the child in its own session and process group (see
 * `./process-isolation.ts`) with four pipes (stdin, stdout, stderr and the doorbell on fd 3),
 * every descriptor the host inherited without close-on-exec covered by `/dev/null`
 * (`./inherited-descriptors.ts`), and ends its stdin with the entry script ({@link sendEntryScript}). Throws what `mkdir` and
 * writing the link guard's table throw (the bridge folder made is removed first); a failed `spawn` is
 * reported by the child's `error` and `exit` events.
 */
export function spawnSandboxProcess(options: SandboxSpawnOptions): SpawnedSandbox {
  const bridgeDir = path.join(options.bridgeRoot, `${process.pid}-${randomUUID()}`);
  fs.mkdirSync(bridgeDir, { recursive: true, mode: 0o700 });
  let launch: SandboxLaunch;
  try {
    fs.mkdirSync(path.join(options.workspace, WORKSPACE_TEMP_FOLDER), { recursive: true });
    const flags = sandboxNodeFlags({ read: [options.bundlePath, options.workspace, bridgeDir], write: [options.workspace, bridgeDir] }, options.permission);
    const nodeArgs = [...flags, `--max-old-space-size=${options.memoryMb}`, "--input-type=module", "-", bridgeDir, String(options.maxResultBytes)];
    launch = sandboxLaunch(options.launch, nodeArgs, options.network, undefined, processDataLimitMb(options.memoryMb), { workspace: options.workspace, keep: [options.bundlePath], tableDir: bridgeDir });
  } catch (error) {
    // Nothing will use the folder: it goes now, not at a later host's sweep.
    removeBridgeFolder(bridgeDir);
    throw error;
  }
  const inherited = inheritedState(options.workspace);
  const child = spawn(launch.command, launch.args, {
    cwd: options.workspace,
    env: inherited.env,
    // Descriptors the host inherited without close-on-exec become /dev/null (helper-89 finding 3).
    stdio: coverInheritedDescriptors(["pipe", "pipe", "pipe", "pipe"]) as ("pipe" | "ignore" | number)[],
    detached: true,
  });
  // The entry script never touches the disk: the child reads it from stdin.
  if (child.stdin) sendEntryScript(child.stdin, options.childSource);
  return { child, bridgeDir, inherited };
}

/**
 * Writes `source` to the child's stdin and ends it. The child reads its entry script to the end
 * of its stdin before it runs anything, so both are done at once where they can be: written
 * straight to the pipe's descriptor and the pipe closed, not on this process's next turn of its
 * event loop. A host busy right after the spawn (the CLI loading its bundle after a call's early
 * start, the runtime opening SQLite after a prestart) held the child for that long, about 10 ms
 * of a whole `call` (issue 14 item 3). What the pipe cannot take at once (a script beyond its
 * capacity, 64 KiB on Linux; the child's is about 30 KiB), and everything where Node exposes no
 * descriptor, goes through the stream as before.
 */
function sendEntryScript(stdin: Writable, source: string): void {
  stdin.on("error", () => undefined);
  const fd = descriptorOf(stdin);
  const bytes = Buffer.from(source, "utf8");
  let written = 0;
  if (fd !== undefined && stdin.writableLength === 0) {
    try {
      while (written < bytes.length) written += fs.writeSync(fd, bytes, written);
    } catch {
      // EAGAIN (the pipe is full) or a child already gone: the stream takes the rest.
    }
  }
  if (written === bytes.length) stdin.destroy();
  else stdin.end(bytes.subarray(written));
}

/**
 * The file descriptor of a stream Node made for a child's stdio (a pipe, or the Unix stream
 * socket of the doorbell on fd 3), or `undefined` where Node does not expose one: the libuv
 * handle's `fd`, which Node's own `net` and `child_process` code reads the same way. Without it
 * the host writes through the stream only (`./bridge.ts`'s `socketSender`, {@link sendEntryScript}).
 */
export function descriptorOf(stream: Writable): number | undefined {
  const fd = (stream as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === "number" && Number.isInteger(fd) && fd >= 0 ? fd : undefined;
}

/**
 * True when `a` and `b` launch the same process: every field of {@link SandboxSpawnOptions}
 * equal (the launchers' paths each). What an adopted early process is checked against.
 */
export function sameSpawnOptions(a: SandboxSpawnOptions, b: SandboxSpawnOptions): boolean {
  return (
    a.childSource === b.childSource &&
    a.bundlePath === b.bundlePath &&
    a.workspace === b.workspace &&
    a.bridgeRoot === b.bridgeRoot &&
    a.permission === b.permission &&
    a.launch.setpriv === b.launch.setpriv &&
    a.launch.unshare === b.launch.unshare &&
    a.launch.prlimit === b.launch.prlimit &&
    a.launch.mount === b.launch.mount &&
    a.network === b.network &&
    a.memoryMb === b.memoryMb &&
    a.maxResultBytes === b.maxResultBytes
  );
}
