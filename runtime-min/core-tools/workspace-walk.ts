/**
 * Deterministic walks of the workspace for `list`, `workspace_info` and `workspace_snapshot`.
 *
 * Entries are visited depth-first with siblings in code-unit order of their names (never in
 * readdir order). Symlinks are reported but never followed, so a walk cannot leave the
 * workspace.
 */
import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { byCodeUnits } from "../../common/compare.js";

/** One entry found by a walk. */
export interface WalkEntry {
  /** Workspace-relative POSIX path. */
  readonly relative: string;
  readonly hostPath: string;
  readonly type: "file" | "folder" | "symlink" | "other";
  /** Bytes, for files. */
  readonly size?: number;
}


async function describe(hostPath: string, relative: string): Promise<WalkEntry> {
  const stats = await lstat(hostPath);
  if (stats.isSymbolicLink()) return { relative, hostPath, type: "symlink" };
  if (stats.isDirectory()) return { relative, hostPath, type: "folder" };
  if (stats.isFile()) return { relative, hostPath, type: "file", size: stats.size };
  return { relative, hostPath, type: "other" };
}

/**
 * Visits the entries under folder `hostDir` (workspace-relative `relativeDir`), calling
 * `visit` for each until it returns `false`.
 *
 * @param recursive descend into sub-folders (not into symlinked folders).
 * @returns `false` when `visit` stopped the walk, else `true`.
 */
export async function walkWorkspace(
  hostDir: string,
  relativeDir: string,
  recursive: boolean,
  visit: (entry: WalkEntry) => boolean | Promise<boolean>,
): Promise<boolean> {
  const names = (await readdir(hostDir)).sort(byCodeUnits);
  for (const name of names) {
    const relative = relativeDir === "" ? name : `${relativeDir}/${name}`;
    const entry = await describe(path.join(hostDir, name), relative).catch(() => undefined);
    if (!entry) continue; // removed while walking
    if (!(await visit(entry))) return false;
    if (recursive && entry.type === "folder" && !(await walkWorkspace(entry.hostPath, relative, true, visit))) return false;
  }
  return true;
}
