/**
 * Deferred tools a surface cannot reach (new-user trial 129, finding 1): a deferred tool leaves
 * the initial snapshot and reaches the model only when tool_search activates it (seed, Plugin
 * tools: "tool_search finds and activates matching deferred framework, authored, and connection
 * tools"). A plugin's `tool_search: { disabled: true }` descriptor removes that way for every
 * deferred tool of the surface, the core ones included, so it is reported (AL4038, a warning:
 * engines with native deferred loading discover tools on their own).
 */
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { DEFERRED_CORE_TOOLS } from "../../contract/core-catalog.js";
import { byCodeUnits } from "../../common/compare.js";
import type { ValidatedPlugin } from "./validate-plugin.js";

/** The core tool that activates deferred tools. */
export const TOOL_SEARCH = "tool_search";

/**
 * AL4038 for each plugin of one surface that disables tool_search while the surface keeps a
 * deferred tool (a core one no plugin disabled, or an authored one), placed on the descriptor.
 * `plugins` are the surface's validated plugins; `surfaceId` names the surface in the message.
 */
export function checkDeferredReach(plugins: readonly ValidatedPlugin[], surfaceId: string): Diagnostic[] {
  const disablers = plugins.flatMap((plugin) => plugin.disabled.filter((d) => d.name === TOOL_SEARCH));
  if (disablers.length === 0) return [];
  const removed = new Set(plugins.flatMap((plugin) => plugin.disabled.map((d) => d.name)));
  const deferred = [
    ...DEFERRED_CORE_TOOLS.filter((name) => !removed.has(name)),
    ...plugins.flatMap((plugin) => plugin.tools.filter((tool) => tool.visibility === "deferred").map((tool) => tool.name)),
  ].sort(byCodeUnits);
  if (deferred.length === 0) return [];
  return disablers.map((d) =>
    createDiagnostic(Diagnostics.DeferredToolsUnreachable, d.location, [d.capability, surfaceId, deferred.length, deferred.length === 1 ? "" : "s", deferred.join(", ")], { path: ["tools", TOOL_SEARCH, "disabled"] }),
  );
}
