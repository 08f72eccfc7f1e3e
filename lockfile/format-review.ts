/**
 * Words for a contract review (STYLE §4: detect in one place, render in another): the text
 * `review`, `add` and `compile --check` print, and the exact JSON of `review --format json`,
 * `{ "changes": [{ "kind", "surface", "tool", "detail" }] }`.
 */
import { showControlCharacters } from "../common/terminal-text.js";
import type { ContractReview } from "./review-contract.js";

/**
 * The review as plain text ending in a newline:
 *
 * ```text
 * Contract review: 2 changes, 1 needs review (marked !).
 *   surface "."
 *   ! approval-removed     deploy  the approval gate is gone (it asked: "Deploys", sideEffect external)
 *     description-changed  echo    Echo [-the-]{+a+} message
 * ```
 */
export function formatContractReview(review: ContractReview, heading = "Contract review"): string {
  const { changes } = review;
  if (changes.length === 0) return `${heading}: no model-visible changes.\n`;
  const flagged = changes.filter((change) => change.needsReview).length;
  const lines = [`${heading}: ${changes.length} change${changes.length === 1 ? "" : "s"}${flagged > 0 ? `, ${flagged} need${flagged === 1 ? "s" : ""} review (marked !)` : ""}.`];
  const kindWidth = Math.max(...changes.map((change) => change.kind.length));
  const toolWidth = Math.max(...changes.map((change) => (change.tool ?? "-").length));
  let surface: string | undefined;
  for (const change of changes) {
    if (change.surface !== surface) {
      surface = change.surface;
      lines.push(`  surface ${JSON.stringify(surface)}`);
    }
    // A description or schema in the detail is the plugin's text: its control characters are shown, never sent (helper-89, finding 6).
    lines.push(`  ${change.needsReview ? "!" : " "} ${change.kind.padEnd(kindWidth)}  ${(change.tool ?? "-").padEnd(toolWidth)}  ${showControlCharacters(change.detail)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** `review --format json`: exactly `{ changes: [{ kind, surface, tool, detail }] }`, on one line; `notes` after it when there are any (a hand edit of the lock on disk, `cli/commands/review.ts`). */
export function contractReviewJson(review: ContractReview, notes: readonly string[] = []): string {
  const changes = review.changes.map(({ kind, surface, tool, detail }) => ({ kind, surface, tool, detail }));
  return `${JSON.stringify(notes.length > 0 ? { changes, notes } : { changes })}\n`;
}
