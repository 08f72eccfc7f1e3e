/**
 * Deterministic walks of the workspace for `list`, `workspace_info` and `workspace_snapshot`.
 *
 * Entries are visited depth-first with siblings in code-unit order of their names (never in
 * readdir order), the runtime's own entries left out (`../execution/workspace-entries.ts`). Symlinks are reported but never followed, so a walk cannot leave the
 * workspace: each folder is opened through the one before it, never through a link
 * (`../execution/beneath.ts`), also when a tool's shell command swaps one in while the walk runs.
 */
import { lstat, readdir } from "node:fs/promises";
import { byCodeUnits } from "../../common/compare.js";
import { closeFolder, entryOf, folderName, MAX_FOLDER_DEPTH, openChildFolder, type OpenFolder } from "../execution/beneath.js";
import { isRuntimeEntry } from "../execution/workspace-entries.js";

/** One entry found by a walk. */
export interface WalkEntry {
  /** Workspace-relative POSIX path. */
  readonly relative: string;
  /** The open folder that holds the entry (open while `visit` runs), and its name there: open it with `openIn`. */
  readonly folder: OpenFolder;
  readonly name: string;
  readonly type: "file" | "folder" | "symlink" | "other";
  /** Bytes, for files. */
  readonly size?: number;
}

async function describe(folder: OpenFolder, name: string, relative: string): Promise<WalkEntry> {
  const stats = await lstat(entryOf(folder, name));
  const type = stats.isSymbolicLink() ? "symlink" : stats.isDirectory() ? "folder" : stats.isFile() ? "file" : "other";
  return type === "file" ? { relative, folder, name, type, size: stats.size } : { relative, folder, name, type };
}

/**
 * Visits the entries under the open `folder` (workspace-relative `relativeDir`), calling
 * `visit` for each until it returns `false`. The caller keeps `folder` open and closes it.
 *
 * @param recursive descend into sub-folders (never into a link, nor into a folder swapped for
 *   one meanwhile: that one is passed over, as an entry removed while walking is), at most
 *   `MAX_FOLDER_DEPTH` levels below `folder` (each level holds a descriptor; review of 6
 *   December, F5): `onTooDeep` is called for each folder not entered for that.
 * @param signal the call's (`CoreToolContext.signal`): once it aborts, the walk rejects with its
 *   reason before the next entry, so a call that ended does not go on walking a large tree.
 * @returns `false` when `visit` stopped the walk, else `true`.
 */
export async function walkWorkspace(
  folder: OpenFolder,
  relativeDir: string,
  recursive: boolean,
  visit: (entry: WalkEntry) => boolean | Promise<boolean>,
  onTooDeep: () => void = () => undefined,
  signal?: AbortSignal,
  depth = 0,
): Promise<boolean> {
  signal?.throwIfAborted();
  const names = (await readdir(folderName(folder))).sort(byCodeUnits);
  for (const name of names) {
    // The call may have ended meanwhile (its deadline, the host's cancel): its walk ends too.
    signal?.throwIfAborted();
    const relative = relativeDir === "" ? name : `${relativeDir}/${name}`;
    // The runtime's own (the tools' TMPDIR, a write's temporary) is not among the tool's files.
    if (isRuntimeEntry(relative)) continue;
    const entry = await describe(folder, name, relative).catch(() => undefined);
    if (!entry) continue; // removed while walking
    if (!(await visit(entry))) return false;
    if (!recursive || entry.type !== "folder") continue;
    if (depth + 1 >= MAX_FOLDER_DEPTH) {
      onTooDeep();
      continue;
    }
    let child: OpenFolder;
    try {
      child = openChildFolder(folder, name);
    } catch {
      continue; // removed, or swapped for a link or a file, while walking
    }
    try {
      if (!(await walkWorkspace(child, relative, true, visit, onTooDeep, signal, depth + 1))) return false;
    } finally {
      closeFolder(child);
    }
  }
  return true;
}
