/**
 * `list` (always visible) and the deferred workspace tools `workspace_info` and
 * `workspace_snapshot` (this runtime's "workspace tools", see `../snapshot/core-catalog.ts`).
 * All three walk with `walkWorkspace`: deterministic order, symlinks listed but not followed.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { openIn, type OpenFolder } from "../execution/beneath.js";
import { ToolCallError } from "../failures.js";
import { optionalInteger, optionalString, pickSpec } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";
import { walkWorkspace, type WalkEntry } from "./workspace-walk.js";
import { describeFsError, resolveWorkspacePath, toWorkspacePath, withFolderOf, WORKSPACE_ROOT, type ResolvedWorkspacePath } from "./workspace-paths.js";

/** Entries `list` returns when no `limit` is given. */
export const LIST_DEFAULT_LIMIT = 500;
/** Files `workspace_snapshot` returns when no `limit` is given. */
export const SNAPSHOT_DEFAULT_LIMIT = 2000;
/**
 * Bytes one `workspace_snapshot` hashes in all (1 GiB): a file that would pass it is listed with
 * `sha256: null`, not hashed (sparse files of a gigabyte cost a shell command nothing to make, and
 * 8 s of the host's CPU each to hash; host-file review of 5 December, H8, and helper-65 C2).
 */
export const SNAPSHOT_HASH_MAX_BYTES = 1024 * 1024 * 1024;
/** Entries `workspace_info` counts before it reports `truncated`. */
export const INFO_MAX_ENTRIES = 200_000;

function entryJson(entry: WalkEntry): CoreJson {
  const base = { path: toWorkspacePath(entry.relative), type: entry.type };
  return entry.size === undefined ? base : { ...base, size: entry.size };
}

/**
 * Resolves the folder `input.path` names (default `/workspace`) and runs `use` with it open
 * (never through a link) and its resolved path.
 * @throws ToolCallError `invalid_input` for a refused or missing path, or a file.
 */
async function withInputFolder<T>(ctx: CoreToolContext, input: CoreJson, tool: string, use: (folder: OpenFolder, resolved: ResolvedWorkspacePath) => Promise<T>): Promise<T> {
  const resolved = await resolveWorkspacePath(ctx.workspaceDir, optionalString(input, "path") ?? WORKSPACE_ROOT);
  let opened = false;
  try {
    return await withFolderOf(resolved, (folder) => {
      opened = true;
      return use(folder, resolved);
    });
  } catch (error) {
    if (opened) throw error;
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR" && resolved.exists) {
      throw new ToolCallError("invalid_input", `${resolved.workspacePath} is a file; ${tool} takes a folder (use read for files).`);
    }
    throw describeFsError(error, resolved.workspacePath);
  }
}

/** `list`: `{ path, entries: [{ path, type, size? }], truncated }`, depth-first, siblings sorted. */
export async function listTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const limit = optionalInteger(input, "limit", LIST_DEFAULT_LIMIT);
  return withInputFolder(ctx, input, "list", async (folder, resolved) => {
    const entries: CoreJson[] = [];
    let truncated = false;
    const tooDeep = () => void (truncated = true);
    await walkWorkspace(folder, resolved.relative, input.recursive === true, (entry) => {
      if (entries.length === limit) {
        truncated = true;
        return false;
      }
      entries.push(entryJson(entry));
      return true;
    }, tooDeep, ctx.signal);
    return { path: resolved.workspacePath, entries, truncated };
  });
}

/** `workspace_info`: counts and bytes of the whole workspace plus its top-level entries. */
export async function workspaceInfoTool(_input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  return withInputFolder(ctx, {}, "workspace_info", async (root) => {
    const counts = { files: 0, folders: 0, symlinks: 0, other: 0, bytes: 0 };
    const topLevel: CoreJson[] = [];
    let seen = 0;
    let tooDeep = false;
    const complete = await walkWorkspace(root, "", true, (entry) => {
      seen += 1;
      if (seen > INFO_MAX_ENTRIES) return false;
      if (!entry.relative.includes("/")) topLevel.push(entryJson(entry));
      if (entry.type === "file") counts.files += 1;
      else if (entry.type === "folder") counts.folders += 1;
      else if (entry.type === "symlink") counts.symlinks += 1;
      else counts.other += 1;
      counts.bytes += entry.size ?? 0;
      return true;
    }, () => void (tooDeep = true), ctx.signal);
    return { path: WORKSPACE_ROOT, ...counts, topLevel, truncated: !complete || tooDeep };
  });
}

/**
 * The SHA-256 of the first `size` bytes of the file `name` of `folder`, opened never through a
 * link; `undefined` when it cannot be read or is no regular file (removed or swapped meanwhile).
 * Rejects with `signal`'s reason once it aborts (the call ended): a gigabyte takes seconds.
 */
async function sha256Of(folder: OpenFolder, name: string, size: number, signal: AbortSignal | undefined): Promise<string | undefined> {
  const handle = await openIn(folder, name, constants.O_RDONLY).catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    // A named pipe or device swapped in after the walk saw a file is passed over; of a file that
    // changed meanwhile, the bytes up to the size the walk saw (and reports) are hashed.
    if (!(await handle.stat()).isFile()) return undefined;
    const hash = createHash("sha256");
    if (size > 0) {
      for await (const chunk of handle.createReadStream({ autoClose: false, start: 0, end: size - 1 })) {
        signal?.throwIfAborted();
        hash.update(chunk as Buffer);
      }
    }
    return hash.digest("hex");
  } catch {
    if (signal?.aborted) throw signal.reason;
    return undefined;
  } finally {
    await handle.close();
  }
}

/** `workspace_snapshot`: `{ path, files: [{ path, size, sha256 }], truncated }` for every file under `path`. */
export async function workspaceSnapshotTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const limit = optionalInteger(input, "limit", SNAPSHOT_DEFAULT_LIMIT);
  return withInputFolder(ctx, input, "workspace_snapshot", async (folder, resolved) => {
    const files: CoreJson[] = [];
    let truncated = false;
    let hashed = 0;
    await walkWorkspace(folder, resolved.relative, true, async (entry) => {
      if (entry.type !== "file") return true;
      if (files.length === limit) {
        truncated = true;
        return false;
      }
      const size = entry.size ?? 0;
      // Past the snapshot's budget (a sparse file costs nothing on disk), a file is listed, not hashed.
      const over = hashed + size > SNAPSHOT_HASH_MAX_BYTES;
      if (!over) hashed += size;
      const sha256 = over ? null : await sha256Of(entry.folder, entry.name, size, ctx.signal);
      if (sha256 !== undefined) files.push({ path: toWorkspacePath(entry.relative), size, sha256 });
      return true;
    }, () => void (truncated = true), ctx.signal);
    return { path: resolved.workspacePath, files, truncated };
  });
}

/** The `list` core tool. */
export const listCoreTool: CoreTool = { ...pickSpec("list"), execute: listTool };
/** The deferred `workspace_info` core tool. */
export const workspaceInfoCoreTool: CoreTool = { ...pickSpec("workspace_info"), execute: workspaceInfoTool };
/** The deferred `workspace_snapshot` core tool. */
export const workspaceSnapshotCoreTool: CoreTool = { ...pickSpec("workspace_snapshot"), execute: workspaceSnapshotTool };
