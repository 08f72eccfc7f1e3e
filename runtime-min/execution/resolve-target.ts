/**
 * What a called tool name means on a surface, for dispatch: an authored tool of the artifact,
 * a host tool (built-in or host-provided), a built-in removed on this surface, or nothing —
 * with a "did you mean" for near misses.
 *
 * Hidden authored tools resolve like any other: `call` acts as the host, which may call them
 * (they are never listed to the model; see `../snapshot/`).
 */
import { distance } from "fastest-levenshtein";
import type { ManifestApproval } from "../artifact/manifest.js";
import type { LoadedArtifact, VerifiedTool } from "../artifact/load-artifact.js";
import type { CoreTool } from "../core-tools/types.js";
import type { CoreToolPolicy } from "../snapshot/types.js";

/** The resolved target of a call. */
export type CallTarget =
  | { readonly kind: "authored"; readonly tool: VerifiedTool; readonly inputSchema: { readonly [key: string]: unknown }; readonly approval?: ManifestApproval }
  | { readonly kind: "core"; readonly tool: CoreTool; readonly inputSchema: { readonly [key: string]: unknown }; readonly approval?: ManifestApproval }
  | { readonly kind: "refused"; readonly message: string };

/** Resolves `name` on `surfaceId` (which must exist in the artifact). */
export function resolveCallTarget(
  artifact: LoadedArtifact,
  hostTools: ReadonlyMap<string, CoreTool>,
  policy: CoreToolPolicy,
  surfaceId: string,
  name: string,
): CallTarget {
  const authored = artifact.tools.get(surfaceId)?.get(name);
  if (authored) {
    return { kind: "authored", tool: authored, inputSchema: authored.inputSchema, ...(authored.needsApproval ? { approval: authored.needsApproval } : {}) };
  }
  const core = hostTools.get(name);
  const surface = artifact.manifest.surfaces[surfaceId];
  if (core) {
    if (surface?.disabledCoreTools.includes(name)) {
      return { kind: "refused", message: `The built-in tool '${name}' is disabled on surface '${surfaceId}' by a plugin (disabled: true), so it cannot be called.` };
    }
    if (policy.disabled?.includes(name)) {
      return { kind: "refused", message: `The built-in tool '${name}' is disabled by the host's core-tool policy, so it cannot be called.` };
    }
    const approval = policy.approval?.[name];
    return { kind: "core", tool: core, inputSchema: core.inputSchema, ...(approval ? { approval } : {}) };
  }
  const candidates = [...(artifact.tools.get(surfaceId)?.keys() ?? []), ...[...hostTools.keys()].filter((tool) => !surface?.disabledCoreTools.includes(tool) && !policy.disabled?.includes(tool))];
  const suggestion = closest(name, candidates);
  const hint = suggestion ? ` Did you mean '${suggestion}'?` : "";
  return { kind: "refused", message: `There is no tool '${name}' on surface '${surfaceId}'.${hint}` };
}

function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of [...candidates].sort()) {
    const d = distance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
