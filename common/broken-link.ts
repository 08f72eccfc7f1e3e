/**
 * The words for a path that is a symbolic link leading to no file: a link to a file that does
 * not exist, or a loop of links (`ln -s agent.md agent.md`). Reading through such a link fails
 * as if nothing were there (ENOENT, ELOOP), yet the name is taken: `compile` and `init` both
 * say what it is, so that one does not call the folder empty while the other calls it an agent
 * (helper-73's report, defect 9).
 */
import * as path from "node:path";
import type { CompilerHost } from "./host.js";

/**
 * For `filePath` (absolute), when it is a symbolic link that leads to no file, the reason to
 * print after "could not be read: " — "it is a symbolic link to 'nowhere.md', which does not
 * exist", "… to 'agent.md', that is, to itself", "… another link that leads to no file", or without the target
 * when the host cannot read links; `undefined` when the path is no link or its target is
 * there. Asks the host only about the link and its target: `kind`, `realpath`, `readLink`.
 */
export function brokenLinkReason(host: Pick<CompilerHost, "kind" | "realpath" | "readLink">, filePath: string): string | undefined {
  if (host.kind(filePath) !== "symlink" || host.realpath(filePath) !== undefined) return undefined;
  const target = host.readLink?.(filePath);
  if (target === undefined) return "it is a symbolic link that leads to no file";
  const resolved = path.resolve(path.dirname(filePath), target);
  const targetKind = host.kind(resolved);
  const where =
    resolved === path.resolve(filePath) ? "that is, to itself"
    : targetKind === "missing" ? "which does not exist"
    : targetKind === "symlink" ? "another link that leads to no file (to a missing file, or round in a loop)"
    : "which cannot be reached (a folder on its way is missing or is a file)";
  return `it is a symbolic link to '${target}', ${where}`;
}

/** The hint of a broken link at `name` (`agent.md`): repair it or put a regular file there. */
export function brokenLinkHint(name: string): string {
  return `Point the link at an existing file (ln -sf <file> ${name}), or replace it with a regular ${name}.`;
}
