/**
 * Plain data of the capability snapshot (seed "Execution Model"; DESIGN §6).
 */
import type { ArtifactManifest, ArtifactTool, ManifestApproval, ManifestJson } from "../../contract/manifest.js";

/** Where a tool comes from: a framework built-in, or the capability (plugin) that contributed it. */
export type ToolSource = "core" | `plugin:${string}`;

/** Visibility of a listed tool. Hidden tools are never listed, so they have no listed form. */
export type ListedVisibility = "visible" | "deferred";

/**
 * Host core-tool policy (seed: "Host core-tool policy can also disable or approval-gate a
 * built-in without changing agent source"). Applies to built-ins only; authored tools keep
 * the approval policy locked in the artifact.
 */
export interface CoreToolPolicy {
  /** Core tool names the host removes from every surface. */
  readonly disabled?: readonly string[];
  /** Core tool names the host gates behind approval, with the approval shown to the approver. */
  readonly approval?: { readonly [coreToolName: string]: ManifestApproval };
}

/** What `buildSnapshot` and `resolveTool` need to know about one run on one surface. */
export interface SnapshotOptions {
  readonly manifest: ArtifactManifest;
  /** Surface id (`"."`, `"subagents/researcher"`). */
  readonly surfaceId: string;
  readonly coreToolPolicy?: CoreToolPolicy;
  /** Names passed to `useTool(name)` on the JS API: known deferred tools start loaded. */
  readonly promoted?: Iterable<string>;
  /** Names activated by `tool_search` earlier in this run: they appear in the next snapshot. */
  readonly activated?: Iterable<string>;
}

/** One tool the model is given: the shape `assembly-line tools` prints (DESIGN §7). */
export interface SnapshotTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ManifestJson;
  readonly source: ToolSource;
  readonly visibility: ListedVisibility;
}

/** One tool of the searchable catalogue: listed tools plus the fields `tool_search` ranks. */
export interface CatalogTool extends SnapshotTool {
  readonly tags: readonly string[];
  readonly aliases: readonly string[];
  readonly namespace?: string;
}

/** Why a host-supplied name in the snapshot options was ignored (reported, never silent). */
export type SnapshotWarningCode =
  | "unknown_promotion"
  | "promotion_not_allowed"
  | "unknown_activation"
  | "unknown_policy_tool"
  | "unknown_disabled_core_tool"
  | "authored_shadows_core";

/** A problem with the snapshot's inputs that did not stop it from being built. */
export interface SnapshotWarning {
  readonly code: SnapshotWarningCode;
  /** The tool name the warning is about. */
  readonly name: string;
  readonly message: string;
}

/** Result of `buildSnapshot`. */
export interface CapabilitySnapshot {
  readonly surfaceId: string;
  /** What the model starts with: visible tools plus promoted and activated deferred tools, sorted by name. */
  readonly tools: readonly SnapshotTool[];
  /** Everything the model can find and call (visible and deferred; not hidden, not disabled), sorted by name. */
  readonly catalog: readonly CatalogTool[];
  /** Names of hidden authored tools: callable by the host, never listed or found. Sorted. */
  readonly hidden: readonly string[];
  /** Names of core tools removed on this surface, with who removed them. Sorted by name. */
  readonly disabled: readonly DisabledCoreTool[];
  readonly warnings: readonly SnapshotWarning[];
}

/** A core tool removed on a surface. */
export interface DisabledCoreTool {
  readonly name: string;
  /** `"plugin"`: a plugin's `disabled: true` descriptor; `"host"`: host core-tool policy. */
  readonly by: "plugin" | "host";
}

/**
 * What a tool name means on a surface, for the dispatcher (`resolveTool`).
 * - `authored`: a plugin tool (visible or deferred) — run its bundle.
 * - `hidden`: a hidden plugin tool — callable by the host, never listed or found; a model call
 *   must be treated like an unknown tool.
 * - `core`: a built-in — run the core tool implementation.
 * - `disabled`: a built-in removed by a plugin or the host — refuse the call.
 * - `unknown`: nothing of that name on this surface; `suggestions` lists near listed names.
 */
export type ToolResolution =
  | {
      readonly kind: "authored";
      readonly name: string;
      readonly tool: ArtifactTool;
      readonly capability: string;
      readonly visibility: ListedVisibility;
      /** In the model's snapshot now (visible, promoted or activated). */
      readonly loaded: boolean;
      readonly approval?: ManifestApproval;
    }
  | {
      readonly kind: "hidden";
      readonly name: string;
      readonly tool: ArtifactTool;
      readonly capability: string;
      readonly approval?: ManifestApproval;
    }
  | {
      readonly kind: "core";
      readonly name: string;
      readonly visibility: ListedVisibility;
      readonly loaded: boolean;
      /** `"host"` for `pair`, `files_search`, `files_mount`, `history_search`. */
      readonly implementer: "runtime" | "host";
      /** Set when host core-tool policy approval-gates this built-in. */
      readonly approval?: ManifestApproval;
    }
  | { readonly kind: "disabled"; readonly name: string; readonly by: "plugin" | "host"; readonly message: string }
  | { readonly kind: "unknown"; readonly name: string; readonly suggestions: readonly string[]; readonly message: string };
