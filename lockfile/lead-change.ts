/**
 * Which change of a stale lock a one-line report leads with (helper-78 D8.8): the diagnostic of
 * `compile --check` is all a GitHub annotation or a SARIF result shows, so it names, and is
 * placed on, the change a reviewer must read (a tool's contract), not the content hash that
 * changes with it and sorts first (`integrity` < `tools`).
 */
import type { LockChange, LockChangeGroup } from "./diff-locks.js";

/**
 * Relevance of a change at `segments` (a path from the lock's root), lowest first:
 * 0 a tool's model-visible contract (`…tools.<name>` added or removed, or any field of it but
 * its `bundle` hash); 1 anything else that is not a hash (a capability's config or source, a
 * capability or surface added or removed, `lockfileVersion`); 2 a content hash (a capability's
 * `integrity`, a tool's `bundle`), which changes whenever its sources do.
 */
export function changeRelevance(segments: readonly PropertyKey[]): number {
  // surfaces.<s>.capabilities.<c>.tools.<t>[.<field>…]
  const underTool = segments.length >= 6 && segments[0] === "surfaces" && segments[2] === "capabilities" && segments[4] === "tools";
  if (underTool && segments[6] !== "bundle") return 0;
  const hash = (underTool && segments.length === 7 && segments[6] === "bundle") || (segments.length === 5 && segments[2] === "capabilities" && segments[4] === "integrity");
  return hash ? 2 : 1;
}

/**
 * The change to lead with: the first of the most relevant ({@link changeRelevance}), in the
 * groups' own (canonical) order; `undefined` when there are none.
 */
export function leadChange(groups: readonly LockChangeGroup[]): LockChange | undefined {
  let lead: LockChange | undefined;
  let best = Infinity;
  for (const change of groups.flatMap((group) => group.changes)) {
    const relevance = changeRelevance(change.segments);
    if (relevance < best) {
      lead = change;
      best = relevance;
    }
  }
  return lead;
}
