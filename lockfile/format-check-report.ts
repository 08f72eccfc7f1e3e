/**
 * Words for a `compile --check` result (STYLE §4: detect in one place, render in another).
 */
import type { JsonValue } from "../common/json-value.js";
import { formatPropertyPath } from "../common/property-path.js";
import type { LockfileCheckReport } from "./check-lockfile.js";
import { droppedWords } from "./dropped-tools.js";
import type { LockChange } from "./diff-locks.js";
import { formatContractReview } from "./format-review.js";

/** Change lines shown before "… and N more changes". */
export const MAX_CHANGE_LINES = 30;
const MAX_VALUE_LENGTH = 100;

/**
 * Renders a check report as plain text (no colour; the CLI may colour it), ending in a newline:
 *
 * ```text
 * agent/plugins.lock:19:15 - error AL6002: plugins.lock is out of date
 *
 *   surfaces["."].capabilities.example
 *     tools.echo.description: "a" → "b"
 *     + tools.search
 *
 *   --- agent/plugins.lock (on disk)
 *   +++ agent/plugins.lock (what compile would write)
 *   @@ -12,7 +12,7 @@
 *   …
 *
 * Fix: npx assembly-line compile agent
 * ```
 */
export function formatLockfileCheckReport(report: LockfileCheckReport): string {
  const out: string[] = [headline(report)];
  const changeLines = formatChanges(report);
  if (changeLines.length > 0) out.push("", ...changeLines);
  if (report.review && report.review.changes.length > 0) out.push("", ...formatContractReview(report.review).trimEnd().split("\n").map((line) => `  ${line}`));
  if (report.formattingOnly) out.push("", "  The values are equal; only the formatting or key order differs (a hand edit).");
  for (const note of report.notes) out.push("", `  ${note}`);
  if (report.diff.length > 0) {
    out.push("", ...report.diff.map((line) => `  ${line}`));
    if (report.diffOmittedLines > 0) out.push(`  … ${report.diffOmittedLines} more diff lines not shown`);
  }
  const hint = report.diagnostic?.hint;
  if ((report.status === "unsupported-version" || report.status === "not-checked") && hint) out.push("", hint);
  if (report.fixCommand && report.dropsEveryTool && report.dropsEveryTool.length > 0) {
    // Never propose accepting a lock without its tools as if it were a routine refresh.
    out.push("", `Warning: ${droppedWords(report.dropsEveryTool)}.`, "If that is not what you meant, check capabilities: in agent.md (a misspelled field or a missing selection) and run the check again.");
    out.push("", `Only to accept that: ${report.fixCommand}${fixSuffix(report.status)}`);
  } else if (report.fixCommand && report.status !== "up-to-date") out.push("", `Fix: ${report.fixCommand}${fixSuffix(report.status)}`);
  return `${out.join("\n")}\n`;
}

/** One change of {@link LockfileCheckJson}: its property path from the lock's root, as the diagnostic's `path` writes it. */
export interface LockChangeJson {
  readonly kind: LockChange["kind"];
  /** `surfaces["."].capabilities.hello.tools.hello.description`; `""` for the whole lock. */
  readonly path: string;
  /** The committed value (absent when `added`). */
  readonly before?: JsonValue;
  /** The value `compile` would write (absent when `removed`). */
  readonly after?: JsonValue;
}

/**
 * The machine form of a check report: what the pretty report shows beside its one diagnostic
 * (`compile --check --format json`'s `check`, and the properties of its SARIF result).
 */
export interface LockfileCheckJson {
  readonly status: LockfileCheckReport["status"];
  /** Every changed property path, in the pretty report's order, none left out (the pretty report shows {@link MAX_CHANGE_LINES}). */
  readonly changes: readonly LockChangeJson[];
  /** The contract review, as `review --format json` gives it, with `needsReview`; `[]` when there is nothing to review. */
  readonly review: readonly { readonly kind: string; readonly surface: string; readonly tool: string | null; readonly detail: string; readonly needsReview: boolean }[];
  /** True when the values are equal and only the formatting or key order differs. */
  readonly formattingOnly: boolean;
  /** The report's remarks (a byte order mark, bundle integrities --check leaves out). */
  readonly notes: readonly string[];
  /** The command that fixes the lock (absent when up to date, and for a lock of a newer toolchain). */
  readonly fixCommand?: string;
}

/**
 * A check report as plain JSON data ({@link LockfileCheckJson}); the unified diff stays in the
 * pretty report (it is for people; `changes` carries the same facts).
 */
export function checkReportJson(report: LockfileCheckReport): LockfileCheckJson {
  const changes = report.groups.flatMap((group) =>
    group.changes.map((change) => ({
      kind: change.kind,
      path: formatPropertyPath(change.segments),
      ...(change.before !== undefined ? { before: change.before } : {}),
      ...(change.after !== undefined ? { after: change.after } : {}),
    })),
  );
  const review = (report.review?.changes ?? []).map(({ kind, surface, tool, detail, needsReview }) => ({ kind, surface, tool, detail, needsReview }));
  return {
    status: report.status,
    changes,
    review,
    formattingOnly: report.formattingOnly,
    notes: report.notes,
    ...(report.fixCommand !== undefined && report.status !== "up-to-date" ? { fixCommand: report.fixCommand } : {}),
  };
}

/**
 * The report's first line, placed as the pretty diagnostics place theirs (`file:line:column -
 * severity CODE: message`, diagnostics/format-pretty.ts) at the diagnostic's location, the one
 * `--format github`, SARIF and JSON give: a stale lock's lead change, the first conflict marker,
 * a syntax error (new-user trial of 6 December). A missing lock has no line to point at: its
 * path alone. An up-to-date lock has no diagnostic: `plugins.lock is up to date: <path>`.
 */
function headline(report: LockfileCheckReport): string {
  const d = report.diagnostic;
  if (!d || report.status === "up-to-date") return `plugins.lock is up to date${report.lockPath === "plugins.lock" ? "" : `: ${report.lockPath}`}`;
  const where = report.status === "missing" ? report.lockPath : `${report.lockPath}:${d.line}:${d.column}`;
  return `${where} - ${d.severity} ${d.code}: ${statusLine(report, d.message)}`;
}

function statusLine(report: LockfileCheckReport, message: string): string {
  switch (report.status) {
    case "missing":
      return "plugins.lock is missing";
    case "conflict":
      return "plugins.lock contains Git conflict markers";
    case "out-of-date":
      return "plugins.lock is out of date";
    default:
      return message;
  }
}

function fixSuffix(status: LockfileCheckReport["status"]): string {
  if (status === "conflict") return " (recomputes the lock from the agent's inputs; then commit it)";
  return " (then commit plugins.lock)";
}

function formatChanges(report: LockfileCheckReport): string[] {
  const lines: string[] = [];
  let shown = 0;
  let total = 0;
  for (const group of report.groups) {
    total += group.changes.length;
    if (shown >= MAX_CHANGE_LINES) continue;
    lines.push(`  ${group.title}`);
    for (const change of group.changes) {
      if (shown >= MAX_CHANGE_LINES) break;
      lines.push(`    ${formatChange(change)}`);
      shown++;
    }
  }
  if (total > shown) lines.push(`  … and ${total - shown} more change${total - shown === 1 ? "" : "s"}`);
  return lines;
}

/** One change as a line: `path: before → after`, `+ path: value` or `- path`. */
export function formatChange(change: LockChange): string {
  const where = change.path === "" ? "(the whole value)" : change.path;
  if (change.kind === "added") return `+ ${where}${inline(change.after)}`;
  if (change.kind === "removed") return `- ${where}`;
  return `${where}: ${renderValue(change.before)} → ${renderValue(change.after)}`;
}

/** `: value` for a short scalar; nothing for objects, arrays and long values (the diff shows them). */
function inline(value: JsonValue | undefined): string {
  if (value === undefined || (value !== null && typeof value === "object")) return "";
  const text = renderValue(value);
  return text.length <= 60 ? `: ${text}` : "";
}

function renderValue(value: JsonValue | undefined): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH - 1)}…` : text;
}
