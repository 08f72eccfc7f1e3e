/**
 * Our diagnostics as LSP data (DESIGN §7: the language server reports exactly what `compile`
 * reports for a file, at the same spans). Lines and columns of a {@link Diagnostic} are 1-based
 * and count UTF-16 code units with the byte order mark taking no column — the LSP's default
 * `utf-16` position encoding, 0-based — so the conversion is a subtraction.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic, type DiagnosticRelatedInformation, type Range } from "vscode-languageserver/node";
import type { Diagnostic, SourceLocation } from "../../diagnostics/diagnostic.js";

/** The `source` of every diagnostic the server publishes. */
export const DIAGNOSTIC_SOURCE = "assembly-line";

/** What the server keeps in `Diagnostic.data`: our hint and property path. */
export interface DiagnosticData {
  readonly hint?: string;
  readonly path?: string;
}

/**
 * Converts one diagnostic whose `file` is absolute. The message and code are ours unchanged;
 * the hint goes into `data` and, as related information at the same span, into what editors
 * show under the message.
 */
export function toLspDiagnostic(diagnostic: Diagnostic): LspDiagnostic {
  const range = toRange(diagnostic);
  const related: DiagnosticRelatedInformation[] = (diagnostic.related ?? [])
    .filter((r) => r.file !== "")
    .map((r) => ({ location: { uri: fileUri(r.file), range: toRange(r) }, message: r.message }));
  if (diagnostic.hint) related.push({ location: { uri: fileUri(diagnostic.file), range }, message: diagnostic.hint });
  const data: DiagnosticData = { ...(diagnostic.hint ? { hint: diagnostic.hint } : {}), ...(diagnostic.path ? { path: diagnostic.path } : {}) };
  return {
    range,
    severity: diagnostic.severity === "error" ? DiagnosticSeverity.Error : diagnostic.severity === "warning" ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
    code: diagnostic.code,
    source: DIAGNOSTIC_SOURCE,
    message: diagnostic.message,
    ...(related.length > 0 ? { relatedInformation: related } : {}),
    data,
  };
}

/** The LSP range of a location: a point when the location has no end. */
export function toRange(location: SourceLocation): Range {
  const start = { line: Math.max(0, location.line - 1), character: Math.max(0, location.column - 1) };
  const end =
    location.endLine !== undefined && location.endColumn !== undefined
      ? { line: Math.max(0, location.endLine - 1), character: Math.max(0, location.endColumn - 1) }
      : start;
  return { start, end };
}

/** `file://` URI of an absolute path (what LSP clients send for files on disk). */
export function fileUri(file: string): string {
  return pathToFileURL(path.resolve(file)).href;
}
