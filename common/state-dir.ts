/**
 * The agent root's generated-state folder, `<root>/.assemblyline/` (the artifact in `build/`,
 * the analysis cache in `cache/`, the runtime's `state.db` and `runs/`), and the `.gitignore`
 * inside it that keeps all of it out of Git (issue 10 item 7).
 *
 * The folder ignores itself, the way `.pytest_cache/` and Python virtual environments do: a
 * `.gitignore` holding `*` inside it matches every entry of the folder, that file included,
 * so nothing under `.assemblyline/` shows in `git status` and the repository's own
 * `.gitignore` is never edited.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Name of the state folder in an agent root. */
export const STATE_DIR = ".assemblyline";

/** What {@link ignoreStateDir} writes to `.assemblyline/.gitignore`. */
export const STATE_DIR_GITIGNORE = "# Written by assembly-line: everything in this folder is generated.\n*\n";

/**
 * Writes `<root>/.assemblyline/.gitignore` ({@link STATE_DIR_GITIGNORE}) when the folder
 * exists and has no `.gitignore` yet; an existing one (perhaps edited by the user) is left as
 * it is. Returns whether it wrote the file. Never throws: a folder that cannot be written to
 * costs only the ignore file, never the compile or the run.
 */
export function ignoreStateDir(root: string): boolean {
  const dir = path.join(root, STATE_DIR);
  try {
    // lstat: a symlinked .assemblyline is never written through (issue 12: writes never follow
    // a link out of the agent root); `wx` never replaces an existing file or link.
    if (!fs.lstatSync(dir).isDirectory()) return false;
    fs.writeFileSync(path.join(dir, ".gitignore"), STATE_DIR_GITIGNORE, { flag: "wx" });
    return true;
  } catch {
    return false;
  }
}
