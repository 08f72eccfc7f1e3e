/**
 * `list` (always visible) and the deferred workspace tools `workspace_info` and
 * `workspace_snapshot` (this runtime's "workspace tools", see `../snapshot/core-catalog.ts`).
 * All three walk with `walkWorkspace`: deterministic order, symlinks listed but not followed.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { ToolCallError } from "../failures.js";
import { optionalInteger, optionalString, pickSpec } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";
import { walkWorkspace, type WalkEntry } from "./workspace-walk.js";
import { describeFsError, resolveWorkspacePath, toWorkspacePath, WORKSPACE_ROOT, type ResolvedWorkspacePath } from "./workspace-paths.js";

/** Entries `list` returns when no `limit` is given. */
export const LIST_DEFAULT_LIMIT = 500;
/** Files `workspace_snapshot` returns when no `limit` is given. */
export const SNAPSHOT_DEFAULT_LIMIT = 2000;
/** Entries `workspace_info` counts before it reports `truncated`. */
export const INFO_MAX_ENTRIES = 200_000;

function entryJson(entry: WalkEntry): CoreJson {
  const base = { path: toWorkspacePath(entry.relative), type: entry.type };
  return entry.size === undefined ? base : { ...base, size: entry.size };
}

async function resolveFolder(ctx: CoreToolContext, input: CoreJson, tool: string): Promise<ResolvedWorkspacePath> {
  const resolved = await resolveWorkspacePath(ctx.workspaceDir, optionalString(input, "path") ?? WORKSPACE_ROOT);
  const stats = await stat(resolved.hostPath).catch((error: unknown) => {
    throw describeFsError(error, resolved.workspacePath);
  });
  if (!stats.isDirectory()) throw new ToolCallError("invalid_input", `${resolved.workspacePath} is a file; ${tool} takes a folder (use read for files).`);
  return resolved;
}

/** `list`: `{ path, entries: [{ path, type, size? }], truncated }`, depth-first, siblings sorted. */
export async function listTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const folder = await resolveFolder(ctx, input, "list");
  const limit = optionalInteger(input, "limit", LIST_DEFAULT_LIMIT);
  const entries: CoreJson[] = [];
  let truncated = false;
  await walkWorkspace(folder.hostPath, folder.relative, input.recursive === true, (entry) => {
    if (entries.length === limit) {
      truncated = true;
      return false;
    }
    entries.push(entryJson(entry));
    return true;
  });
  return { path: folder.workspacePath, entries, truncated };
}

/** `workspace_info`: counts and bytes of the whole workspace plus its top-level entries. */
export async function workspaceInfoTool(_input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const root = await resolveFolder(ctx, {}, "workspace_info");
  const counts = { files: 0, folders: 0, symlinks: 0, other: 0, bytes: 0 };
  const topLevel: CoreJson[] = [];
  let seen = 0;
  const complete = await walkWorkspace(root.hostPath, "", true, (entry) => {
    seen += 1;
    if (seen > INFO_MAX_ENTRIES) return false;
    if (!entry.relative.includes("/")) topLevel.push(entryJson(entry));
    if (entry.type === "file") counts.files += 1;
    else if (entry.type === "folder") counts.folders += 1;
    else if (entry.type === "symlink") counts.symlinks += 1;
    else counts.other += 1;
    counts.bytes += entry.size ?? 0;
    return true;
  });
  return { path: WORKSPACE_ROOT, ...counts, topLevel, truncated: !complete };
}

function sha256OfFile(hostPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(hostPath)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/** `workspace_snapshot`: `{ path, files: [{ path, size, sha256 }], truncated }` for every file under `path`. */
export async function workspaceSnapshotTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const folder = await resolveFolder(ctx, input, "workspace_snapshot");
  const limit = optionalInteger(input, "limit", SNAPSHOT_DEFAULT_LIMIT);
  const files: CoreJson[] = [];
  let truncated = false;
  await walkWorkspace(folder.hostPath, folder.relative, true, async (entry) => {
    if (entry.type !== "file") return true;
    if (files.length === limit) {
      truncated = true;
      return false;
    }
    const sha256 = await sha256OfFile(entry.hostPath).catch(() => undefined);
    if (sha256 !== undefined) files.push({ path: toWorkspacePath(entry.relative), size: entry.size ?? 0, sha256 });
    return true;
  });
  return { path: folder.workspacePath, files, truncated };
}

/** The `list` core tool. */
export const listCoreTool: CoreTool = { ...pickSpec("list"), execute: listTool };
/** The deferred `workspace_info` core tool. */
export const workspaceInfoCoreTool: CoreTool = { ...pickSpec("workspace_info"), execute: workspaceInfoTool };
/** The deferred `workspace_snapshot` core tool. */
export const workspaceSnapshotCoreTool: CoreTool = { ...pickSpec("workspace_snapshot"), execute: workspaceSnapshotTool };
