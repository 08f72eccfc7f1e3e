/**
 * The host's note on a sandboxed call that failed with Node's "Cannot find module '<path>'" for a
 * file that exists on the host (security trial 128, CONFUSING 6): the sandbox process's mount
 * namespace hides the folders where host sockets live (`/tmp`, `/run`, …: `./link-guard.ts`), so a
 * run-time `import()` or `require()` of a file there finds nothing, and the words alone sent a
 * plugin author looking for a missing file. Only the host can tell: the sandbox process cannot see
 * the file, which is the point. A module the host cannot find either gets no note, so a module
 * that is missing is never called hidden.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { CallOutcome } from "./execute-definition.js";

/** Node's words for a module it could not find by path (ES `import()`, and `require()`, whose list of requirers follows on new lines). */
const NOT_FOUND = /Cannot find module '(\/[^'\n]{1,4096})'/g;
/** The most paths of one message looked up on the host. */
const MAX_LOOKUPS = 4;
/** Where the rule is documented, as the sandbox's other refusals name it (`./thrown-message.ts`). */
const POLICY_DOC = "\"What a sandboxed tool may use\" in docs/host-policy.md";

/**
 * `outcome` with a note after its `error` when the error says Node could not find a module by an
 * absolute path that is a file on the host: the sandbox hid it. Any other outcome is returned as
 * it is. Never throws.
 */
export function noteHiddenModules(outcome: CallOutcome): CallOutcome {
  if (outcome.ok) return outcome;
  const hidden = hiddenPaths(outcome.error);
  if (hidden.length === 0) return outcome;
  const files = hidden.map((file) => `'${file}'`).join(", ");
  const note = `${files} ${hidden.length === 1 ? "exists" : "exist"} on the host, but the sandbox process could not find ${hidden.length === 1 ? "it" : "them"}: the folders where host sockets live (/tmp, /run, /var/tmp, /dev/shm) are empty in its mount namespace but for its own bundle, workspace and bridge. Import what the tool needs so it is bundled, or read files from its workspace (ctx.getSandbox()); see ${POLICY_DOC}.`;
  return { ...outcome, error: `${outcome.error}\n${note}` };
}

/** The absolute paths of `text`'s "Cannot find module" that are files on the host (at most {@link MAX_LOOKUPS} looked up). */
function hiddenPaths(text: string): string[] {
  const found: string[] = [];
  let looked = 0;
  for (const match of text.matchAll(NOT_FOUND)) {
    const file = path.normalize(match[1]!);
    if (found.includes(file)) continue;
    if (++looked > MAX_LOOKUPS) break;
    try {
      if (fs.statSync(file, { throwIfNoEntry: false })?.isFile()) found.push(file);
    } catch {
      // Not readable by the host either: no claim.
    }
  }
  return found;
}
