/**
 * The last step of a compile with packaging: the artifact (DESIGN §6), written atomically and
 * only when it differs from what is on disk.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import { fileStart } from "../common/positions.js";
import type { Lockfile } from "../contract/lockfile-types.js";
import { MANIFEST_FILE, type ArtifactManifest, type ArtifactSkill } from "../contract/manifest.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { writeRefusalDiagnostic } from "../diagnostics/write-refusal.js";
import type { PackagingResult } from "../packaging/bundle-tools.js";

/** Every non-disabled authored tool, as packaging wants it. */
export function packagingTools(analysis: AgentAnalysis) {
  return analysis.capabilities.flatMap((capability) =>
    capability.plugin.tools.map((tool) => ({
      surfaceId: capability.surface.id,
      capability: capability.resolved.request.key,
      toolName: tool.name,
      pluginRoot: capability.resolved.source.dir,
      definitionFile: tool.definitionFile,
    })),
  );
}

/** Writes the artifact unless an identical one is already there; `undefined` on failure (reported). */
export async function emitArtifact(
  analysis: AgentAnalysis,
  lock: Lockfile,
  lockText: string,
  packaged: PackagingResult,
  outDir: string,
  diagnostics: Diagnostic[],
  root: string,
): Promise<boolean | undefined> {
  const [{ buildManifest }, { bundleIntegrity }, { serializeManifest, writeArtifact, ArtifactWriteRefusedError }] = await Promise.all([
    import("../packaging/build-manifest.js"),
    import("../packaging/integrity.js"),
    import("../packaging/write-artifact.js"),
  ]);
  const built = buildManifest(analysis, lock, bundleIntegrity(Buffer.from(lockText, "utf8")), packaged.toolBundles);
  const extra = new Map<string, Uint8Array>();
  for (const skill of built.skillFiles) {
    const bytes = fs.existsSync(skill.from) ? fs.readFileSync(skill.from) : undefined;
    if (bytes) extra.set(skill.to, bytes);
  }
  // Each copied SKILL.md's integrity goes into the manifest, so load_skill serves only the text packaged.
  const withIntegrity = (skill: ArtifactSkill): ArtifactSkill => {
    const bytes = extra.get(skill.file);
    return bytes ? { ...skill, integrity: bundleIntegrity(bytes) } : skill;
  };
  const manifest: ArtifactManifest = {
    ...built.manifest,
    surfaces: Object.fromEntries(Object.entries(built.manifest.surfaces).map(([id, surface]) => [id, { ...surface, skills: surface.skills.map(withIntegrity) }])),
  };
  const manifestBytes = serializeManifest(manifest);
  // The copied SKILL.md files count too: a surface's own skill can change without changing the
  // lock (and so the manifest), and load_skill must then serve the new text.
  if (artifactIsCurrent(outDir, manifestBytes, new Map([...packaged.bundles, ...extra]))) return false;
  try {
    await writeArtifact(outDir, packaged.bundles, manifest, extra, root);
    return true;
  } catch (error) {
    if (error instanceof ArtifactWriteRefusedError) {
      diagnostics.push(writeRefusalDiagnostic("The artifact", error.refusal, root));
      return undefined;
    }
    diagnostics.push(createDiagnostic(Diagnostics.ArtifactWriteFailed, fileStart(outDir), [messageOf(error)]));
    return undefined;
  }
}

/** True when `outDir` already holds exactly this manifest and these files (bundles, skills; artifact-relative path → bytes). */
function artifactIsCurrent(outDir: string, manifestBytes: Uint8Array, files: ReadonlyMap<string, Uint8Array>): boolean {
  try {
    if (!Buffer.from(fs.readFileSync(path.join(outDir, MANIFEST_FILE))).equals(manifestBytes)) return false;
    for (const [relative, bytes] of files) {
      if (!Buffer.from(fs.readFileSync(path.join(outDir, relative))).equals(bytes)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
