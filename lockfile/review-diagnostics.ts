/**
 * The contract review as diagnostics, for `review --format github|sarif` (new-user trial 115: a
 * pull request's CI could fail on a review but not say where): each change becomes AL6216 (needs
 * review, an error) or AL6217 (a notice), placed on the change in the lock on disk, so GitHub
 * marks the lock's line in the pull request's diff and code scanning lists it. The words of each
 * change stay those of `lockfile/review-contract.ts`; this module only places them.
 */
import { parseJsonText } from "../common/json-text.js";
import type { SourceLocation } from "../common/positions.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { ContractChange, ContractChangeKind, ContractReview } from "./review-contract.js";

/** The member of a locked tool each kind of change is about (`undefined`: the tool's own key). */
const CHANGED_MEMBER: Readonly<Record<ContractChangeKind, string | undefined>> = {
  "tool-added": undefined,
  "tool-removed": undefined,
  "tool-renamed": undefined,
  "description-changed": "description",
  "schema-widened": "inputSchema",
  "schema-narrowed": "inputSchema",
  "schema-changed": "inputSchema",
  "approval-removed": "needsApproval",
  "approval-weakened": "needsApproval",
  "approval-added": "needsApproval",
  "visibility-changed": "visibility",
  "required-config-changed": "requiredConfig",
  "package-changed": undefined,
  "core-tool-disabled": undefined,
  "core-tool-restored": undefined,
};

/** Length of a tool's path in the lock: `surfaces.<surface>.capabilities.<key>.tools.<tool>`. */
const TOOL_PATH_LENGTH = 6;

/**
 * The property path in plugins.lock a change is about: `surfaces.<surface>.capabilities.<key>`
 * then `source` for a package change, or `tools.<tool>` and the member the kind names. A member
 * the lock does not have (a removed tool, a removed approval gate) is placed by the reader at its
 * nearest existing ancestor (`JsonPositions.locate`).
 */
export function lockPathOfChange(change: ContractChange): readonly string[] {
  const capability = ["surfaces", change.surface, "capabilities", change.capability];
  if (change.tool === null) return [...capability, "source"];
  const member = CHANGED_MEMBER[change.kind];
  return [...capability, "tools", change.tool, ...(member === undefined ? [] : [member])];
}

/**
 * One diagnostic per change of `review`, in its order: AL6216 for a change that needs review,
 * AL6217 for the others, each with the change's kind, tool and surface, and its detail.
 *
 * @param lockFile the lock's file as diagnostics name it (relative to the agent root).
 * @param lockText the lock on disk, whose member each change is placed on (the changes are those
 *   of the next lock: after `compile`, or with `compile --check` passing, they are the same
 *   file). `undefined` (no lock on disk) or text that is not JSON places every change at line 1.
 */
export function reviewDiagnostics(review: ContractReview, lockFile: string, lockText: string | undefined): Diagnostic[] {
  const parsed = lockText === undefined ? undefined : parseJsonText(lockFile, lockText);
  const locate = (segments: readonly string[]): SourceLocation => {
    if (parsed?.ok !== true) return { file: lockFile, line: 1, column: 1 };
    const existing = existingPrefix(parsed.value, segments);
    // The member itself: a tool by its key, a changed member by its value (a description, a
    // schema). Else the name of the nearest member the lock has (a removed tool's capability's
    // `tools`), one line rather than the whole object around it.
    if (existing.length === segments.length) return parsed.positions.locate(segments, segments.length === TOOL_PATH_LENGTH ? "key" : "value");
    return existing.length === 0 ? { file: lockFile, line: 1, column: 1 } : parsed.positions.locate(existing, "key");
  };
  return review.changes.map((change) => {
    const segments = lockPathOfChange(change);
    const subject = change.tool === null ? `surface '${change.surface}'` : `tool '${change.tool}' on surface '${change.surface}'`;
    const message = change.needsReview ? Diagnostics.ContractChangeNeedsReview : Diagnostics.ContractChange;
    return createDiagnostic(message, locate(segments), [change.kind, subject, change.detail], { path: [...segments] });
  });
}

/** The longest start of `segments` that names members `value` has (own properties of objects). */
function existingPrefix(value: unknown, segments: readonly string[]): readonly string[] {
  let node = value;
  let length = 0;
  for (const segment of segments) {
    if (typeof node !== "object" || node === null || Array.isArray(node) || !Object.hasOwn(node, segment)) break;
    node = (node as Record<string, unknown>)[segment];
    length++;
  }
  return segments.slice(0, length);
}
