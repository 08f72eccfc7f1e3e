/**
 * `grep`: search the workspace's text files for a regular expression (always-visible core set).
 *
 * Core tools run in the host process, and a model-written regular expression can backtrack
 * for minutes (`(a+)+$`). So the walk and the matching run in a worker thread that is
 * terminated after `GREP_TIMEOUT_MS`; the host's event loop never runs the pattern.
 *
 * Rules: files are visited depth-first with siblings in code-unit order; symlinks are not
 * followed, also not one a tool's shell command swaps in while the search runs (the worker
 * opens each folder and file `O_NOFOLLOW | O_NONBLOCK` through the folder's descriptor, as
 * `../execution/beneath.ts` does, so a named pipe never blocks it, and reads no more of a file
 * than the size it checked; folders deeper than `GREP_MAX_DEPTH` below the start are not
 * searched); `.git` and `node_modules` folders are skipped unless the search starts inside one;
 * files over `GREP_MAX_FILE_BYTES` and files with a NUL byte in their first 8000 bytes
 * (binary) are skipped and counted. Lines are split on `\n` (a trailing `\r` is dropped) and
 * cut to 500 characters in the output.
 */
import { Worker } from "node:worker_threads";
import { FOLDERS_BY_DESCRIPTOR, MAX_FOLDER_DEPTH, type OpenFolder } from "../execution/beneath.js";
import { RUNTIME_ENTRY } from "../execution/workspace-entries.js";
import { ToolCallError } from "../failures.js";
import { globToRegExpSource } from "./glob.js";
import { optionalInteger, optionalString, pickSpec, requiredString } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";
import { describeFsError, resolveWorkspacePath, withFolderOf, withParentOf, WORKSPACE_ROOT } from "./workspace-paths.js";

/** Matches `grep` returns when no `limit` is given. */
export const GREP_DEFAULT_LIMIT = 200;
/** Files larger than this are skipped (2 MiB). */
export const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Wall-clock budget of one search before the worker is terminated. */
export const GREP_TIMEOUT_MS = 15_000;
/** Folder levels below the start that are searched (each holds a descriptor while it is): the walks' own limit. */
export const GREP_MAX_DEPTH = MAX_FOLDER_DEPTH;

/** What the worker needs; plain data. */
interface GrepJob {
  /** The open folder the search starts in (or that holds the file it searches). */
  readonly startFolder: OpenFolder;
  /** Whether entries are opened through `/proc/self/fd/<fd>/` (`FOLDERS_BY_DESCRIPTOR`). */
  readonly byDescriptor: boolean;
  /** The file to search in `startFolder`, or `null` to walk it. */
  readonly startFile: string | null;
  /** Folder levels below the start that are searched (`GREP_MAX_DEPTH`). */
  readonly maxDepth: number;
  readonly startRelative: string;
  readonly pattern: string;
  readonly flags: string;
  readonly include: string | null;
  readonly includeByName: boolean;
  readonly limit: number;
  readonly maxFileBytes: number;
  /** The runtime's own entries, left out of the walk: `RUNTIME_ENTRY`'s source (`../execution/workspace-entries.ts`). */
  readonly runtimeEntry: string;
}

/**
 * Worker body (CommonJS, self-contained: eval'd workers cannot import our modules). ASCII only
 * (`\u` escapes in its strings): a raw template keeps its characters as written, and the CLI
 * bundle must be all ASCII (scripts/build-cli-bundle.mjs).
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData: job } = require("node:worker_threads");
const fs = require("node:fs");
const path = require("node:path");
const re = new RegExp(job.pattern, job.flags);
const include = job.include === null ? null : new RegExp(job.include);
const out = { matches: [], filesSearched: 0, skippedLarge: 0, skippedBinary: 0, truncated: false };
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
const entryOf = (dir, name) => (job.byDescriptor ? "/proc/self/fd/" + dir.fd + "/" + name : path.join(dir.path, name));
const dirName = (dir) => (job.byDescriptor ? "/proc/self/fd/" + dir.fd : dir.path);
const openAt = (dir, name, flags) => fs.openSync(entryOf(dir, name), flags | O_NOFOLLOW | O_NONBLOCK);
const close = (fd) => { try { fs.closeSync(fd); } catch {} };
function searchFile(dir, name, rel, relFromStart) {
  if (include && !include.test(job.includeByName ? rel.slice(rel.lastIndexOf("/") + 1) : relFromStart)) return true;
  let bytes;
  try {
    const fd = openAt(dir, name, O_RDONLY);
    try {
      const stats = fs.fstatSync(fd);
      if (!stats.isFile()) return true;
      if (stats.size > job.maxFileBytes) { out.skippedLarge++; return true; }
      // Never more than the size checked (a file may grow meanwhile).
      bytes = Buffer.alloc(stats.size);
      let filled = 0;
      while (filled < bytes.length) { const got = fs.readSync(fd, bytes, filled, bytes.length - filled, filled); if (got === 0) break; filled += got; }
      bytes = bytes.subarray(0, filled);
    } finally { close(fd); }
  } catch { return true; }
  if (bytes.subarray(0, 8000).includes(0)) { out.skippedBinary++; return true; }
  out.filesSearched++;
  const lines = bytes.toString("utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.endsWith("\r")) line = line.slice(0, -1);
    re.lastIndex = 0;
    if (!re.test(line)) continue;
    if (out.matches.length === job.limit) { out.truncated = true; return false; }
    out.matches.push({ path: rel, line: i + 1, text: line.length > 500 ? line.slice(0, 500) + "\u2026" : line });
  }
  return true;
}
const runtimeEntry = new RegExp(job.runtimeEntry);
function walk(dir, rel, relFromStart, depth) {
  let entries; try { entries = fs.readdirSync(dirName(dir), { withFileTypes: true }); } catch { return true; }
  entries.sort((a, b) => cmp(a.name, b.name));
  for (const entry of entries) {
    const childRel = rel === "" ? entry.name : rel + "/" + entry.name;
    if (runtimeEntry.test(childRel)) continue;
    const childFromStart = relFromStart === "" ? entry.name : relFromStart + "/" + entry.name;
    if (entry.isDirectory()) {
      if (entry.name === ".git" || entry.name === "node_modules" || depth >= job.maxDepth) continue;
      let fd;
      try { fd = openAt(dir, entry.name, O_RDONLY | O_DIRECTORY); } catch { continue; }
      try {
        if (!walk({ fd, path: path.join(dir.path, entry.name) }, childRel, childFromStart, depth + 1)) return false;
      } finally { close(fd); }
    } else if (entry.isFile()) {
      if (!searchFile(dir, entry.name, childRel, childFromStart)) return false;
    }
  }
  return true;
}
if (job.startFile !== null) searchFile(job.startFolder, job.startFile, job.startRelative, job.startRelative.slice(job.startRelative.lastIndexOf("/") + 1));
else walk(job.startFolder, job.startRelative, "", 0);
parentPort.postMessage(out);
`;

interface GrepOutcome {
  readonly matches: readonly { readonly path: string; readonly line: number; readonly text: string }[];
  readonly filesSearched: number;
  readonly skippedLarge: number;
  readonly skippedBinary: number;
  readonly truncated: boolean;
}

/**
 * Runs `job` on a worker thread; rejects after `timeoutMs` (a pattern that backtracks
 * catastrophically) or once `signal` aborts (the call ended), terminating the worker either way.
 */
function runGrepWorker(job: GrepJob, timeoutMs: number, signal: AbortSignal | undefined): Promise<GrepOutcome> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    // `trackUnmanagedFds` (Node's default): what the worker opened is closed when it is terminated.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: job, trackUnmanagedFds: true });
    const settle = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      void worker.terminate();
    };
    const timer = setTimeout(() => {
      settle();
      reject(new ToolCallError("execution_error", `grep stopped after ${timeoutMs / 1000} s; simplify the pattern (avoid nested quantifiers such as (a+)+) or narrow path/include.`));
    }, timeoutMs);
    const onAbort = (): void => {
      settle();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (outcome: GrepOutcome) => {
      settle();
      resolve(outcome);
    });
    worker.once("error", (error) => {
      settle();
      reject(error);
    });
  });
}

function compilePattern(input: CoreJson): { pattern: string; flags: string } {
  const raw = requiredString(input, "pattern");
  const pattern = input.literal === true ? raw.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : raw;
  const flags = input.ignoreCase === true ? "i" : "";
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ToolCallError("invalid_input", `pattern is not a valid regular expression: ${(error as Error).message}. Pass literal: true to search for the text as written.`);
  }
  return { pattern, flags };
}

/**
 * `grep`: `{ matches: [{ path, line, text }], filesSearched, skippedLarge, skippedBinary, truncated }`.
 * @param timeoutMs test seam; defaults to `GREP_TIMEOUT_MS`.
 */
export async function grepTool(input: CoreJson, ctx: CoreToolContext, timeoutMs = GREP_TIMEOUT_MS): Promise<CoreJson> {
  const { pattern, flags } = compilePattern(input);
  const includeGlob = optionalString(input, "include");
  const start = await resolveWorkspacePath(ctx.workspaceDir, optionalString(input, "path") ?? WORKSPACE_ROOT);
  const job = (startFolder: OpenFolder, startFile: string | null): GrepJob => ({
    startFolder,
    byDescriptor: FOLDERS_BY_DESCRIPTOR,
    startFile,
    maxDepth: GREP_MAX_DEPTH,
    startRelative: start.relative,
    pattern,
    flags,
    include: includeGlob === undefined ? null : globToRegExpSource(includeGlob),
    includeByName: includeGlob !== undefined && !includeGlob.includes("/"),
    limit: optionalInteger(input, "limit", GREP_DEFAULT_LIMIT),
    maxFileBytes: GREP_MAX_FILE_BYTES,
    runtimeEntry: RUNTIME_ENTRY.source,
  });
  // The start is a folder, opened never through a link, or else a file searched in its folder.
  const outcome = await withFolderOf(start, (folder) => runGrepWorker(job(folder, null), timeoutMs, ctx.signal)).catch(async (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "ENOTDIR" || !start.exists || start.hostRelative === "") throw describeFsError(error, start.workspacePath);
    return withParentOf(start, false, (folder, name) => runGrepWorker(job(folder, name), timeoutMs, ctx.signal)).catch((inner: unknown) => {
      throw describeFsError(inner, start.workspacePath);
    });
  });
  return {
    matches: outcome.matches.map((match) => ({ ...match, path: `${WORKSPACE_ROOT}/${match.path}` })),
    filesSearched: outcome.filesSearched,
    skippedLarge: outcome.skippedLarge,
    skippedBinary: outcome.skippedBinary,
    truncated: outcome.truncated,
  };
}

/** The `grep` core tool. */
export const grepCoreTool: CoreTool = { ...pickSpec("grep"), execute: (input, ctx) => grepTool(input, ctx) };
