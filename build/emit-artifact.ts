/**
 * The last step of a compile with packaging: the artifact (DESIGN §6), written atomically and
 * only when it differs from what is on disk.
 */
import * as fs from "node:fs";
import { fileHolds } from "../common/file-holds.js";
import * as path from "node:path";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import { folderStart } from "../common/positions.js";
import type { Lockfile } from "../contract/lockfile-types.js";
import { MANIFEST_FILE, type ArtifactManifest, type ArtifactSkill } from "../contract/manifest.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { writeRefusalDiagnostic } from "../diagnostics/write-refusal.js";
import type { PackagingResult } from "../packaging/bundle-tools.js";
import { bundleSize, bytesOfBundle, type BundleBytes } from "../packaging/bundle-bytes.js";
import { signatureOfStats } from "../common/file-stats-hash.js";
import { identityOfStats, type FileIdentity } from "../packaging/artifact-spare.js";
import type { ArtifactWriteOptions } from "../packaging/write-artifact.js";

/** Artifact files a previous compile left: absolute path → [SRI of their bytes, stat signature]; see `CompileOptions.knownArtifactFiles`. */
export type KnownArtifactFiles = ReadonlyMap<string, readonly [integrity: string, signature: string]>;

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

/** What {@link emitArtifact} did: whether it wrote, and every file the artifact now holds. */
export interface EmittedArtifact {
  /** True when the artifact was written (it differed from what `outDir` held). */
  readonly changed: boolean;
  /**
   * Artifact-relative POSIX path → bytes of every file of the artifact (manifest, bundles, copied
   * skills); a reused bundle's as a `DeferredBundle` (`packaging/bundle-bytes.ts`), whose bytes
   * were read only if its file was written or compared.
   */
  readonly files: ReadonlyMap<string, BundleBytes>;
  /**
   * Artifact-relative POSIX path → stat signature (`common/file-stats-hash.ts`) of the files this
   * compile found unchanged by the signature the compile record gave (`known`, {@link knownSame})
   * and left as they were: not written, linked or unlinked since (the artifact was current, or
   * the file was kept in the fitted spare: `WrittenArtifact.untouched`). The compile record
   * records these without asking `lstat` again (`cli/compile-record.ts`, `artifactEntries`).
   * A change after the comparison moved the file's change time, so such a signature never
   * vouches for other bytes.
   */
  readonly signatures: ReadonlyMap<string, string>;
  /**
   * Settles (never rejects) once the old artifact is removed (`WrittenArtifact.removal`): the
   * caller awaits it before returning, after overlapping other work with it.
   */
  readonly removal: Promise<void>;
}

/**
 * Writes the artifact unless an identical one is already there; `undefined` on failure (reported).
 * `lockBytes`: the lock's UTF-8 bytes, whose SRI the manifest names. `recordInput` is called
 * with every file read here (the copied SKILL.md files). `known`: the artifact files the last
 * compile left, with the SRI it wrote and their settled stat signature
 * (`CompileOptions.knownArtifactFiles`); a bundle with that SRI in a file with that signature is
 * linked without being read to compare. `writeOptions`: work run while the artifact's files are linked,
 * whether to leave the old artifact's removal to the caller, and whether to keep it as the next
 * write's spare instead (`ArtifactWriteOptions`); without it the old artifact is gone when this resolves.
 */
export async function emitArtifact(
  analysis: AgentAnalysis,
  lock: Lockfile,
  lockBytes: Uint8Array,
  packaged: PackagingResult,
  outDir: string,
  diagnostics: Diagnostic[],
  root: string,
  recordInput?: (filePath: string) => void,
  known?: KnownArtifactFiles,
  writeOptions?: ArtifactWriteOptions,
): Promise<EmittedArtifact | undefined> {
  const [{ buildManifest }, { bundleIntegrity }, { serializeManifest, writeArtifact, ArtifactWriteRefusedError }] = await Promise.all([
    import("../packaging/build-manifest.js"),
    import("../packaging/integrity.js"),
    import("../packaging/write-artifact.js"),
  ]);
  const built = buildManifest(analysis, lock, bundleIntegrity(lockBytes), packaged.toolBundles);
  const extra = new Map<string, Uint8Array>();
  for (const skill of built.skillFiles) {
    recordInput?.(skill.from);
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
  const integrities = new Map([...packaged.toolBundles.values()].map((tool) => [tool.bundle, tool.integrity]));
  const files = new Map<string, BundleBytes>([[MANIFEST_FILE, manifestBytes], ...packaged.bundles, ...extra]);
  try {
    const compared = await compareArtifact(outDir, manifestBytes, new Map<string, BundleBytes>([...packaged.bundles, ...extra]), known && { files: known, integrities });
    if (compared.current) return { changed: false, files, signatures: compared.signatures, removal: Promise.resolve() };
    const { removal, untouched } = await writeArtifact(outDir, packaged.bundles, manifest, extra, root, compared.unchanged, writeOptions);
    const signatures = new Map<string, string>();
    for (const [relative, signature] of compared.signatures) if (untouched.has(relative)) signatures.set(relative, signature);
    return { changed: true, files, signatures, removal };
  } catch (error) {
    if (error instanceof ArtifactWriteRefusedError) {
      diagnostics.push(writeRefusalDiagnostic("The artifact", error.refusal, root));
      return undefined;
    }
    diagnostics.push(createDiagnostic(Diagnostics.ArtifactWriteFailed, folderStart(outDir), [messageOf(error)]));
    return undefined;
  }
}

/**
 * Compares what `outDir` holds with this manifest and these files (bundles, skills;
 * artifact-relative path → bytes): `current` when it holds exactly them, and the files whose
 * bytes are already there, each with the identity of the file holding them (the artifact writer
 * links those instead of writing them again, or keeps them in its spare when they are the same
 * file), and of those the stat signatures of the ones found by {@link knownSame}. A reused
 * bundle's bytes are read (and verified, `DeferredBundle.load`) only for a file that
 * {@link knownSame} does not vouch for and whose size is its own; rejects when they cannot be had.
 */
async function compareArtifact(
  outDir: string,
  manifestBytes: Uint8Array,
  files: ReadonlyMap<string, BundleBytes>,
  known?: { readonly files: KnownArtifactFiles; readonly integrities: ReadonlyMap<string, string> },
): Promise<{ current: boolean; unchanged: Map<string, FileIdentity>; signatures: Map<string, string> }> {
  const unchanged = new Map<string, FileIdentity>();
  const signatures = new Map<string, string>();
  const manifest = await sameBytes(path.join(outDir, MANIFEST_FILE), manifestBytes);
  let current = manifest !== undefined;
  if (!current && !fs.existsSync(path.join(outDir, MANIFEST_FILE))) return { current: false, unchanged, signatures };
  for (const [relative, bytes] of files) {
    const file = path.join(outDir, relative);
    const vouched = knownSame(file, known?.integrities.get(relative), known?.files);
    if (vouched !== undefined) signatures.set(relative, vouched.signature);
    const identity = vouched?.identity ?? (await sameBytes(file, bytes));
    if (identity !== undefined) unchanged.set(relative, identity);
    else current = false;
  }
  if (manifest !== undefined) unchanged.set(MANIFEST_FILE, manifest);
  return { current, unchanged, signatures };
}

/**
 * The file's identity and stat signature when the last compile wrote bytes of SRI `integrity` to
 * `file` and the file still has the stat signature recorded then (settled: older than the compile
 * record's stamp, so a later write, even one restoring size and modification time, has changed
 * the change time): the bytes are the same without reading them (Git's index rule, as the compile
 * record's check applies it). `undefined` otherwise.
 */
function knownSame(file: string, integrity: string | undefined, known: KnownArtifactFiles | undefined): { readonly identity: FileIdentity; readonly signature: string } | undefined {
  const recorded = integrity === undefined ? undefined : known?.get(file);
  if (recorded === undefined || recorded[0] !== integrity) return undefined;
  try {
    const stat = fs.lstatSync(file, { bigint: true, throwIfNoEntry: false });
    return stat?.isFile() && signatureOfStats(stat) === recorded[1] ? { identity: identityOfStats(stat), signature: recorded[1] } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file's identity when `file` is a regular file (never a link) holding exactly `bytes`;
 * `undefined` otherwise. A reused bundle's bytes are read only when the file's size is theirs;
 * rejects when they cannot be had (`DeferredBundle.load`).
 */
async function sameBytes(file: string, bytes: BundleBytes): Promise<FileIdentity | undefined> {
  let stat;
  try {
    // lstat first: a link in the old artifact is never reused (nor followed).
    stat = fs.lstatSync(file, { bigint: true });
  } catch {
    return undefined;
  }
  if (!stat.isFile() || stat.size !== BigInt(bundleSize(bytes))) return undefined;
  const held = await bytesOfBundle(bytes);
  try {
    return fileHolds(file, held) ? identityOfStats(stat) : undefined;
  } catch {
    return undefined;
  }
}


function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
