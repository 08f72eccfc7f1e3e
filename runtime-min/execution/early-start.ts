/**
 * The early start of a `call`'s sandbox process (issue 14 item 3, start-up; docs/performance.md,
 * "`call`: what runs side by side"): a host that knows which tool it will call starts that
 * tool's sandbox process before it has loaded the runtime, from what the last such call of the
 * agent started, so the process boots while the host loads its code, reads its configuration
 * and verifies the artifact. The runtime then adopts the process only when it would launch
 * exactly that process itself, and ends it otherwise.
 *
 * - **What is remembered.** After it starts the sandbox process of an announced call
 *   (`RuntimeOptions.firstCall`), the runtime keeps, per surface and tool, the launch's inputs
 *   that are not the run's: the verified bundle's path, `memoryMb`, `maxResultBytes` and the
 *   network policy ({@link SandboxStartEntry}), in `<root>/.assemblyline/cache/sandbox-start.json`
 *   ({@link SANDBOX_START_FILE}; written confined to the root, and only when it changes). No
 *   program, argument or environment is read from the file: the launchers come from the
 *   remembered isolation probe (`../sandbox/process-isolation.ts`, `knownLaunchTools`), the
 *   bundle must be an intact verified copy in the state directory's `bundles/` (a regular file
 *   whose bytes hash to its name: `../artifact/verified-copy.ts`), the limits must be in their
 *   ranges (`../host-limits.ts`), and the rest is computed as the runtime computes it.
 * - **What an early process may do.** Nothing until the runtime adopts it: the child entry
 *   loads a tool's bundle only for a call message, which only a worker sends, after the artifact
 *   was verified, and it imports a copy only when the bytes it reads hash to the copy's name
 *   (`../sandbox/child.ts`): the process may have been spawned, and its mount namespace may hold
 *   the copy's file, before the runtime verified the artifact and wrote the copy anew (security
 *   trial 128, HIGH 3). A process that is not adopted is killed, and its bridge folder removed.
 * - **When it is adopted.** `SandboxWorker.start` asks {@link EarlySandboxStart.adopt} with its
 *   own launch options (`../sandbox/sandbox-spawn.ts`): every option equal, or no adoption.
 * - **The run.** The early start picks the run id (the CLI's `--run`, else a fresh one that the
 *   CLI then uses) and makes the run's workspace; when no runtime opens with it (the call was
 *   refused before), {@link EarlySandboxStart.discard} removes the run folder it made for a run
 *   id it generated, if it is still empty. A run the user named keeps its folder: another host
 *   may be calling in the same run at the same moment, in that folder.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { checkWriteTarget, writeFileConfined } from "../../common/confined-write.js";
import { readIntactCopy } from "../artifact/verified-copy.js";
import { readSmallRegularFile } from "../../common/small-file.js";
import { HOST_LIMIT_RANGES } from "../host-limits.js";
import { chooseBridgeRoot, removeBridgeFolder } from "../sandbox/bridge-root.js";
import { knownChildSource } from "../sandbox/child-script.js";
import { useIsolationCache } from "../sandbox/probe-cache.js";
import { knownLaunchTools, type LaunchTools, type NetworkPolicy } from "../sandbox/process-isolation.js";
import { detectPermissionSupport } from "../sandbox/sandbox-environment.js";
import { sameInheritedState, sameSpawnOptions, spawnSandboxProcess, type SandboxSpawnOptions, type SpawnedSandbox } from "../sandbox/sandbox-spawn.js";
import type { EarlySandboxProcess } from "../sandbox/sandbox-worker.js";
import { isValidId, newId } from "./ids.js";
import { makeWorkspace } from "./workspace.js";
import { WORKSPACE_TEMP_FOLDER } from "./workspace-entries.js";

/** The file of remembered starts, relative to the agent root. */
export const SANDBOX_START_FILE = ".assemblyline/cache/sandbox-start.json";
/** The most starts the file keeps (the most recently changed). */
const MAX_ENTRIES = 64;
/**
 * The most bytes of `sandbox-start.json` read: {@link MAX_ENTRIES} entries of a few hundred bytes
 * each fit many times over. A larger file, a link, a FIFO or a device is not read at all (the
 * agent folder may be a cloned repository's: `common/small-file.ts`).
 */
const MAX_SANDBOX_START_BYTES = 256 * 1024;

/** What the runtime remembers of an announced call's sandbox process, per surface and tool. */
export interface SandboxStartEntry {
  /** The verified bundle the process served (`<stateDir>/bundles/<sha256>.mjs`). */
  readonly bundlePath: string;
  readonly memoryMb: number;
  readonly maxResultBytes: number;
  readonly network: NetworkPolicy;
}

/** The call a host is about to make, as far as an early start needs it. */
export interface EarlyCall {
  /** The agent root, as given (relative to the working directory, or absolute). */
  readonly root: string;
  /** The tool's model-facing name, as given. */
  readonly tool: string;
  /** The surface id, as given (default `.`). */
  readonly surface?: string;
  /** The run id, when the host names one; else a fresh one is generated. */
  readonly runId?: string;
}

/**
 * Starts the sandbox process `call` will need, when the agent remembers one for its surface
 * and tool and everything it needs is known without loading the runtime (the isolation probe's
 * remembered success, the prebuilt child entry). Returns the start, whose `runId` the call must
 * use, or `undefined` when nothing was started (nothing remembered, an entry out of range or
 * outside the state directory, a run id that is not valid, the state directory a link out of
 * the root). Never throws.
 */
export function startSandboxEarly(call: EarlyCall): EarlySandboxStart | undefined {
  try {
    const root = path.resolve(call.root);
    const surface = call.surface ?? ".";
    const entry = readEntries(root).get(entryKey(surface, call.tool));
    if (entry === undefined) return undefined;
    const stateDir = path.join(root, ".assemblyline");
    if (checkWriteTarget(root, stateDir, "directory") !== undefined) return undefined;
    // The runtime remembers the verified copy by its real path (`materializeBundle`), also for a
    // root reached through a link.
    if (path.dirname(entry.bundlePath) !== path.join(fs.realpathSync(stateDir), "bundles")) return undefined;
    // Only an intact copy: a regular file whose bytes hash to its name. An edited, replaced,
    // linked or deleted copy gets no early process; the runtime writes the verified bytes anew
    // and spawns after it checked them (security trial 128, HIGH 3). A copy changed after this
    // check is refused by the sandbox process, which hashes what it imports (`../sandbox/child.ts`).
    if (readIntactCopy(entry.bundlePath) === undefined) return undefined;
    const childSource = knownChildSource();
    if (childSource === undefined) return undefined;
    useIsolationCache(root);
    const launch = knownLaunchTools();
    if (launch === undefined || (entry.network === "none" && launch.unshare === undefined)) return undefined;
    if (call.runId !== undefined && !isValidId(call.runId)) return undefined;
    const runId = call.runId ?? newId("run");
    const runDir = path.join(stateDir, "runs", runId);
    // Only a run id generated here is this host's alone: a run the user named may be another
    // host's at the same moment (its early start may have found this folder and run in it), so
    // its folder is never removed by a discard. Hence no early start for a named run that has no
    // folder yet: a call refused before its runtime opens (input that is not JSON, a usage error)
    // would leave a run folder behind that it could not remove (README trial of 6 December).
    if (call.runId !== undefined && !fs.existsSync(runDir)) return undefined;
    const madeRun = call.runId === undefined && !fs.existsSync(runDir);
    // A bridge folder that would be made through a link: no early start (the call reports it).
    const bridgeRoot = chooseBridgeRoot(stateDir);
    if (typeof bridgeRoot !== "string") return undefined;
    const workspace = makeWorkspace(stateDir, runId);
    // A run folder that would be made through a link out of the root: no early start (the call reports it).
    if (typeof workspace !== "string") return undefined;
    const start = new EarlySandboxStart(runId, surface, call.tool, entry, madeRun ? runDir : undefined);
    const options: SandboxSpawnOptions = {
      childSource,
      bundlePath: entry.bundlePath,
      workspace,
      bridgeRoot,
      permission: detectPermissionSupport(),
      launch,
      network: entry.network,
      memoryMb: entry.memoryMb,
      maxResultBytes: entry.maxResultBytes,
    };
    try {
      const spawned = spawnSandboxProcess(options);
      // Until a worker adopts it, nothing else listens: a failed spawn or a broken pipe must not
      // become an uncaught error of the host (a process that exited is not adopted).
      spawned.child.on("error", ignore);
      for (const stream of spawned.child.stdio) stream?.on("error", ignore);
      // Nor may it keep the host alive: a host whose command never settles must still reach its
      // `beforeExit` (the bin's "stopped before it finished", exit 13). Held again when adopted.
      holdEventLoop(spawned, false);
      start.started(options, spawned);
    } catch {
      start.discard();
      return undefined;
    }
    return start;
  } catch {
    return undefined;
  }
}

/** A sandbox process started early, until a worker adopts it or the host discards it. */
export class EarlySandboxStart implements EarlySandboxProcess {
  private options: SandboxSpawnOptions | undefined;
  private spawned: SpawnedSandbox | undefined;
  /** Whether a runtime opened with this start (it then owns the run's workspace). */
  private claimed = false;

  /** @internal use {@link startSandboxEarly}. */
  constructor(
    /** The run the call must use. */
    readonly runId: string,
    /** The surface and tool it was started for, as the host named them. */
    readonly surface: string,
    readonly tool: string,
    /** The remembered entry it was started from. */
    readonly entry: SandboxStartEntry,
    /** The run folder this start made (`runs/<runId>`), if it did, until {@link discard}. */
    private madeRun: string | undefined,
  ) {}

  /** @internal the process spawned with `options`. */
  started(options: SandboxSpawnOptions, spawned: SpawnedSandbox): void {
    this.options = options;
    this.spawned = spawned;
  }

  /**
   * The launchers it started its process with: the process isolation this machine is
   * remembered to allow (`knownLaunchTools`), which the host then takes as its probe's result
   * (`startIsolationProbes`).
   */
  get launch(): LaunchTools | undefined {
    return this.options?.launch;
  }

  /** The process id of the started process, while it is neither adopted nor discarded (tests). */
  get pid(): number | undefined {
    return this.spawned?.child.pid;
  }

  /**
   * Marks the run as the runtime's: `openRuntime` calls it once the artifact is verified, and
   * from then on the run's workspace is the runtime's to keep, as for any run it opens.
   */
  claim(): void {
    this.claimed = true;
  }

  /**
   * The process, when it was launched with options equal to `options` (`sameSpawnOptions`),
   * took from the host what a process spawned now would (`sameInheritedState`: environment,
   * file-creation mask, user, groups, priority, which a JavaScript project configuration may
   * have changed since) and has not exited; else `undefined`, and the process is ended. Asked at
   * most once with an answer: a second call returns `undefined`.
   */
  adopt(options: SandboxSpawnOptions): SpawnedSandbox | undefined {
    const spawned = this.spawned;
    const launched = this.options;
    this.spawned = undefined;
    if (spawned === undefined || launched === undefined) return undefined;
    if (spawned.child.exitCode === null && spawned.child.signalCode === null && sameSpawnOptions(launched, options) && sameInheritedState(spawned, options.workspace)) {
      // As a process the worker spawned itself: its handles hold the event loop (the worker
      // decides from here, `SandboxWorker.setActive`).
      holdEventLoop(spawned, true);
      return spawned;
    }
    endProcess(spawned);
    return undefined;
  }

  /**
   * Ends the process unless a worker adopted it, and removes the run folder this start made
   * when no runtime opened with this start ({@link claim}) and the folder is still empty (the
   * call was refused before: no run folder is left that it never used). Only the first call
   * removes anything; later ones do nothing. Never throws.
   */
  discard(): void {
    if (this.spawned !== undefined) endProcess(this.spawned);
    this.spawned = undefined;
    // Once: a run folder made again later (by the runtime of a call that discarded this start
    // first) is the runtime's.
    const madeRun = this.madeRun;
    this.madeRun = undefined;
    if (this.claimed || madeRun === undefined) return;
    try {
      for (const dir of [path.join(madeRun, "workspace", WORKSPACE_TEMP_FOLDER), path.join(madeRun, "workspace"), madeRun]) fs.rmdirSync(dir);
    } catch {
      // Something was written there after all: it stays.
    }
  }
}

function ignore(): void {
  // See startSandboxEarly.
}

/** Refs (`hold`) or unrefs the process and its open pipes, as `SandboxWorker` does by activity. */
function holdEventLoop(spawned: SpawnedSandbox, hold: boolean): void {
  const handles = [spawned.child, ...spawned.child.stdio] as ({ ref(): void; unref(): void; destroyed?: boolean } | null)[];
  for (const handle of handles) {
    // A closed stream (stdin, ended once the entry script was sent) is left alone (see `SandboxWorker.setActive`).
    if (!handle || handle.destroyed === true) continue;
    if (hold) handle.ref();
    else handle.unref();
  }
}

/**
 * Kills a process that was never adopted (its whole group, while its leader has not been
 * reaped: once it has, the group's number may be another process's, as `SandboxWorker.kill`
 * guards too) and removes its bridge folder.
 */
function endProcess(spawned: SpawnedSandbox): void {
  const { child } = spawned;
  if (child.exitCode !== null || child.signalCode !== null) {
    removeBridgeFolder(spawned.bridgeDir);
    return;
  }
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone, or no group of its own.
  }
  child.kill("SIGKILL");
  removeBridgeFolder(spawned.bridgeDir);
}

/**
 * Remembers what the announced call of `surface` and `tool` started (`entry`), or forgets it
 * (`undefined`: the call started no process), in `<root>/.assemblyline/cache/sandbox-start.json`.
 * `known` is the entry the call's early start was made from, if any: when it equals `entry`,
 * nothing is read or written (unless `check`: the file is read whatever `known` says). Written confined to the root, only when `.assemblyline/` exists;
 * never throws (a file that cannot be written only loses the next call its early start).
 */
export function rememberSandboxStart(root: string, surface: string, tool: string, entry: SandboxStartEntry | undefined, known: SandboxStartEntry | undefined, check = false): void {
  if (!check && (entry === undefined ? known === undefined : known !== undefined && sameEntry(entry, known))) return;
  try {
    const base = path.resolve(root);
    if (!fs.statSync(path.join(base, ".assemblyline"), { throwIfNoEntry: false })?.isDirectory()) return;
    const entries = readEntries(base);
    const key = entryKey(surface, tool);
    const current = entries.get(key);
    if (entry === undefined ? current === undefined : current !== undefined && sameEntry(entry, current)) return;
    entries.delete(key);
    if (entry !== undefined) entries.set(key, entry);
    const kept = [...entries].slice(-MAX_ENTRIES);
    writeFileConfined(base, path.join(base, SANDBOX_START_FILE), `${JSON.stringify({ version: 1, starts: Object.fromEntries(kept) })}\n`, { createFolders: true });
  } catch {
    // Not remembered: the next call starts its process the usual way.
  }
}

/**
 * Forgets the remembered start of `surface` and `tool` (`RuntimeOptions.firstCall.remember:
 * false`): the next call of the tool starts no process early. Reads the file only; writes it
 * only when it held the start. Never throws.
 */
export function forgetSandboxStart(root: string, surface: string, tool: string): void {
  try {
    if (readEntries(path.resolve(root)).has(entryKey(surface, tool))) rememberSandboxStart(root, surface, tool, undefined, undefined, true);
  } catch {
    // Not forgotten: the next call's early start is discarded again.
  }
}

function entryKey(surface: string, tool: string): string {
  return `${surface}\u0000${tool}`;
}

function sameEntry(a: SandboxStartEntry, b: SandboxStartEntry): boolean {
  return a.bundlePath === b.bundlePath && a.memoryMb === b.memoryMb && a.maxResultBytes === b.maxResultBytes && a.network === b.network;
}

/** The valid entries of the root's file, in the file's order (none when it is missing or not valid). */
function readEntries(root: string): Map<string, SandboxStartEntry> {
  const entries = new Map<string, SandboxStartEntry>();
  let parsed: unknown;
  try {
    const text = readSmallRegularFile(path.join(root, SANDBOX_START_FILE), MAX_SANDBOX_START_BYTES);
    if (text === undefined) return entries;
    parsed = JSON.parse(text);
  } catch {
    return entries;
  }
  const starts = isObject(parsed) && parsed["version"] === 1 ? parsed["starts"] : undefined;
  if (!isObject(starts)) return entries;
  for (const [key, value] of Object.entries(starts)) {
    if (isEntry(value)) entries.set(key, { bundlePath: value.bundlePath, memoryMb: value.memoryMb, maxResultBytes: value.maxResultBytes, network: value.network });
  }
  return entries;
}

function isObject(value: unknown): value is { readonly [key: string]: unknown } {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isEntry(value: unknown): value is SandboxStartEntry {
  if (!isObject(value)) return false;
  const inRange = (name: "memoryMb" | "maxResultBytes"): boolean => {
    const number = value[name];
    const [min, max] = HOST_LIMIT_RANGES[name];
    return typeof number === "number" && Number.isInteger(number) && number >= min && number <= max;
  };
  return typeof value["bundlePath"] === "string" && path.isAbsolute(value["bundlePath"]) && inRange("memoryMb") && inRange("maxResultBytes") && (value["network"] === "host" || value["network"] === "none");
}
