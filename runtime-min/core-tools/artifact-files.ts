/**
 * Rules shared by `handoff_artifact` and `deliver_artifact` for a `/workspace/...` source file
 * (seed "Execution Model": "Both tools enforce the configured byte limit, private
 * content-addressed blob storage, and internal-path exclusions such as __pycache__, .pyc,
 * node_modules, and .git").
 */
import { constants } from "node:fs";
import { ToolCallError } from "../failures.js";
import { DEFAULT_ARTIFACT_BYTE_LIMIT, type CoreToolContext } from "./types.js";
import { openFileIn } from "../execution/beneath.js";
import { describeFsError, resolveWorkspacePath, withParentOf, WORKSPACE_ROOT, type ResolvedWorkspacePath } from "./workspace-paths.js";

/** Path segments that are never handed off or delivered, wherever they appear. */
export const EXCLUDED_SEGMENTS: readonly string[] = Object.freeze(["__pycache__", "node_modules", ".git"]);
/** File-name suffixes that are never handed off or delivered. */
export const EXCLUDED_SUFFIXES: readonly string[] = Object.freeze([".pyc"]);

/**
 * Returns the internal-path rule `relative` (a workspace-relative POSIX path) breaks, e.g.
 * `"node_modules"` or `"*.pyc"`, or `undefined` when it breaks none. Letter case is ignored
 * (issue 12 item 9): on a case-insensitive file system `.GIT` is `.git`.
 */
export function findExcludedPart(relative: string): string | undefined {
  for (const segment of relative.split("/")) {
    const folded = segment.toLowerCase();
    if (EXCLUDED_SEGMENTS.includes(folded)) return folded;
    for (const suffix of EXCLUDED_SUFFIXES) if (folded.endsWith(suffix)) return `*${suffix}`;
  }
  return undefined;
}

/**
 * The effective byte limit of `ctx` (default 25 MiB).
 * @throws ToolCallError `configuration_error` when the host configured a non-positive or non-integer limit.
 */
export function artifactByteLimit(ctx: CoreToolContext): number {
  const limit = ctx.artifactByteLimit ?? DEFAULT_ARTIFACT_BYTE_LIMIT;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new ToolCallError("configuration_error", `The host's artifactByteLimit must be a positive integer number of bytes, got ${String(limit)}.`);
  }
  return limit;
}

/** Human-readable size: `1536` → `"1.5 KiB"`. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}

/** A workspace file read for transfer, with its exact bytes. */
export interface ArtifactSource {
  readonly resolved: ResolvedWorkspacePath;
  readonly bytes: Buffer;
}

async function readBounded(resolved: ResolvedWorkspacePath, limit: number, tool: string): Promise<Buffer> {
  const { workspacePath } = resolved;
  // Never through a link, also one swapped in after the path was checked, and a regular file only (`workspace-paths.ts`).
  const opened = await withParentOf(resolved, false, (folder, name) => openFileIn(folder, name, constants.O_RDONLY)).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR" || code === "EFTYPE") throw new ToolCallError("invalid_input", `${workspacePath} is not a regular file; ${tool} takes one exact file.`);
    throw error;
  });
  const { handle, stats } = opened;
  try {
    // A hard link is another name of a file that may lie anywhere (an excluded path included).
    if (stats.nlink > 1) {
      throw new ToolCallError("invalid_input", `${workspacePath} has ${stats.nlink} hard links, so it is also reachable under another name (possibly an internal path such as .git); ${tool} takes a file with one name only. Copy it (cp) and pass the copy.`);
    }
    if (stats.size > limit) {
      throw new ToolCallError(
        "invalid_input",
        `${workspacePath} is ${formatBytes(stats.size)} (${stats.size} bytes), over the ${formatBytes(limit)} limit of ${tool}; hand over a smaller file (for example, split or compress it).`,
      );
    }
    // Read one byte more than stat reported, to notice a file that grows while it is read.
    const buffer = Buffer.alloc(stats.size + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled !== stats.size) {
      throw new ToolCallError("execution_error", `${workspacePath} changed while it was being read; call ${tool} again once the file is complete.`);
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/**
 * Resolves an exact `/workspace/...` file for `tool`, applies the exclusions and the byte
 * limit, and reads its exact bytes.
 * @throws ToolCallError `invalid_input` for a non-workspace or refused path, an excluded
 *   internal path, a folder, a missing file, or a file over the limit.
 */
export async function readArtifactSource(ctx: CoreToolContext, input: string, tool: string): Promise<ArtifactSource> {
  if (!input.startsWith(`${WORKSPACE_ROOT}/`)) {
    throw new ToolCallError("invalid_input", `${tool} takes an exact /workspace/... file path, got "${input}".`);
  }
  const resolved = await resolveWorkspacePath(ctx.workspaceDir, input);
  const excluded = findExcludedPart(resolved.relative) ?? findExcludedPart(resolved.hostRelative);
  if (excluded !== undefined) {
    throw new ToolCallError(
      "invalid_input",
      `${resolved.workspacePath} is under ${excluded}, an internal path (__pycache__, *.pyc, node_modules, .git) that is never handed off or delivered; pass the file you produced instead.`,
    );
  }
  const limit = artifactByteLimit(ctx);
  try {
    return { resolved, bytes: await readBounded(resolved, limit, tool) };
  } catch (error) {
    throw describeFsError(error, resolved.workspacePath);
  }
}
