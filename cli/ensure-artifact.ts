/**
 * The compile-first step of the host commands (`call`, `approve`, `tools`, `search`): DESIGN §7
 * says they run the compiled artifact of the root, "compiling first when it is missing or
 * stale". Stale means the inputs moved on: `plugins.lock` is not what a compile of the agent
 * would write now, or the artifact was built for other lock bytes. An artifact whose lock is
 * current is never rebuilt here, so a bundle changed after packaging reaches runtime-min's
 * verification and is refused (AL8012) instead of being silently repackaged.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { LOCKFILE_NAME } from "../contract/lockfile-types.js";
import { DEFAULT_ARTIFACT_DIR, MANIFEST_FILE } from "../contract/manifest.js";

/** What {@link ensureArtifact} did. */
export interface EnsuredArtifact {
  /** Diagnostics of the compile (the check, or the full compile when one ran). */
  readonly diagnostics: readonly Diagnostic[];
  /** True when a full compile ran (the artifact was missing or stale). */
  readonly compiled: boolean;
  /** True when that compile wrote new `plugins.lock` bytes. */
  readonly lockChanged: boolean;
}

/**
 * Makes sure the root's artifact is current: a check of the lock that writes nothing but the
 * analysis cache (reused when unchanged) and of the artifact's recorded lock integrity;
 * only when either is stale does it run a full compile, which writes the lock and the artifact.
 * @param root the agent root (absolute or relative to the working directory).
 * @param artifactDir the artifact directory (absolute), when the project configuration's `outDir` sets one.
 * @returns the diagnostics to report (any error stops the host command). Never throws for bad
 *   input; throws only for internal failures, like `compileAgent`.
 */
export async function ensureArtifact(root: string, artifactDir?: string): Promise<EnsuredArtifact> {
  const { compileAgent } = await import("../build/compile.js");
  const absolute = path.resolve(root);
  // The check saves the analysis cache: a full compile after it (stale artifact) and the next
  // command's check then reuse the analysis instead of parsing everything again.
  const check = await compileAgent({ root: absolute, check: true, package: false, saveCache: true });
  if (check.ok && (await artifactMatchesLock(absolute, artifactDir))) return { diagnostics: check.diagnostics, compiled: false, lockChanged: false };
  const compiled = await compileAgent({ root: absolute, ...(artifactDir ? { outDir: artifactDir } : {}) });
  return { diagnostics: compiled.diagnostics, compiled: true, lockChanged: compiled.lockChanged };
}

/**
 * True when `<root>/.assemblyline/build/manifest.json` records the SRI of the current
 * `plugins.lock` bytes (the artifact was packaged for this lock). Unreadable files count as
 * a mismatch.
 */
export async function artifactMatchesLock(root: string, artifactDir = path.join(root, DEFAULT_ARTIFACT_DIR)): Promise<boolean> {
  try {
    const lockBytes = fs.readFileSync(path.join(root, LOCKFILE_NAME));
    const manifest = JSON.parse(fs.readFileSync(path.join(artifactDir, MANIFEST_FILE), "utf8")) as { lockIntegrity?: unknown };
    const { bundleIntegrity } = await import("../packaging/integrity.js");
    return manifest.lockIntegrity === bundleIntegrity(lockBytes);
  } catch {
    return false;
  }
}
