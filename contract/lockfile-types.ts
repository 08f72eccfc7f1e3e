/**
 * The shape of `plugins.lock`, format version 1 (DESIGN §5, issue 3 "The lock format").
 *
 * The lock is plain JSON. It pins, per surface and capability, where the plugin came from, an
 * SRI integrity of its content (see `hashPluginDirectory`), the validated capability config,
 * and per tool the locked model-visible contract. It holds no timestamps, no absolute paths,
 * no tool version and no registry hosts, so two machines compiling the same inputs write the
 * same bytes (see `serializeLockfile`).
 */
import type { JsonObject } from "../common/json-value.js";

/** The only `lockfileVersion` this toolchain writes and understands. */
export const LOCKFILE_VERSION = 1;

/** The file name of the lock, next to the root `agent.md`. */
export const LOCKFILE_NAME = "plugins.lock";

/**
 * The whole lock.
 *
 * `surfaces` is keyed by surface id: `"."` for the agent root, `"subagents/<name>"` for a child
 * surface, `"subagents/a/subagents/b"` for a nested one (POSIX separators, no leading `./`).
 */
export interface Lockfile {
  readonly lockfileVersion: typeof LOCKFILE_VERSION;
  readonly surfaces: { readonly [surfaceId: string]: LockedSurface };
}

/**
 * What one surface selects: its capabilities, keyed by the key used in its `agent.md`, and its
 * own skills (`<surface>/skills/<name>/SKILL.md`), keyed by skill name. `skills` is omitted
 * when the surface has none, so a lock without surface skills reads as before.
 */
export interface LockedSurface {
  readonly capabilities: { readonly [capabilityKey: string]: LockedCapability };
  readonly skills?: { readonly [skillName: string]: LockedSkill };
}

/**
 * A surface's own skill. Its SKILL.md is what `load_skill` serves the model, so the lock pins
 * its content the way a capability's `integrity` pins a plugin's (and with it the plugin's
 * skills): editing the skill makes the lock stale, and `compile --check` says so.
 */
export interface LockedSkill {
  /** The SKILL.md, relative to the agent root, POSIX separators (e.g. `"skills/triage/SKILL.md"`). */
  readonly path: string;
  /** SRI (`sha512-<base64>`) of the SKILL.md content, hashed as `hashPluginDirectory` hashes a file (CRLF read as LF). */
  readonly integrity: string;
}

/**
 * Where a capability's plugin package came from.
 *
 * - `local`: a plugin folder of the agent; `path` is relative to the agent root, POSIX
 *   separators, no leading `./` (e.g. `"plugins/example"`, `"subagents/a/plugins/x"`).
 * - `npm`: an installed npm package; `version` is the exact installed version (never a range).
 *   No registry host or tarball URL is recorded: the project's package manager owns that.
 */
export type LockedSource =
  | { readonly type: "local"; readonly path: string }
  | { readonly type: "npm"; readonly name: string; readonly version: string };

/** One selected capability (a plugin package plus the agent's config for it). */
export interface LockedCapability {
  readonly source: LockedSource;
  /** SRI (`sha512-<base64>`) of the plugin directory's content, from `hashPluginDirectory`. */
  readonly integrity: string;
  /** `capabilities.<key>.config` from `agent.md`, validated against the plugin's `configSchema`. */
  readonly config: JsonObject;
  /** The plugin's tools keyed by model-facing tool name. */
  readonly tools: { readonly [toolName: string]: LockedTool };
}

/** A locked tool: either a full descriptor or a descriptor that removes a core default tool. */
export type LockedTool = LockedToolDescriptor | LockedDisabledTool;

/** `{ "disabled": true }`: the plugin removes the core default tool of this name (DESIGN §3). */
export interface LockedDisabledTool {
  readonly disabled: true;
}

/** The approval policy as locked: `sideEffect` is always present (default `"external"`). */
export interface LockedApproval {
  readonly reason: string;
  readonly sideEffect: string;
}

/**
 * The model-visible contract of one tool (DESIGN §3 and §5), declared once: the lock records it
 * ({@link LockedToolDescriptor}) and the artifact manifest carries it unchanged (`ArtifactTool`
 * in `./manifest.ts`). `J` is how a JSON object is typed on each side (the lock's `JsonObject`;
 * the manifest's `ManifestJson`, read back as unknown values).
 */
export interface ToolContract<J = JsonObject> {
  readonly description: string;
  readonly inputSchema: J;
  readonly visibility: "visible" | "deferred" | "hidden";
  readonly needsApproval?: LockedApproval;
  /** Names of non-secret values the host supplies at run time (`ctx.config`); a missing one is `configuration_error`. */
  readonly requiredConfig: readonly string[];
  /** Effective config: `{ ...descriptor.config, ...capabilityConfig }`. */
  readonly config: J;
  readonly tags: readonly string[];
  readonly aliases: readonly string[];
  readonly namespace?: string;
  /** Named export of the definition module that returns the ToolDefinition; absent means its default export. */
  readonly factory?: string;
}

/**
 * The locked contract of one tool: the {@link ToolContract} plus where its code is. Optional
 * members are omitted from the JSON when absent; they are never written as `null`.
 */
export interface LockedToolDescriptor extends ToolContract {
  /** Plugin-relative module path beginning with `./` (as written in the entry). */
  readonly definition: string;
  /** SRI of the tool's bundle once packaged. */
  readonly bundle?: string;
}

/** True for the `{ "disabled": true }` form of a locked tool. */
export function isDisabledTool(tool: LockedTool): tool is LockedDisabledTool {
  return (tool as Partial<LockedDisabledTool>).disabled === true;
}
