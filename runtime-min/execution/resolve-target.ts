/**
 * What a called tool name means on a surface, for dispatch. The meaning comes from the
 * capability snapshot's resolver (`../snapshot/`, cached in `./tool-catalog.ts`), so dispatch
 * and the snapshot never disagree:
 * - an authored tool (visible, deferred or hidden — `call` acts as the host, which may call
 *   hidden tools; they are never listed or found) runs its verified bundle, gated by its locked
 *   `needsApproval`;
 * - a built-in runs the host's implementation (`RuntimeOptions.hostTools`) or the runtime's
 *   own (`../core-tools/`), gated by host core-tool policy;
 * - a built-in a plugin (`disabled: true`) or the host's policy disabled is refused;
 * - a name the snapshot does not know is refused with a "did you mean" among *listed* tools
 *   (never a hidden one, which would leak it), unless the host registered a tool of that name
 *   in `hostTools` (a host-only tool: callable, never listed).
 */
import type { ManifestApproval } from "../../contract/manifest.js";
import type { VerifiedTool } from "../artifact/load-artifact.js";
import type { CoreTool } from "../core-tools/types.js";
import { isFrameworkToolName } from "../../contract/core-catalog.js";
import type { ToolResolution } from "../snapshot/types.js";

/** The resolved target of a call. */
export type CallTarget =
  | { readonly kind: "authored"; readonly tool: VerifiedTool; readonly inputSchema: { readonly [key: string]: unknown }; readonly approval?: ManifestApproval }
  | { readonly kind: "core"; readonly tool: CoreTool; readonly inputSchema: { readonly [key: string]: unknown }; readonly approval?: ManifestApproval }
  | { readonly kind: "refused"; readonly message: string };

/** What {@link resolveCallTarget} needs besides the resolution. */
export interface TargetSources {
  readonly surfaceId: string;
  /** Verified authored tools of the surface, by name. */
  readonly authored: ReadonlyMap<string, VerifiedTool> | undefined;
  /** Built-in implementations (the runtime's, overridden by the host's) and host-only tools. */
  readonly hostTools: ReadonlyMap<string, CoreTool>;
  /** True when `tool_search` is available on the surface (for the unknown-tool hint). */
  readonly toolSearchAvailable: boolean;
}

/** Maps the snapshot's `resolution` of a called name to what dispatch runs, or a refusal message. */
export function resolveCallTarget(resolution: ToolResolution, sources: TargetSources): CallTarget {
  const { name } = resolution;
  switch (resolution.kind) {
    case "authored":
    case "hidden": {
      const tool = sources.authored?.get(name);
      if (!tool) return { kind: "refused", message: `The tool '${name}' of surface '${sources.surfaceId}' has no verified bundle in this artifact; recompile the agent.` };
      return withApproval({ kind: "authored", tool, inputSchema: tool.inputSchema }, resolution.approval);
    }
    case "core": {
      const tool = sources.hostTools.get(name);
      if (!tool) return { kind: "refused", message: `The built-in tool '${name}' has no implementation in this runtime.` };
      return withApproval({ kind: "core", tool, inputSchema: tool.inputSchema }, resolution.approval);
    }
    case "disabled":
      return {
        kind: "refused",
        message:
          resolution.by === "plugin"
            ? `The built-in tool '${name}' is disabled on surface '${sources.surfaceId}' by a plugin (disabled: true), so it cannot be called.`
            : `The built-in tool '${name}' is disabled by the host's core-tool policy, so it cannot be called.`,
      };
    case "unknown": {
      // A framework tool the surface does not offer (a built-in, or delegate without subagents) is never host-only.
      const hostOnly = isFrameworkToolName(name) ? undefined : sources.hostTools.get(name);
      if (hostOnly) return { kind: "core", tool: hostOnly, inputSchema: hostOnly.inputSchema };
      const hint =
        resolution.suggestions.length > 0
          ? ` Did you mean ${resolution.suggestions.map((suggestion) => `'${suggestion}'`).join(" or ")}?`
          : sources.toolSearchAvailable
            ? " Use tool_search to find tools."
            : "";
      return { kind: "refused", message: `There is no tool '${name}' on surface '${sources.surfaceId}'.${hint}` };
    }
  }
}

function withApproval<T extends { readonly kind: "authored" | "core" }>(target: T, approval: ManifestApproval | undefined): T & { readonly approval?: ManifestApproval } {
  return approval ? { ...target, approval } : target;
}
