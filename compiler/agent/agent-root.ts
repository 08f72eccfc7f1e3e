/**
 * Which agent a file belongs to: the agent root is the folder whose `agent.md` starts the
 * surface tree (DESIGN §2). The language server uses it to pick the agent of an open file, the
 * command line to name the agent root above a folder that has no `agent.md` (AL1001's hint).
 * A subagent's `agent.md` (`<root>/subagents/<name>/agent.md`) belongs to the agent above it,
 * so the walk climbs past `subagents/<name>/` folders whose grandparent holds an `agent.md` too.
 */
import * as path from "node:path";
import type { CompilerHost } from "../../common/host.js";

/**
 * Finds the agent root of `file` (absolute): the nearest folder above it with an `agent.md`,
 * climbing further while that folder is `<parent>/subagents/<name>` and `<parent>` has an
 * `agent.md`. Plugin packages (`plugins/<name>/…`, `node_modules/…`) belong to the agent above
 * them. Returns `undefined` when no folder above the file holds an `agent.md`.
 */
export function findAgentRoot(host: CompilerHost, file: string): string | undefined {
  let dir = path.dirname(path.resolve(file));
  for (;;) {
    if (hasAgentFile(host, dir)) {
      let root = dir;
      while (path.basename(path.dirname(root)) === "subagents" && hasAgentFile(host, path.dirname(path.dirname(root)))) {
        root = path.dirname(path.dirname(root));
      }
      return root;
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function hasAgentFile(host: CompilerHost, dir: string): boolean {
  const kind = host.kind(path.join(dir, "agent.md"));
  return kind === "file" || kind === "symlink";
}
