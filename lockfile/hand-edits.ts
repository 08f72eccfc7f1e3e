/**
 * Telling a hand-edited `plugins.lock` from a stale one (new-user trial of 6 December, C11:
 * docs/workflow.md promises `compile --check` catches a lock that is "missing, stale or
 * hand-edited", and a hand edit read as any stale lock). A capability's `integrity` hashes every
 * file of its plugin (docs/lockfile.md, "How a plugin's integrity is computed"), and a tool's
 * contract fields come from the plugin's entry alone, so when the integrity is the same on both
 * sides and such a field is not, the committed value came from no version of the plugin's files:
 * someone edited the lock, or another version of assembly-line wrote it.
 */
import type { LockChangeGroup } from "./diff-locks.js";
import { isJsonObject } from "../common/json-value.js";

/**
 * The fields of a locked tool that only the plugin's own files decide (docs/lockfile.md). Left
 * out: `config` (the agent's `capabilities:` merges into it) and `bundle` (esbuild and the
 * installed packages the definition imports decide it too).
 */
const PLUGIN_DECIDED_TOOL_FIELDS = new Set(["aliases", "definition", "description", "disabled", "factory", "inputSchema", "namespace", "needsApproval", "requiredConfig", "tags", "visibility"]);

/** A capability whose locked tool fields changed while its plugin's integrity did not. */
export interface HandEditedCapability {
  readonly surface: string;
  readonly capability: string;
  /** The changed paths inside the capability (`tools.echo.description`), in the diff's order. */
  readonly paths: readonly string[];
}

/**
 * The capabilities of `groups` (the diff from the committed lock `committed` to the expected
 * one `expected`, both parsed) whose `integrity` is equal on both sides while a
 * plugin-decided tool field differs. Never throws; a lock of another shape gives `[]`.
 */
export function handEditedCapabilities(groups: readonly LockChangeGroup[], committed: unknown, expected: unknown): HandEditedCapability[] {
  const found: HandEditedCapability[] = [];
  for (const group of groups) {
    if (group.surface === undefined || group.capability === undefined || group.scope.length !== 4) continue;
    const before = integrityOf(committed, group.surface, group.capability);
    if (before === undefined || before !== integrityOf(expected, group.surface, group.capability)) continue;
    const paths = group.changes
      .filter((change) => change.kind === "changed" && change.segments[4] === "tools" && PLUGIN_DECIDED_TOOL_FIELDS.has(String(change.segments[6])))
      .map((change) => change.path);
    if (paths.length > 0) found.push({ surface: group.surface, capability: group.capability, paths });
  }
  return found;
}

/** The note `compile --check` prints for {@link handEditedCapabilities}' findings (one line each). */
export function handEditedNote(edit: HandEditedCapability): string {
  const shown = edit.paths.length > 3 ? `${edit.paths.slice(0, 3).join(", ")} and ${edit.paths.length - 3} more` : edit.paths.join(", ");
  const where = edit.surface === "." ? "" : ` (surface "${edit.surface}")`;
  return `The files of capability '${edit.capability}'${where} are unchanged (the same integrity), yet its locked ${shown} differ${edit.paths.length === 1 ? "s" : ""} from what they say: plugins.lock was edited by hand (or written by another version of assembly-line).`;
}

function integrityOf(lock: unknown, surface: string, capability: string): string | undefined {
  const surfaces = isJsonObject(lock) ? lock["surfaces"] : undefined;
  const entry = isJsonObject(surfaces) && isJsonObject(surfaces[surface]) ? surfaces[surface]["capabilities"] : undefined;
  const locked = isJsonObject(entry) ? entry[capability] : undefined;
  const integrity = isJsonObject(locked) ? locked["integrity"] : undefined;
  return typeof integrity === "string" ? integrity : undefined;
}
