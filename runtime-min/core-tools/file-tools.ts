/**
 * The file core tools `read`, `write`, `edit` and `delete` over the run's workspace (seed
 * "Execution Model": the always-visible core set). Paths are mapped and checked by
 * `workspace-paths.ts`, and opened there never through a link; `read` also opens exact
 * `/files/handoffs/...` paths the caller's surface may read (`handoffs.ts`).
 */
import { constants } from "node:fs";
import path from "node:path";
import { openFileIn, readFileIn, removeIn } from "../execution/beneath.js";
import { ToolCallError } from "../failures.js";
import { formatBytes } from "./artifact-files.js";
import { HANDOFFS_ROOT, readHandoff } from "./handoffs.js";
import { optionalInteger, optionalString, pickSpec, requiredString } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";
import { describeFsError, resolveWorkspacePath, toWorkspacePath, toWorkspaceRelative, withFolderOf, withParentOf, type ResolvedWorkspacePath } from "./workspace-paths.js";

/** Largest file `read` returns (5 MiB); larger files are for `bash` (`head`, `sed -n`). */
export const READ_MAX_BYTES = 5 * 1024 * 1024;
/** Lines `read` returns when no `limit` is given. */
export const READ_DEFAULT_LINES = 2000;

function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

async function readWorkspaceBytes(ctx: CoreToolContext, input: string): Promise<{ path: string; bytes: Buffer }> {
  if (input.startsWith(`${HANDOFFS_ROOT}/`)) {
    const { receipt, bytes } = await readHandoff(ctx, input);
    return { path: receipt.path, bytes };
  }
  const resolved = await resolveWorkspacePath(ctx.workspaceDir, input);
  const isFolder = () => new ToolCallError("invalid_input", `${resolved.workspacePath} is a folder; use list to see its entries.`);
  if (resolved.hostRelative === "") throw isFolder();
  const tooLarge = (size: number) =>
    new ToolCallError("invalid_input", `${resolved.workspacePath} is ${formatBytes(size)}, over read's ${formatBytes(READ_MAX_BYTES)} limit; use bash (head, sed -n, grep) to read parts of it.`);
  try {
    return { path: resolved.workspacePath, bytes: await withParentOf(resolved, false, (folder, name) => readFileIn(folder, name, READ_MAX_BYTES, tooLarge)) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EISDIR") throw isFolder();
    throw describeFsError(error, resolved.workspacePath);
  }
}

/** Replaces the contents of the regular file `resolved` names (made when missing), never through a link. */
async function writeResolved(resolved: ResolvedWorkspacePath, bytes: Uint8Array | string): Promise<void> {
  // Only regular files are written: a named pipe without a reader fails with ENXIO, one with a reader with EFTYPE.
  const { handle } = await withParentOf(resolved, true, (folder, name) => openFileIn(folder, name, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o666));
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

/**
 * `read`: returns `{ path, size, content, startLine, endLine, totalLines, truncated }` for
 * UTF-8 text (lines `offset`…`offset+limit-1`), or `{ path, size, encoding: "base64", content }`.
 */
export async function readTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const { path: shown, bytes } = await readWorkspaceBytes(ctx, requiredString(input, "path"));
  if (optionalString(input, "encoding") === "base64") return { path: shown, size: bytes.byteLength, encoding: "base64", content: bytes.toString("base64") };
  if (looksBinary(bytes)) throw new ToolCallError("invalid_input", `${shown} looks like a binary file; read it with encoding "base64".`);
  const lines = bytes.toString("utf8").split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const offset = optionalInteger(input, "offset", 1);
  const limit = optionalInteger(input, "limit", READ_DEFAULT_LINES);
  if (offset > Math.max(1, lines.length)) {
    throw new ToolCallError("invalid_input", `${shown} has ${lines.length} lines; offset ${offset} is past the end.`);
  }
  const page = lines.slice(offset - 1, offset - 1 + limit);
  const endLine = offset - 1 + page.length;
  return { path: shown, size: bytes.byteLength, content: page.join("\n"), startLine: offset, endLine, totalLines: lines.length, truncated: endLine < lines.length };
}

function decodeContent(input: CoreJson, shown: string): Buffer {
  const content = requiredString(input, "content");
  if (optionalString(input, "encoding") !== "base64") return Buffer.from(content, "utf8");
  const compact = content.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new ToolCallError("invalid_input", `content for ${shown} is not valid base64.`);
  }
  return Buffer.from(compact, "base64");
}

/** `write`: creates or replaces a file; returns `{ path, size, created }`. */
export async function writeTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const resolved = await resolveWorkspacePath(ctx.workspaceDir, requiredString(input, "path"));
  if (resolved.relative === "") throw new ToolCallError("invalid_input", "write needs a file path inside /workspace, not /workspace itself.");
  const bytes = decodeContent(input, resolved.workspacePath);
  try {
    await writeResolved(resolved, bytes);
  } catch (error) {
    // Opening a folder for writing fails with EISDIR.
    if ((error as NodeJS.ErrnoException).code === "EISDIR") throw new ToolCallError("invalid_input", `${resolved.workspacePath} is a folder; write needs a file path.`);
    throw describeFsError(error, resolved.workspacePath);
  }
  return { path: resolved.workspacePath, size: bytes.byteLength, created: !resolved.exists };
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** `edit`: exact string replacement; returns `{ path, replacements }`. */
export async function editTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const oldString = requiredString(input, "oldString");
  const newString = requiredString(input, "newString");
  const { path: shown, bytes } = await readWorkspaceBytes(ctx, toWorkspacePath(toWorkspaceRelative(requiredString(input, "path"))));
  if (oldString === "") throw new ToolCallError("invalid_input", "oldString must not be empty; use write to create a file.");
  if (oldString === newString) throw new ToolCallError("invalid_input", "oldString and newString are identical; nothing would change.");
  if (looksBinary(bytes)) throw new ToolCallError("invalid_input", `${shown} looks like a binary file; edit works on text files.`);
  const text = bytes.toString("utf8");
  const count = countOccurrences(text, oldString);
  if (count === 0) throw new ToolCallError("invalid_input", `oldString was not found in ${shown}; read the file and copy the exact text, including whitespace.`);
  if (count > 1 && input.replaceAll !== true) {
    throw new ToolCallError("invalid_input", `oldString occurs ${count} times in ${shown}; include more surrounding text to make it unique, or pass replaceAll: true.`);
  }
  // split/join and slicing, not String.replace: "$&" and friends in newString stay literal.
  const updated = count > 1 ? text.split(oldString).join(newString) : text.slice(0, text.indexOf(oldString)) + newString + text.slice(text.indexOf(oldString) + oldString.length);
  const resolved = await resolveWorkspacePath(ctx.workspaceDir, shown);
  await writeResolved(resolved, updated).catch((error: unknown) => {
    throw describeFsError(error, shown);
  });
  return { path: shown, replacements: count };
}

/**
 * `delete`: removes a file, a symlink (the link itself, never its target) or a folder
 * (non-empty only with `recursive: true`); returns `{ path, deleted: "file" | "folder" | "symlink" }`.
 * The folder holding the entry must resolve inside the workspace; the workspace root cannot be deleted.
 */
export async function deleteTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const relative = toWorkspaceRelative(requiredString(input, "path"));
  if (relative === "") throw new ToolCallError("invalid_input", "Refusing to delete /workspace itself; delete the entries inside it.");
  const shown = toWorkspacePath(relative);
  const parent = await resolveWorkspacePath(ctx.workspaceDir, toWorkspacePath(path.posix.dirname(relative) === "." ? "" : path.posix.dirname(relative)));
  const entry = path.posix.basename(relative);
  try {
    return { path: shown, deleted: await withFolderOf(parent, (folder) => removeIn(folder, entry, input.recursive === true)) };
  } catch (error) {
    throw describeFsError(error, shown);
  }
}

/** The `read` core tool. */
export const readCoreTool: CoreTool = { ...pickSpec("read"), execute: readTool };
/** The `write` core tool. */
export const writeCoreTool: CoreTool = { ...pickSpec("write"), execute: writeTool };
/** The `edit` core tool. */
export const editCoreTool: CoreTool = { ...pickSpec("edit"), execute: editTool };
/** The `delete` core tool. */
export const deleteCoreTool: CoreTool = { ...pickSpec("delete"), execute: deleteTool };
