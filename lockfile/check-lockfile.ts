/**
 * `compile --check` for `plugins.lock` (issue 3 items 5 and 6): compare the committed lock with
 * what the writer would write, and explain the difference. Writes nothing.
 */
import * as path from "node:path";
import { diffPackage } from "./diff-package.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../common/property-path.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { fileStart } from "../common/positions.js";
import { createNodeHost, type CompilerHost } from "../common/host.js";
import { diffLocks, type LockChangeGroup } from "./diff-locks.js";
import { fixCommandFor } from "./fix-command.js";
import { leadChange } from "./lead-change.js";
import { locateProperty, parseJsonText } from "./json-text.js";
import { readLockfile } from "./read-lockfile.js";
import { handEditedCapabilities, handEditedNote, type HandEditedCapability } from "./hand-edits.js";
import { bundlesLeftOut, bundlesLeftOutNote, droppedSurfaces, droppedWords, type DroppedSurface } from "./dropped-tools.js";
import type { ContractReview } from "./review-contract.js";

/** Lines of unified diff kept in a report (headers included); the rest is counted, not shown. */
export const MAX_DIFF_LINES = 40;

/** Plain data describing the result of {@link checkLockfile}; render with `formatLockfileCheckReport`. */
export interface LockfileCheckReport {
  /** `not-checked`: the agent's inputs have errors, so there is nothing to compare with (see {@link notCheckedReport}). */
  readonly status: "up-to-date" | "missing" | "unreadable" | "conflict" | "unsupported-version" | "invalid" | "out-of-date" | "not-checked";
  /** The lock's path as it should be shown (`options.displayPath`). */
  readonly lockPath: string;
  /** The command that fixes it; absent when up to date, and for a newer lock (upgrade instead). */
  readonly fixCommand?: string;
  /** Changed property paths by surface and capability (for `invalid`/`out-of-date` locks that parse). */
  readonly groups: readonly LockChangeGroup[];
  /** True when the bytes differ but the parsed values are equal (whitespace, key order, BOM). */
  readonly formattingOnly: boolean;
  /** Short remarks, e.g. that the file starts with a byte order mark. */
  readonly notes: readonly string[];
  /** Unified diff from the committed lock to the expected one, at most {@link MAX_DIFF_LINES} lines. */
  readonly diff: readonly string[];
  /** Diff lines left out of `diff`. */
  readonly diffOmittedLines: number;
  /** The diagnostic to report (absent when up to date); `file` is the absolute lock path. */
  readonly diagnostic?: Diagnostic;
  /**
   * Surfaces whose every tool the committed lock has and what compile would write drops (an
   * `out-of-date` lock only; absent when there are none). Running the fix command accepts
   * that, so the report says so next to it (issue 13 item 4).
   */
  readonly dropsEveryTool?: readonly DroppedSurface[];
  /**
   * Capabilities whose locked tool fields the lock on disk changed by hand (the same integrity,
   * another contract: `lockfile/hand-edits.ts`); each is also one of `notes`. Absent when none.
   * `review`, which compares with Git's `HEAD`, says them too (new-user trial of 6 December).
   */
  readonly handEdited?: readonly HandEditedCapability[];
  /** The model-visible meaning of the change (issue 11 item 3); set by `compile --check` when the inputs have no errors. */
  readonly review?: ContractReview;
}

export type { DroppedSurface } from "./dropped-tools.js";

/** Options of {@link checkLockfile}. */
export interface CheckLockfileOptions {
  readonly host?: CompilerHost;
  /** How to print the lock's path (default: as given). */
  readonly displayPath?: string;
  /** The fix-it command (default: {@link fixCommandFor} of the lock's directory). */
  readonly fixCommand?: string;
}

/**
 * Compares `plugins.lock` with `expectedText` (what `serializeLockfile` gives for the current
 * inputs). Never writes and never throws.
 *
 * Line-ending policy: the committed bytes are decoded as UTF-8 and CRLF is read as LF before
 * comparing, because Git may check the lock out with CRLF (`core.autocrlf`); everything else
 * must be byte-identical, so a hand edit of one character, a reordered key, a BOM or changed
 * indentation fails the check. `ok` is true only for status `up-to-date`.
 *
 * @param lockPath absolute path of `plugins.lock`.
 */
export function checkLockfile(lockPath: string, expectedText: string, options: CheckLockfileOptions = {}): { ok: boolean; report: LockfileCheckReport } {
  const host = options.host ?? createNodeHost();
  const fixCommand = options.fixCommand ?? fixCommandFor(path.dirname(lockPath));
  const base = { lockPath: options.displayPath ?? lockPath, groups: [], formattingOnly: false, notes: [], diff: [], diffOmittedLines: 0 };
  const read = readLockfile(lockPath, { host, fixCommand });
  switch (read.kind) {
    case "missing":
      return fail({ ...base, status: "missing", fixCommand, diagnostic: createDiagnostic(Diagnostics.LockfileMissing, fileStart(lockPath), [fixCommand]) });
    case "unreadable":
      return fail({ ...base, status: "unreadable", fixCommand, diagnostic: read.diagnostic });
    case "conflict":
      return fail({ ...base, status: "conflict", fixCommand, diagnostic: read.diagnostic });
    case "unsupported-version":
      return fail({ ...base, status: "unsupported-version", diagnostic: read.diagnostic });
    default:
      break;
  }
  // Buffer decoding keeps a byte order mark as U+FEFF (TextDecoder would drop it silently).
  const actualText = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength).toString("utf8").replace(/\r\n/g, "\n");
  if (actualText === expectedText) return { ok: true, report: { ...base, status: "up-to-date" } };
  const parsed = parseJsonText(lockPath, actualText);
  // The expected text is the serializer's output, so it parses.
  const expected: unknown = JSON.parse(expectedText);
  const groups = parsed.ok ? diffLocks(parsed.value, expected) : [];
  const { lines, omitted } = unifiedDiff(base.lockPath, actualText, expectedText);
  const unreadable = read.kind === "invalid";
  const leftOut = parsed.ok && !unreadable ? bundlesLeftOut(parsed.value, expected) : 0;
  // A lock that is not valid has no integrities to carry over: its every bundle line goes in
  // the diff, which deserves the same word as a changed plugin's (new-user trial of 6 December).
  const unreadBundles = unreadable ? Math.max(0, bundleLines(actualText) - bundleLines(expectedText)) : 0;
  const handEdited = parsed.ok ? handEditedCapabilities(groups, parsed.value, expected) : [];
  const notes = [
    ...(actualText.startsWith("\uFEFF") ? ["The file starts with a byte order mark; the lock is written without one."] : []),
    ...(leftOut > 0 ? [bundlesLeftOutNote(leftOut)] : []),
    ...(unreadBundles > 0 ? [`The diff drops ${unreadBundles === 1 ? "a bundle integrity line" : `${unreadBundles} bundle integrity lines`}: the lock could not be read, so --check (which does not bundle) had none to carry over. compile bundles the tools and writes their integrities.`] : []),
    ...handEdited.map(handEditedNote),
  ];
  const shared = { ...base, fixCommand, groups, formattingOnly: parsed.ok && groups.length === 0, notes, diff: lines, diffOmittedLines: omitted, ...(handEdited.length > 0 ? { handEdited } : {}) };
  if (read.kind === "invalid") return fail({ ...shared, status: "invalid", diagnostic: read.diagnostic });
  // Led by, and placed on, the most relevant change (a tool's contract before a hash): a GitHub
  // annotation or SARIF result shows this diagnostic alone (helper-78 D8.8).
  const first = leadChange(groups);
  const location = first && parsed.ok ? locateProperty(parsed, first.segments, true) : fileStart(lockPath);
  const summary = summarize(groups, shared.formattingOnly);
  const dropped = parsed.ok ? droppedSurfaces(parsed.value, expected) : [];
  const warning = dropped.length > 0 ? { hint: `${droppedWords(dropped)}. Check agent.md's capabilities: first; run \`${fixCommand}\` only if that is what you want, and commit plugins.lock.` } : {};
  const diagnostic = createDiagnostic(Diagnostics.LockfileOutOfDate, location, [summary, fixCommand], { ...(first ? { path: first.segments } : {}), ...warning });
  return fail({ ...shared, status: "out-of-date", diagnostic, ...(dropped.length > 0 ? { dropsEveryTool: dropped } : {}) });
}

/** How many lines of a lock's text hold a tool's `bundle` integrity (a lock that does not parse is read as text). */
function bundleLines(text: string): number {
  return text.match(/^\s*"bundle": "sha(?:256|384|512)-/gm)?.length ?? 0;
}

/**
 * The `compile --check` result when the agent's inputs have errors: `compile` would fail and
 * write nothing, so the lock is not compared (no diff, no changes, no fix command — they would
 * describe a lock nobody can write). Reads nothing.
 *
 * @param lockPath absolute path of `plugins.lock` (the diagnostic's file).
 * @param errorCount how many error diagnostics the inputs have (at least 1).
 * @param displayPath how to print the lock's path (default: as given).
 * @param fixCommand the `compile` command the hint names, with `--check` added (default: for the lock's folder).
 */
export function notCheckedReport(lockPath: string, errorCount: number, displayPath = lockPath, fixCommand = fixCommandFor(path.dirname(lockPath))): LockfileCheckReport {
  const errors = `${errorCount} error${errorCount === 1 ? "" : "s"}`;
  return {
    status: "not-checked",
    lockPath: displayPath,
    groups: [],
    formattingOnly: false,
    notes: [],
    diff: [],
    diffOmittedLines: 0,
    // The command names the agent root as the user gave it (new-user trial 115: run from the repository root, a bare `compile --check` was AL1001).
    diagnostic: createDiagnostic(Diagnostics.LockfileNotChecked, fileStart(lockPath), [errors, `${fixCommand} --check`]),
  };
}

function fail(report: LockfileCheckReport): { ok: boolean; report: LockfileCheckReport } {
  return { ok: false, report };
}

function summarize(groups: readonly LockChangeGroup[], formattingOnly: boolean): string {
  if (formattingOnly) return "the values are equal, but the formatting or key order differs";
  const changes = groups.flatMap((group) => group.changes);
  const first = leadChange(groups)!;
  const where = first.segments.length === 0 ? "the whole lock" : formatPropertyPath(first.segments);
  const more = changes.length - 1;
  return `${where} ${first.kind}${more > 0 ? `, and ${more} more change${more === 1 ? "" : "s"}` : ""}`;
}

/** A unified diff (3 lines of context) capped at {@link MAX_DIFF_LINES} lines. */
function unifiedDiff(displayPath: string, actual: string, expected: string): { lines: string[]; omitted: number } {
  const patch = diffPackage().structuredPatch(displayPath, displayPath, actual, expected, "committed", "what compile would write", { context: 3 });
  const all = [`--- ${displayPath} (on disk)`, `+++ ${displayPath} (what compile would write)`];
  for (const hunk of patch.hunks) {
    all.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return { lines: all.slice(0, MAX_DIFF_LINES), omitted: Math.max(0, all.length - MAX_DIFF_LINES) };
}

