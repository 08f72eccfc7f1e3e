/**
 * The one diagnostic shape every stage reports (DESIGN §7, STYLE "Detect in one place,
 * render in another").
 *
 * Detection code never builds message text by hand: it calls {@link createDiagnostic} with a
 * catalog entry (see `./catalog/index.ts`) and the arguments of the message template. The
 * formatters in `./format-*.ts` turn the resulting plain data into pretty text, JSON, SARIF or
 * GitHub annotations.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { byCodeUnits } from "../common/compare.js";
import { rebaseFile, type SourceLocation } from "../common/positions.js";
import { formatPropertyPath } from "../common/property-path.js";
import { CLI_PLACEHOLDER, cliCommandPrefix } from "../common/cli-command.js";
import type { DiagnosticMessage, Severity } from "./catalog/types.js";

export type { Severity };

export type { SourceLocation };


/** Another place that explains a diagnostic ("'echo' is also declared here"). */
export interface RelatedLocation extends SourceLocation {
  readonly message: string;
}

/**
 * A diagnostic as reported. `file` is relative to the agent root (or the plugin directory for
 * `validate`) with `/` separators once {@link relativizeDiagnostic} ran, and `""` (at 1:1) for
 * a diagnostic about the command line or the run as a whole rather than a file (docs/cli.md);
 * `path` is the property path inside the value (`tools.echo.inputSchema.properties.message.type`).
 */
export interface Diagnostic extends SourceLocation {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  readonly path?: string;
  readonly hint?: string;
  readonly related?: readonly RelatedLocation[];
}

/** Optional parts of a diagnostic besides its code, location and message arguments. */
export interface DiagnosticDetails {
  /** Property path inside the value, as segments (`["tools", "echo", "description"]`). */
  readonly path?: readonly PropertyKey[] | string;
  /** What to do; overrides the catalog's default hint when given. */
  readonly hint?: string;
  readonly related?: readonly RelatedLocation[];
  /** Overrides the catalog severity (e.g. a rule that is a warning in one context). */
  readonly severity?: Severity;
}

/**
 * Builds a diagnostic from a catalog entry.
 *
 * @param message the catalog entry (`Diagnostics.X`), which fixes code and default severity.
 * @param location where it happened; `undefined` means the start of `fallbackFile`.
 * @param args values for the `{0}`, `{1}`, … placeholders of the message template (and of
 *   the catalog's hint template, when it has one).
 * @returns plain data; never throws.
 */
export function createDiagnostic(
  message: DiagnosticMessage,
  location: SourceLocation,
  args: readonly (string | number)[] = [],
  details: DiagnosticDetails = {},
): Diagnostic {
  const path =
    details.path === undefined
      ? undefined
      : typeof details.path === "string"
        ? details.path
        : formatPropertyPath(details.path);
  const hint = details.hint ?? (message.hint ? fillTemplate(message.hint, args) : undefined);
  const text = fillTemplate(message.message, args);
  recordProducedCode(message.code, text);
  return {
    code: message.code,
    severity: details.severity ?? message.severity,
    message: text,
    file: location.file,
    line: location.line,
    column: location.column,
    ...(location.endLine !== undefined ? { endLine: location.endLine } : {}),
    ...(location.endColumn !== undefined ? { endColumn: location.endColumn } : {}),
    ...(path !== undefined && path !== "" ? { path } : {}),
    ...(hint !== undefined ? { hint } : {}),
    ...(details.related && details.related.length > 0 ? { related: details.related } : {}),
  };
}

/** Name of the environment variable that turns on {@link recordProducedCode}. */
export const RECORD_DIAGNOSTICS_ENV = "AL_RECORD_DIAGNOSTICS";

let recordFile: string | null | undefined;
const recordedCodes = new Set<string>();

/**
 * Test support: when the environment variable `AL_RECORD_DIAGNOSTICS` names a directory,
 * appends each code this process (or worker thread) produces to its own file there
 * (`<pid>-<thread>.codes`, one JSON line `{"code","message"}` per code, the first message of
 * each code only; the messages become the examples of docs/diagnostics.md). `npm test` sets it in its
 * global setup, so codes produced by spawned CLI processes count too, and fails the run when a
 * catalog code was never produced (`test/setup/diagnostic-coverage.ts`). Without the variable
 * this is one cached check per call. Never throws: a failed write only loses the record.
 */
export function recordProducedCode(code: string, message: string): void {
  if (recordFile === undefined) {
    const dir = typeof process === "undefined" ? undefined : process.env[RECORD_DIAGNOSTICS_ENV];
    // worker_threads only here: every host command imports this module, and only `npm test` records.
    recordFile = dir ? path.join(dir, `${process.pid}-${(createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads")).threadId}.codes`) : null;
  }
  if (recordFile === null || recordedCodes.has(code)) return;
  recordedCodes.add(code);
  try {
    fs.appendFileSync(recordFile, `${JSON.stringify({ code, message })}\n`);
  } catch {
    // The directory is gone (the run is over): nothing to record into.
  }
}

/**
 * Replaces `{0}`, `{1}`, … in a catalog template with `args`, and `{cli}` with the command prefix
 * a user can type (`common/cli-command.ts`: `npx assembly-line`, `assembly-line` or
 * `node <script>`), so a hint's command is one that runs where it is printed. One pass over the
 * template: text an argument brings in (a user's YAML line holding `{cli}`) is never replaced.
 * Unknown placeholders stay as written.
 */
export function fillTemplate(template: string, args: readonly (string | number)[]): string {
  return template.replace(/\{(\d+|cli)\}/g, (whole, index: string) => {
    if (whole === CLI_PLACEHOLDER) return cliCommandPrefix();
    const value = args[Number(index)];
    return value === undefined ? whole : String(value);
  });
}

/**
 * Drops exact repeats (the same problem reached twice, e.g. through a module two plugins
 * import, or two ajv errors that say the same thing), keeping the first of each in order.
 */
export function dedupeDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}\0${d.file}\0${d.line}\0${d.column}\0${d.path ?? ""}\0${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** True when at least one diagnostic is an error (the compile must fail, exit 1). */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/**
 * Sorts diagnostics for output: by file (code-unit order), line, column, code, path, message.
 * Reports never depend on the order in which stages or promises finished (STYLE §6).
 */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(compareDiagnostics);
}

function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (
    byCodeUnits(a.file, b.file) ||
    a.line - b.line ||
    a.column - b.column ||
    byCodeUnits(a.code, b.code) ||
    byCodeUnits(a.path ?? "", b.path ?? "") ||
    byCodeUnits(a.message, b.message)
  );
}

/**
 * Rewrites absolute `file` paths (in the diagnostic and its related locations) relative to
 * `base`, with `/` separators, as DESIGN §7 requires of reported diagnostics.
 */
export function relativizeDiagnostic(diagnostic: Diagnostic, base: string, relative: (from: string, to: string) => string): Diagnostic {
  const rel = (file: string): string => rebaseFile(file, (f) => relative(base, f));
  return {
    ...diagnostic,
    file: rel(diagnostic.file),
    ...(diagnostic.related
      ? { related: diagnostic.related.map((r) => ({ ...r, file: rel(r.file) })) }
      : {}),
  };
}
