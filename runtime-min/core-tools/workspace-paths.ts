/**
 * Maps model-supplied paths onto the run's workspace directory, never escaping it
 * (seed "Execution Model": core tools work on `/workspace/...`).
 *
 * Accepted forms: `/workspace`, `/workspace/a/b`, and relative `a/b` or `./a/b` (relative to
 * `/workspace`). Refused with `invalid_input` naming the path:
 * - absolute paths outside `/workspace` (`/etc/passwd`, `/workspace2/x`);
 * - `..` segments that climb above the workspace root (`../x`, `a/../../x`); `a/../b` is fine;
 * - backslashes and NUL bytes;
 * - paths whose existing part resolves, through symlinks, outside the workspace (checked with
 *   `realpath` on the deepest existing ancestor), and dangling symlinks.
 *
 * The check follows links that stay inside the workspace; the tools then open the real path it
 * found one folder at a time, never through a link ({@link withFolderOf}, `../execution/beneath.ts`),
 * so a link a tool's shell command swaps in after the check is refused, not followed (host-file
 * review of 5 December, H1–H3: `read`, `write`, `delete` and `grep` could be led out of the workspace so).
 */
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { ToolCallError } from "../failures.js";
import { isPathInside as isInside } from "../../common/path-inside.js";
import { MAX_FOLDER_DEPTH, withFolderBeneath, type OpenFolder } from "../execution/beneath.js";

/** The model-facing workspace root. */
export const WORKSPACE_ROOT = "/workspace";

/** A workspace path after mapping and the symlink check. */
export interface ResolvedWorkspacePath {
  /** Model-facing form: `/workspace` or `/workspace/a/b`. */
  readonly workspacePath: string;
  /** POSIX path relative to the workspace root; `""` for the root itself. */
  readonly relative: string;
  /** Absolute host path with symlinks of the existing part resolved: what to open. */
  readonly hostPath: string;
  /** `hostPath` relative to the real workspace root, POSIX (differs from `relative` after a symlink). */
  readonly hostRelative: string;
  /** Whether something exists at `hostPath`. */
  readonly exists: boolean;
  /** The real path of the workspace root, which `hostRelative` is relative to. */
  readonly root: string;
}

function refuse(input: string, why: string): ToolCallError {
  return new ToolCallError("invalid_input", `Path "${input}" is refused: ${why}.`);
}

/**
 * Checks the syntax of `input` and returns its workspace-relative POSIX form (`""` = root).
 * @throws ToolCallError `invalid_input` for the refused forms listed in the module comment.
 */
export function toWorkspaceRelative(input: string): string {
  if (input === "") throw refuse(input, "it is empty; use /workspace/<file>");
  if (input.includes("\0")) throw refuse(input, "it contains a NUL byte");
  if (input.includes("\\")) throw refuse(input, "it contains a backslash; use / as the separator");
  let rest = input;
  if (input.startsWith("/")) {
    if (input !== WORKSPACE_ROOT && !input.startsWith(`${WORKSPACE_ROOT}/`)) {
      throw refuse(input, "absolute paths must be inside /workspace");
    }
    rest = input.slice(WORKSPACE_ROOT.length);
  }
  // Normalise as a relative path: posix.normalize("/../x") would silently clamp to "/x".
  const normal = path.posix.normalize(rest.replace(/^\/+/, "") || ".");
  if (normal === ".." || normal.startsWith("../")) throw refuse(input, "it climbs out of /workspace with ..");
  return normal === "." ? "" : normal.replace(/\/+$/, "");
}

/** The model-facing form of a workspace-relative path. */
export function toWorkspacePath(relative: string): string {
  return relative === "" ? WORKSPACE_ROOT : `${WORKSPACE_ROOT}/${relative}`;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

/** Real path of the deepest existing ancestor of `candidate`, plus the missing tail. */
async function realpathOfExisting(candidate: string, input: string): Promise<{ real: string; tail: string[] }> {
  const tail: string[] = [];
  let current = candidate;
  for (;;) {
    try {
      return { real: await realpath(current), tail };
    } catch (error) {
      const code = errorCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const stats = await lstat(current).catch(() => undefined);
      if (stats?.isSymbolicLink()) throw refuse(input, "it goes through a symlink whose target does not exist");
      const parent = path.dirname(current);
      if (parent === current) throw error;
      tail.unshift(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Maps `input` onto `workspaceDir` and checks that it stays inside after symlinks.
 *
 * @param workspaceDir absolute host path of the run's workspace (must exist).
 * @throws ToolCallError `invalid_input` naming `input` when it is refused.
 */
export async function resolveWorkspacePath(workspaceDir: string, input: string): Promise<ResolvedWorkspacePath> {
  const relative = toWorkspaceRelative(input);
  const root = await realpath(workspaceDir);
  const { real, tail } = await realpathOfExisting(path.join(root, ...relative.split("/").filter(Boolean)), input);
  if (!isInside(root, real)) throw refuse(input, "it resolves through a symlink to a location outside /workspace");
  const hostPath = tail.length === 0 ? real : path.join(real, ...tail);
  return {
    workspacePath: toWorkspacePath(relative),
    relative,
    hostPath,
    hostRelative: path.relative(root, hostPath).split(path.sep).join("/"),
    exists: tail.length === 0,
    root,
  };
}

function partsOf(hostRelative: string): string[] {
  return hostRelative.split("/").filter((part) => part !== "");
}

/**
 * Runs `use` with the folder `resolved` names (its real path, opened beneath the workspace
 * root, never through a link) and closes it afterwards.
 * @throws the file system's error (`ELOOP` when a link was swapped in after the check; see
 *   {@link describeFsError}).
 */
export function withFolderOf<T>(resolved: ResolvedWorkspacePath, use: (folder: OpenFolder) => Promise<T>): Promise<T> {
  return withFolderBeneath(resolved.root, partsOf(resolved.hostRelative), false, use);
}

/**
 * Runs `use` with the folder that holds `resolved` (made when `create` and missing) and the
 * entry's name in it, never through a link. `resolved` must not be the workspace root.
 */
export function withParentOf<T>(resolved: ResolvedWorkspacePath, create: boolean, use: (folder: OpenFolder, name: string) => Promise<T>): Promise<T> {
  const parts = partsOf(resolved.hostRelative);
  const name = parts.pop();
  if (name === undefined) return Promise.reject(new ToolCallError("invalid_input", `${resolved.workspacePath} is the workspace folder itself, not an entry in it.`));
  return withFolderBeneath(resolved.root, parts, create, (folder) => use(folder, name));
}

/**
 * Turns a file-system error of an operation on `workspacePath` into a tool-call failure the
 * model can act on (`invalid_input` for a missing file, a folder where a file was expected,
 * …); other errors are returned unchanged (they become `execution_error`).
 */
export function describeFsError(error: unknown, workspacePath: string): unknown {
  const reasons: { readonly [code: string]: string } = {
    ENOENT: "no such file or folder",
    ENOTDIR: "a part of the path is a file, not a folder",
    EISDIR: "it is a folder, not a file",
    ENOTEMPTY: "the folder is not empty (pass recursive: true)",
    EEXIST: "something already exists there",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    ELOOP: "a part of the path changed to a symbolic link while it was used (links are followed only when the path is checked); try again",
    EFTYPE: "it is not a regular file (a named pipe, socket or device)",
    // ENXIO: a named pipe without a reader, but also a socket or a device without a driver
    // (the whiteout device 0:0, which an isolated shell can make; helper-65's review, E1).
    ENXIO: "it is not a regular file (a named pipe with no reader, a socket or a device)",
    ETOODEEP: `its folders nest more than ${MAX_FOLDER_DEPTH} levels deep; remove the deepest ones with bash first`,
  };
  const code = errorCode(error);
  const reason = code !== undefined && Object.prototype.hasOwnProperty.call(reasons, code) ? reasons[code] : undefined;
  return reason ? new ToolCallError("invalid_input", `${workspacePath}: ${reason}.`, { cause: error }) : error;
}
