/**
 * Surfaces whose every tool a new lock would drop (issue 13 item 4: `compile --check` never
 * proposes accepting such a lock without saying so). Plain functions over parsed locks.
 */
import { byCodeUnits } from "../common/compare.js";
import { isJsonObject } from "../common/json-value.js";

/** A surface that has tools in the committed lock and none in the one compile would write. */
export interface DroppedSurface {
  readonly surfaceId: string;
  /** The tool names the committed lock has for it, sorted. */
  readonly tools: readonly string[];
}

/** Tool names per surface of a parsed lock (anything that is not a lock's shape counts as none). */
function toolsBySurface(lock: unknown): Map<string, string[]> {
  const result = new Map<string, string[]>();
  const surfaces = (lock as { surfaces?: unknown } | null)?.surfaces;
  if (!isJsonObject(surfaces)) return result;
  for (const [surfaceId, surface] of Object.entries(surfaces)) {
    const capabilities = isJsonObject(surface) ? surface["capabilities"] : undefined;
    const names: string[] = [];
    if (isJsonObject(capabilities)) {
      for (const capability of Object.values(capabilities)) {
        const tools = isJsonObject(capability) ? capability["tools"] : undefined;
        if (isJsonObject(tools)) names.push(...Object.keys(tools));
      }
    }
    result.set(surfaceId, names.sort(byCodeUnits));
  }
  return result;
}

/** Surfaces with tools in `committed` and none in `expected`, sorted by id. */
export function droppedSurfaces(committed: unknown, expected: unknown): DroppedSurface[] {
  const after = toolsBySurface(expected);
  const dropped: DroppedSurface[] = [];
  for (const [surfaceId, tools] of toolsBySurface(committed)) {
    if (tools.length > 0 && (after.get(surfaceId)?.length ?? 0) === 0) dropped.push({ surfaceId, tools });
  }
  return dropped.sort((a, b) => byCodeUnits(a.surfaceId, b.surfaceId));
}

/** "What compile would write drops every tool of surface \".\" (echo, search)" for one or more surfaces. */
export function droppedWords(dropped: readonly DroppedSurface[]): string {
  const parts = dropped.map(({ surfaceId, tools }) => {
    const shown = tools.length > 5 ? `${tools.slice(0, 5).join(", ")} and ${tools.length - 5} more` : tools.join(", ");
    return `surface "${surfaceId}" (${tools.length} tool${tools.length === 1 ? "" : "s"}: ${shown})`;
  });
  return `What compile would write drops every tool of ${parts.join(" and of ")}`;
}
