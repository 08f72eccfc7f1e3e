/**
 * The artifact manifest: what `compile` writes to `<root>/.assemblyline/build/manifest.json`
 * and what runtime-min loads (DESIGN §6). The runtime owns this format; packaging imports it.
 *
 * All paths are artifact-relative POSIX paths; all integrities are SRI strings (`sha512-…`).
 */

import type { LockedApproval, ToolContract } from "./lockfile-types.js";

/** JSON object as stored in the manifest. */
export type ManifestJson = { readonly [key: string]: unknown };

/** Approval policy of a tool (`needsApproval`, seed "Approval Gates"), as locked. */
export type ManifestApproval = LockedApproval;

/** One authored tool of a surface, with its locked model-visible contract and its bundle. */
export interface ArtifactTool extends ToolContract<ManifestJson> {
  /** Capability key in `agent.md` that contributed the tool. */
  readonly capability: string;
  /** Artifact-relative path of the self-contained ESM bundle. */
  readonly bundle: string;
  /** SRI of the bundle's bytes; must equal the lock's `tools.<name>.bundle`. */
  readonly integrity: string;
}

/** A skill a surface can load with `load_skill` (its own and its plugins'). */
export interface ArtifactSkill {
  readonly name: string;
  readonly description: string;
  /** Capability that contributed it, or `null` for the surface's own `skills/`. */
  readonly capability: string | null;
  /** Artifact-relative path of the copied SKILL.md. */
  readonly file: string;
  /**
   * SRI `sha512-…` of the copied SKILL.md's bytes; `load_skill` refuses a copy that no longer
   * hashes to it (the text the model reads is as locked). Absent in artifacts of older toolchains.
   */
  readonly integrity?: string;
}

/** One surface: the root (`"."`) or a subagent (`"subagents/<name>"`, nested likewise). */
export interface ArtifactSurface {
  /** Parent surface id; `null` for the root. Handoffs are readable by the parent only. */
  readonly parent: string | null;
  /** Core tool names removed by a plugin's `disabled: true` descriptor. */
  readonly disabledCoreTools: readonly string[];
  readonly skills: readonly ArtifactSkill[];
  readonly tools: { readonly [toolName: string]: ArtifactTool };
}

/** `manifest.json` of an artifact. */
export interface ArtifactManifest {
  readonly manifestVersion: 1;
  /** SRI of the `plugins.lock` bytes the artifact was built from (stale when it differs). */
  readonly lockIntegrity: string;
  readonly surfaces: { readonly [surfaceId: string]: ArtifactSurface };
}

/** File name of the manifest inside the artifact directory. */
export const MANIFEST_FILE = "manifest.json";
/** Default artifact directory, relative to the agent root (DESIGN §6). */
export const DEFAULT_ARTIFACT_DIR = ".assemblyline/build";
