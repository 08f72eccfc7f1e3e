/**
 * Loads a compiled artifact and verifies it against `plugins.lock` before anything runs
 * (DESIGN §6: "runtime-min refuses an artifact whose hashes do not match"; issue 4 item 2).
 *
 * Checks, all reported together: the manifest's shape; that it was built from the current
 * lock (`lockIntegrity` = SRI of the `plugins.lock` bytes); that the artifact's tools and the
 * lock's tools are the same set; that each tool's contract equals the locked one; that each
 * bundle's integrity equals the lock's and its bytes hash to it. Verified bytes are copied into
 * a content-addressed cache (`./bundle-cache.ts`), and only those copies are ever executed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ssri from "ssri";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { RuntimeError, runtimeError } from "../errors.js";
import { materializeBundle } from "./bundle-cache.js";
import { JsonLocator } from "./json-locator.js";
import { MANIFEST_FILE, type ArtifactManifest, type ArtifactTool } from "../../contract/manifest.js";
import { readManifest } from "./read-manifest.js";
import { compareLockedContract, lockedToolsOf, readLockfile, type LockReading } from "./read-lock.js";
import { isPathInside } from "../../common/path-inside.js";

/** A verified tool: its manifest entry plus where its verified bundle copy lives. */
export interface VerifiedTool extends ArtifactTool {
  readonly name: string;
  readonly surface: string;
  /** Absolute path of the verified copy the sandbox (or direct mode) imports. */
  readonly verifiedBundle: string;
  /** Absolute path of the bundle in the artifact, whose bytes the copy was written from (and is written from again when removed: `restoreRemovedCopy`). */
  readonly artifactBundle: string;
}

/** A loaded, verified artifact. */
export interface LoadedArtifact {
  readonly root: string;
  readonly artifactDir: string;
  readonly manifest: ArtifactManifest;
  /** The parsed plugins.lock (plain JSON). */
  readonly lock: unknown;
  /** Verified tools by surface id, then tool name. */
  readonly tools: ReadonlyMap<string, ReadonlyMap<string, VerifiedTool>>;
  /** AL8069 for each verified copy found edited or replaced by a link, and written anew (`materializeBundle`). */
  readonly warnings: readonly Diagnostic[];
}

/** Where to find the artifact and where to keep verified bundle copies. */
export interface LoadArtifactOptions {
  /** Absolute agent root (holds `plugins.lock`). */
  readonly root: string;
  /** Absolute artifact directory (holds `manifest.json`). */
  readonly artifactDir: string;
  /** Absolute state directory (`<root>/.assemblyline`); verified copies go to `bundles/`. */
  readonly stateDir: string;
}

/**
 * Loads and verifies the artifact. Throws {@link RuntimeError} with every AL8xxx problem found
 * (missing, malformed, stale, mismatched or tampered); returns only a fully verified artifact.
 */
export function loadArtifact(options: LoadArtifactOptions): LoadedArtifact {
  const relative = (file: string): string => path.relative(options.root, file).split(path.sep).join("/") || ".";
  const manifestFile = path.join(options.artifactDir, MANIFEST_FILE);
  let manifestText: string;
  try {
    manifestText = fs.readFileSync(manifestFile, "utf8");
  } catch {
    throw runtimeError(Diagnostics.ArtifactMissing, relative(manifestFile), [relative(options.artifactDir)]);
  }
  const reading = readManifest(relative(manifestFile), manifestText);
  if (!reading.manifest) throw new RuntimeError(sortDiagnostics(reading.diagnostics));
  const lock = readLockfile(options.root, relative);
  if (lock.diagnostics.length > 0) throw new RuntimeError(lock.diagnostics);
  const manifest = reading.manifest;
  if (!ssri.checkData(lock.bytes, manifest.lockIntegrity)) {
    const current = ssri.fromData(lock.bytes, { algorithms: ["sha512"] }).toString();
    throw new RuntimeError([
      createDiagnostic(Diagnostics.ArtifactStale, reading.locator.locate(["lockIntegrity"]), [manifest.lockIntegrity, current], {
        path: ["lockIntegrity"],
      }),
    ]);
  }
  const problems: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const tools = new Map<string, Map<string, VerifiedTool>>();
  for (const [surfaceId, surface] of Object.entries(manifest.surfaces)) {
    const verified = new Map<string, VerifiedTool>();
    tools.set(surfaceId, verified);
    for (const [name, tool] of Object.entries(surface.tools)) {
      const result = verifyTool({ options, relative, locator: reading.locator, lock, surfaceId, name, tool });
      problems.push(...result.problems);
      if (result.warning) warnings.push(result.warning);
      if (result.tool) verified.set(name, result.tool);
    }
  }
  problems.push(...unpackagedLockTools(manifest, lock));
  if (problems.length > 0) throw new RuntimeError(sortDiagnostics(problems));
  return { root: options.root, artifactDir: options.artifactDir, manifest, lock: lock.value, tools, warnings: sortDiagnostics(warnings) };
}

interface ToolCheck {
  readonly options: LoadArtifactOptions;
  readonly relative: (file: string) => string;
  readonly locator: JsonLocator;
  readonly lock: LockReading;
  readonly surfaceId: string;
  readonly name: string;
  readonly tool: ArtifactTool;
}

function verifyTool(check: ToolCheck): { tool?: VerifiedTool; problems: Diagnostic[]; warning?: Diagnostic } {
  const { surfaceId, name, tool, lock, locator } = check;
  const at = ["surfaces", surfaceId, "tools", name];
  const lockPath = ["surfaces", surfaceId, "capabilities", tool.capability, "tools", name];
  const locked = lockedToolsOf(lock.value, surfaceId).get(name);
  if (!locked || locked.capability !== tool.capability || locked.disabled) {
    return { problems: [createDiagnostic(Diagnostics.ToolNotInLock, locator.locate(at), [name, surfaceId, tool.capability], { path: at })] };
  }
  const problems: Diagnostic[] = [];
  for (const field of compareLockedContract(tool, locked.value)) {
    problems.push(
      createDiagnostic(Diagnostics.ContractMismatch, locator.locate([...at, field]), [field, name, surfaceId], {
        path: [...at, field],
        related: [{ ...lock.locator.locate([...lockPath, field]), message: `plugins.lock locks the ${field} here` }],
      }),
    );
  }
  const lockedBundle = locked.value.bundle;
  if (typeof lockedBundle !== "string" || lockedBundle === "") {
    problems.push(createDiagnostic(Diagnostics.LockBundleMissing, lock.locator.locate(lockPath), [name, surfaceId, tool.capability], { path: lockPath }));
  } else if (lockedBundle !== tool.integrity) {
    problems.push(
      createDiagnostic(Diagnostics.BundleIntegrityMismatch, locator.locate([...at, "integrity"]), [tool.integrity, name, surfaceId, lockedBundle], {
        path: [...at, "integrity"],
        related: [{ ...lock.locator.locate([...lockPath, "bundle"]), message: "plugins.lock records the bundle's integrity here" }],
      }),
    );
  }
  const bundle = verifyBundle(check, at);
  problems.push(...bundle.problems);
  if (problems.length > 0 || !bundle.path || !bundle.artifactBundle) return { problems };
  return { tool: { ...tool, name, surface: surfaceId, verifiedBundle: bundle.path, artifactBundle: bundle.artifactBundle }, problems, ...(bundle.warning === undefined ? {} : { warning: bundle.warning }) };
}

function verifyBundle(check: ToolCheck, at: readonly string[]): { path?: string; artifactBundle?: string; problems: Diagnostic[]; warning?: Diagnostic } {
  const { tool, name, options, locator } = check;
  const file = path.resolve(options.artifactDir, ...tool.bundle.split("/"));
  if (path.isAbsolute(tool.bundle) || !isPathInside(options.artifactDir, file)) {
    return { problems: [createDiagnostic(Diagnostics.BundleOutsideArtifact, locator.locate([...at, "bundle"]), [tool.bundle, name], { path: [...at, "bundle"] })] };
  }
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return { problems: [createDiagnostic(Diagnostics.BundleMissing, locator.locate([...at, "bundle"]), [check.relative(file), name], { path: [...at, "bundle"] })] };
  }
  if (!ssri.checkData(bytes, tool.integrity)) {
    const actual = ssri.fromData(bytes, { algorithms: ["sha512"] }).toString();
    return {
      problems: [
        createDiagnostic(Diagnostics.BundleTampered, locator.locate([...at, "integrity"]), [check.relative(file), name, tool.integrity, actual], {
          path: [...at, "integrity"],
        }),
      ],
    };
  }
  const copy = materializeBundle(options.stateDir, bytes);
  if (copy.replaced === undefined) return { path: copy.path, artifactBundle: file, problems: [] };
  const shown = check.relative(copy.path);
  return { path: copy.path, artifactBundle: file, problems: [], warning: createDiagnostic(Diagnostics.BundleCopyReplaced, { file: shown, line: 1, column: 1 }, [shown, name, copy.replaced]) };
}

function unpackagedLockTools(manifest: ArtifactManifest, lock: LockReading): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const surfaces = typeof lock.value === "object" && lock.value !== null ? (lock.value as { surfaces?: unknown }).surfaces : undefined;
  if (typeof surfaces !== "object" || surfaces === null) return problems;
  for (const surfaceId of Object.keys(surfaces)) {
    for (const [name, locked] of lockedToolsOf(lock.value, surfaceId)) {
      if (locked.disabled || manifest.surfaces[surfaceId]?.tools[name]) continue;
      const lockPath = ["surfaces", surfaceId, "capabilities", locked.capability, "tools", name];
      problems.push(createDiagnostic(Diagnostics.LockToolNotPackaged, lock.locator.locate(lockPath), [name, surfaceId, locked.capability], { path: lockPath }));
    }
  }
  return problems;
}
