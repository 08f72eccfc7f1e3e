/**
 * `grep`: search the workspace's text files for a regular expression (always-visible core set).
 *
 * Core tools run in the host process, and a model-written regular expression can backtrack
 * for minutes (`(a+)+$`). So the walk and the matching run in a worker thread that is
 * terminated after `GREP_TIMEOUT_MS`; the host's event loop never runs the pattern.
 *
 * Rules: files are visited depth-first with siblings in code-unit order; symlinks are not
 * followed; `.git` and `node_modules` folders are skipped unless the search starts inside one;
 * files over `GREP_MAX_FILE_BYTES` and files with a NUL byte in their first 8000 bytes
 * (binary) are skipped and counted. Lines are split on `\n` (a trailing `\r` is dropped) and
 * cut to 500 characters in the output.
 */
import { stat } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { ToolCallError } from "../failures.js";
import { globToRegExpSource } from "./glob.js";
import { optionalInteger, optionalString, pickSpec, requiredString } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";
import { describeFsError, resolveWorkspacePath, WORKSPACE_ROOT } from "./workspace-paths.js";

/** Matches `grep` returns when no `limit` is given. */
export const GREP_DEFAULT_LIMIT = 200;
/** Files larger than this are skipped (2 MiB). */
export const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Wall-clock budget of one search before the worker is terminated. */
export const GREP_TIMEOUT_MS = 15_000;

/** What the worker needs; plain data. */
interface GrepJob {
  readonly start: string;
  readonly startRelative: string;
  readonly startIsFile: boolean;
  readonly pattern: string;
  readonly flags: string;
  readonly include: string | null;
  readonly includeByName: boolean;
  readonly limit: number;
  readonly maxFileBytes: number;
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
function searchFile(abs, rel, relFromStart) {
  if (include && !include.test(job.includeByName ? rel.slice(rel.lastIndexOf("/") + 1) : relFromStart)) return true;
  let stats; try { stats = fs.statSync(abs); } catch { return true; }
  if (stats.size > job.maxFileBytes) { out.skippedLarge++; return true; }
  let bytes; try { bytes = fs.readFileSync(abs); } catch { return true; }
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
function walk(abs, rel, relFromStart) {
  let entries; try { entries = fs.readdirSync(abs, { withFileTypes: true }); } catch { return true; }
  entries.sort((a, b) => cmp(a.name, b.name));
  for (const entry of entries) {
    const childRel = rel === "" ? entry.name : rel + "/" + entry.name;
    const childFromStart = relFromStart === "" ? entry.name : relFromStart + "/" + entry.name;
    const childAbs = path.join(abs, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === ".git" || entry.name === "node_modules") continue;
      if (!walk(childAbs, childRel, childFromStart)) return false;
    } else if (entry.isFile()) {
      if (!searchFile(childAbs, childRel, childFromStart)) return false;
    }
  }
  return true;
}
if (job.startIsFile) searchFile(job.start, job.startRelative, job.startRelative.slice(job.startRelative.lastIndexOf("/") + 1));
else walk(job.start, job.startRelative, "");
parentPort.postMessage(out);
`;

interface GrepOutcome {
  readonly matches: readonly { readonly path: string; readonly line: number; readonly text: string }[];
  readonly filesSearched: number;
  readonly skippedLarge: number;
  readonly skippedBinary: number;
  readonly truncated: boolean;
}

function runGrepWorker(job: GrepJob, timeoutMs: number): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: job });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new ToolCallError("execution_error", `grep stopped after ${timeoutMs / 1000} s; simplify the pattern (avoid nested quantifiers such as (a+)+) or narrow path/include.`));
    }, timeoutMs);
    worker.once("message", (outcome: GrepOutcome) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(outcome);
    });
    worker.once("error", (error) => {
      clearTimeout(timer);
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
  const stats = await stat(start.hostPath).catch((error: unknown) => {
    throw describeFsError(error, start.workspacePath);
  });
  const job: GrepJob = {
    start: start.hostPath,
    startRelative: start.relative,
    startIsFile: stats.isFile(),
    pattern,
    flags,
    include: includeGlob === undefined ? null : globToRegExpSource(includeGlob),
    includeByName: includeGlob !== undefined && !includeGlob.includes("/"),
    limit: optionalInteger(input, "limit", GREP_DEFAULT_LIMIT),
    maxFileBytes: GREP_MAX_FILE_BYTES,
  };
  const outcome = await runGrepWorker(job, timeoutMs);
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
