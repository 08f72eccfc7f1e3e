/**
 * The `call` command's sandbox process, started before the artifact check (issue 14 item 3;
 * docs/performance.md "Sixth round"). A whole `call` spends most of its start in two places
 * that can overlap: the host's own work (checking that the artifact is current, loading the
 * runtime, verifying the artifact, opening state.db, taking the run's lease) and the sandbox
 * process's boot (three `execve`s and a Node start on the other core). This module starts the
 * process as soon as the isolation probes have answered, from a light reading of the artifact
 * as it is on disk; everything else then runs as before and decides whether it is used:
 *
 * - It is a **speculative start**: the process loads no tool code until a call is sent to it
 *   (the child imports the bundle with its first call, `../sandbox/child.ts`), so starting it
 *   runs nothing of the agent's. `openRuntime` verifies the artifact in full afterwards and
 *   adopts the process (`RuntimeOptions.firstCall.early`) only when the call's verified bundle
 *   is the very file it was started with (a content-addressed copy, `<stateDir>/bundles/
 *   <sha256>.mjs`) for the same run and workspace; otherwise the process is ended. The call's
 *   checks (input, configuration, approval, lease) all run as before.
 * - It starts only when the call would start its process itself (`startFirstCall` in
 *   `../runtime.ts`): an authored tool without an approval gate whose `requiredConfig` is
 *   supplied, under `execution: "sandbox"`, with the network policy enforceable.
 * - A process no runtime adopts is ended by {@link EarlySandbox.dispose}, which the host calls
 *   when it is done (the `call` command calls it in a `finally`); a run folder created for it is
 *   removed then, unless the runtime took it over.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import ssri from "ssri";
import { checkWriteTarget } from "../../common/confined-write.js";
import { isPathInside } from "../../common/path-inside.js";
import { DEFAULT_ARTIFACT_DIR, MANIFEST_FILE } from "../../contract/manifest.js";
import { cachedBundleIntact } from "../artifact/bundle-cache.js";
import { resolveHostLimits, type HostLimitOptions } from "../host-limits.js";
import { chooseBridgeRoot, removeStaleBridges } from "../sandbox/bridge-root.js";
import { prepareChildSource } from "../sandbox/child-script.js";
import { useIsolationCache } from "../sandbox/probe-cache.js";
import { probeProcessIsolation } from "../sandbox/process-isolation.js";
import { detectPermissionSupport } from "../sandbox/sandbox-environment.js";
import { SandboxWorker } from "../sandbox/sandbox-worker.js";
import { checkId } from "./ids.js";
import { ensureWorkspace } from "./workspace.js";

/** What {@link startFirstCallSandbox} reads: the `RuntimeOptions` the host will open the runtime with. */
export interface FirstCallSandboxOptions extends HostLimitOptions {
  readonly root: string;
  readonly artifactDir?: string;
  readonly execution?: "sandbox" | "direct";
  readonly hostConfig?: { readonly [name: string]: string };
  readonly sandboxStartTimeoutMs?: number;
  /** `RuntimeOptions.firstCall`: the call to start a process for. */
  readonly firstCall?: { readonly tool: string; readonly surface?: string; readonly runId: string };
}

/** A sandbox process started for the host's first call before the runtime opened. */
export interface EarlySandbox {
  /** The run it was started for. */
  readonly runId: string;
  /** The verified bundle copy it may read (and will import with its first call). */
  readonly bundlePath: string;
  /** The run's workspace (its cwd). */
  readonly workspace: string;
  /** The run's folder (`<stateDir>/runs/<runId>`) and whether this start created it. */
  readonly runDir: string;
  readonly createdRunDir: boolean;
  /** Resolves with the ready process; rejects when it cannot start. */
  readonly worker: Promise<SandboxWorker>;
  /**
   * Hands the process to a runtime (`openRuntime` calls it when it adopts it): from then on the
   * runtime's pool owns it and {@link dispose} leaves it (and the run folder) alone.
   */
  adopt(): Promise<SandboxWorker>;
  /** True once {@link adopt} was called. */
  readonly adopted: boolean;
  /**
   * Ends the process unless a runtime adopted it, and removes the run folder this start
   * created unless `keepRunDir` (the runtime uses that run). Idempotent; never throws.
   */
  dispose(keepRunDir?: boolean): Promise<void>;
}

/**
 * Starts the sandbox process of `options.firstCall` now, before the artifact check, when the
 * artifact on disk says the call will start one (see the module comment). Returns once the
 * process is spawned (not ready), or `undefined` when nothing was started — no hint, `direct`
 * execution, no artifact, an unknown tool or surface, an approval gate, missing host config,
 * a bundle that does not hash to its integrity or has no verified copy yet, an invalid run id
 * or host limit, network `"none"` this host cannot enforce. Never throws: whatever kept it
 * from starting is the runtime's and the call's to report, as without it.
 */
export async function startFirstCallSandbox(options: FirstCallSandboxOptions): Promise<EarlySandbox | undefined> {
  const hint = options.firstCall;
  if (!hint || (options.execution ?? "sandbox") !== "sandbox") return undefined;
  try {
    const root = path.resolve(options.root);
    const stateDir = path.join(root, ".assemblyline");
    if (!fs.statSync(stateDir, { throwIfNoEntry: false })?.isDirectory()) return undefined;
    if (checkWriteTarget(root, stateDir, "directory")) return undefined;
    const runId = checkId(hint.runId, "run");
    const limits = resolveHostLimits(options);
    const bundlePath = verifiedCopyOf(root, stateDir, options, hint.surface ?? ".", String(hint.tool));
    if (bundlePath === undefined) return undefined;
    useIsolationCache(root);
    const isolation = await probeProcessIsolation();
    if (limits.network === "none" && isolation.unavailableReason !== undefined) return undefined;
    const childSource = await prepareChildSource();
    const runDir = path.join(stateDir, "runs", runId);
    const createdRunDir = !fs.existsSync(runDir);
    const workspace = ensureWorkspace(stateDir, runId);
    const bridgeRoot = chooseBridgeRoot(stateDir);
    removeStaleBridges(bridgeRoot);
    // SandboxWorker.start spawns before its first await: the process is on its way when this returns.
    const worker = SandboxWorker.start({
      childSource,
      bundlePath,
      workspace,
      bridgeRoot,
      permission: detectPermissionSupport(),
      startTimeoutMs: options.sandboxStartTimeoutMs ?? 15_000,
      launch: isolation.tools,
      network: limits.network,
      memoryMb: limits.memoryMb,
      maxResultBytes: limits.maxResultBytes,
    });
    worker.catch(() => undefined);
    let adopted = false;
    let disposed = false;
    return {
      runId,
      bundlePath,
      workspace,
      runDir,
      createdRunDir,
      worker,
      get adopted() {
        return adopted;
      },
      adopt() {
        adopted = true;
        return worker;
      },
      async dispose(keepRunDir = false) {
        if (adopted || disposed) return;
        disposed = true;
        const started = await worker.catch(() => undefined);
        await started?.close().catch(() => undefined);
        if (createdRunDir && !keepRunDir) fs.rmSync(runDir, { recursive: true, force: true });
      },
    };
  } catch {
    return undefined;
  }
}

/**
 * The verified copy (`<stateDir>/bundles/<sha256>.mjs`) of the bundle `tool` of `surfaceId`
 * runs, read from the artifact on disk, or `undefined` when the call would not start a
 * process for it or the copy is not there and intact. A light reading, not the artifact's
 * verification (`../artifact/load-artifact.ts`), which `openRuntime` still does in full.
 */
function verifiedCopyOf(root: string, stateDir: string, options: FirstCallSandboxOptions, surfaceId: string, name: string): string | undefined {
  const artifactDir = path.resolve(root, options.artifactDir ?? DEFAULT_ARTIFACT_DIR);
  const manifest = JSON.parse(fs.readFileSync(path.join(artifactDir, MANIFEST_FILE), "utf8")) as unknown;
  const tool = own(own(own(own(manifest, "surfaces"), surfaceId), "tools"), name);
  if (!tool || typeof tool !== "object") return undefined;
  const entry = tool as { bundle?: unknown; integrity?: unknown; needsApproval?: unknown; requiredConfig?: unknown };
  if (entry.needsApproval !== undefined && entry.needsApproval !== null) return undefined;
  if (typeof entry.bundle !== "string" || typeof entry.integrity !== "string" || !Array.isArray(entry.requiredConfig)) return undefined;
  const hostConfig = options.hostConfig ?? {};
  if (entry.requiredConfig.some((key) => typeof key !== "string" || typeof hostConfig[key] !== "string")) return undefined;
  const bundleFile = path.resolve(artifactDir, ...entry.bundle.split("/"));
  if (path.isAbsolute(entry.bundle) || !isPathInside(artifactDir, bundleFile)) return undefined;
  const bytes = fs.readFileSync(bundleFile);
  if (!ssri.checkData(bytes, entry.integrity)) return undefined;
  const copy = path.join(stateDir, "bundles", `${createHash("sha256").update(bytes).digest("hex")}.mjs`);
  return cachedBundleIntact(copy, entry.integrity) ? copy : undefined;
}

/** `value[key]` when `value` is a plain object that has `key` as its own property. */
function own(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" && !Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}
