/**
 * The artifact manifest: what `compile` writes to `<root>/.assemblyline/build/manifest.json`
 * and what runtime-min loads (DESIGN §6). The runtime owns this format; packaging imports it.
 *
 * All paths are artifact-relative POSIX paths; all integrities are SRI strings (`sha512-…`).
 */

/** JSON object as stored in the manifest. */
export type ManifestJson = { readonly [key: string]: unknown };

/** Approval policy of a tool (`needsApproval`, seed "Approval Gates"). */
export interface ManifestApproval {
  readonly reason: string;
  readonly sideEffect: string;
}

/** One authored tool of a surface, with its locked model-visible contract and its bundle. */
export interface ArtifactTool {
  /** Capability key in `agent.md` that contributed the tool. */
  readonly capability: string;
  readonly description: string;
  readonly inputSchema: ManifestJson;
  readonly visibility: "visible" | "deferred" | "hidden";
  readonly needsApproval?: ManifestApproval;
  /** Names the host must supply at run time (`ctx.config`); a missing one is `configuration_error`. */
  readonly requiredConfig: readonly string[];
  /** Effective config: `{ ...descriptor.config, ...capabilityConfig }`. */
  readonly config: ManifestJson;
  readonly tags: readonly string[];
  readonly aliases: readonly string[];
  readonly namespace?: string;
  /** Named export to call with `config`; absent means the module's default export is the tool. */
  readonly factory?: string;
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
