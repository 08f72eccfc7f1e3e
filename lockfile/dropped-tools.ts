/**
 * What a new lock would drop: surfaces whose every tool goes (issue 13 item 4: `compile --check`
 * never proposes accepting such a lock without saying so), and bundle integrities `--check`
 * cannot compute. Plain functions over parsed locks.
 */
import { byCodeUnits } from "../common/compare.js";
import { isJsonObject } from "../common/json-value.js";

/** A surface that has tools in the committed lock and none in the one compile would write. */
export interface DroppedSurface {
  readonly surfaceId: string;
  /** The tool names the committed lock has for it, sorted. */
  readonly tools: readonly string[];
}

/** One tool entry of a parsed lock and where it is. */
interface LockedTool {
  readonly surfaceId: string;
  readonly capability: string;
  readonly name: string;
  readonly tool: unknown;
}

/** Every tool entry of a parsed lock (anything that is not a lock's shape has none). */
function* lockedTools(lock: unknown): Generator<LockedTool> {
  const surfaces = (lock as { surfaces?: unknown } | null)?.surfaces;
  if (!isJsonObject(surfaces)) return;
  for (const [surfaceId, surface] of Object.entries(surfaces)) {
    const capabilities = isJsonObject(surface) ? surface["capabilities"] : undefined;
    if (!isJsonObject(capabilities)) continue;
    for (const [capability, entry] of Object.entries(capabilities)) {
      const tools = isJsonObject(entry) ? entry["tools"] : undefined;
      if (isJsonObject(tools)) for (const [name, tool] of Object.entries(tools)) yield { surfaceId, capability, name, tool };
    }
  }
}

/** Tool names per surface of a parsed lock (a surface without tools may be absent). */
function toolsBySurface(lock: unknown): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const { surfaceId, name } of lockedTools(lock)) {
    const names = result.get(surfaceId);
    if (names) names.push(name);
    else result.set(surfaceId, [name]);
  }
  for (const names of result.values()) names.sort(byCodeUnits);
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

/**
 * How many tools `committed` gives a `bundle` integrity and `expected` keeps (not disabled)
 * without one. `compile --check` and `compile --no-package` bundle nothing: a tool keeps its
 * bundle integrity only while its capability's content integrity is unchanged
 * (`carriedOverBundles` in `build/lock-inputs.ts`), so for a changed plugin the expected lock has
 * no `bundle` line where the `compile` that packages writes a new one.
 */
export function bundlesLeftOut(committed: unknown, expected: unknown): number {
  const key = ({ surfaceId, capability, name }: LockedTool): string => `${surfaceId}\0${capability}\0${name}`;
  const without = new Set<string>();
  // A tool now disabled (`{ "disabled": true }`) has no bundle in any lock.
  for (const entry of lockedTools(expected)) if (isJsonObject(entry.tool) && !("bundle" in entry.tool) && entry.tool["disabled"] !== true) without.add(key(entry));
  let count = 0;
  for (const entry of lockedTools(committed)) if (isJsonObject(entry.tool) && typeof entry.tool["bundle"] === "string" && without.has(key(entry))) count++;
  return count;
}

/** The note for {@link bundlesLeftOut}: the diff's removed `bundle` lines are not what `compile` writes. */
export function bundlesLeftOutNote(count: number): string {
  const tools = count === 1 ? "1 tool" : `${count} tools`;
  return `The diff drops the bundle integrity of ${tools} whose plugin changed: --check (like --no-package) does not bundle. compile bundles the tool and writes its new integrity.`;
}
