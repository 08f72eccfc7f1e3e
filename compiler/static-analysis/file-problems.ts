/**
 * Diagnostics about a file as a whole: it cannot be read, it is not UTF-8, it does not parse
 * (TypeScript's parse diagnostics, or invalid JSON). Shared by entries, definition modules and
 * the files they import.
 */
import * as path from "node:path";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { fileStart, folderStart, locationOf } from "../../common/positions.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { ReadResult } from "../../common/host.js";
import type { DiagnosticSink } from "./analysis-session.js";
import type { JsonDocument } from "./json-module.js";
import { MAX_NESTING } from "./nesting-limit.js";
import type { ParsedModule, TextFile } from "./source-store.js";
import { relativeInside } from "../../common/path-inside.js";

/** Syntax errors reported per file; the rest are summarised (AL3006). */
export const MAX_SYNTAX_ERRORS = 100;

/** The file's path for messages: relative to the plugin root with `/`, else its base name. */
export function displayName(filePath: string, pluginRoot: string): string {
  const relative = relativeInside(pluginRoot, filePath);
  if (relative === undefined || relative === "") return path.basename(filePath);
  return relative.split(path.sep).join("/");
}

/** Reports a file that is missing, a directory or unreadable (AL3001–AL3003). */
export function reportUnreadable(sink: DiagnosticSink, filePath: string, result: Exclude<ReadResult, { kind: "file" }>): void {
  const name = displayName(filePath, sink.pluginRoot);
  const at = fileStart(filePath);
  if (result.kind === "missing") sink.report(createDiagnostic(Diagnostics.SourceFileMissing, at, [name]));
  else if (result.kind === "directory") sink.report(createDiagnostic(Diagnostics.SourceFileIsDirectory, folderStart(filePath), [name]));
  else sink.report(createDiagnostic(Diagnostics.SourceFileUnreadable, at, [name, result.reason]));
}

/** Reports invalid UTF-8 at the first replacement character (AL3004). */
export function reportInvalidUtf8(sink: DiagnosticSink, file: TextFile): void {
  const offset = Math.max(0, file.text.indexOf("\uFFFD"));
  sink.report(createDiagnostic(Diagnostics.SourceFileNotUtf8, locationOf(file.lineMap(), offset, offset + 1), [displayName(file.path, sink.pluginRoot)]));
}

/**
 * Reports the parse problems of a module (AL3005, AL3006, AL3007).
 * @returns true when the module parsed without errors and can be evaluated.
 */
export function reportSyntaxProblems(sink: DiagnosticSink, module: ParsedModule): boolean {
  if (module.tooDeep) {
    const at = module.syntaxErrors[0]?.start ?? 0;
    sink.report(createDiagnostic(Diagnostics.NestedTooDeeply, locationOf(module.lineMap(), at), [MAX_NESTING]));
    return false;
  }
  const shown = module.syntaxErrors.slice(0, MAX_SYNTAX_ERRORS);
  for (const problem of shown) {
    sink.report(createDiagnostic(Diagnostics.SyntaxError, locationOf(module.lineMap(), problem.start, problem.end), [problem.message]));
  }
  const hidden = module.syntaxErrors.length - shown.length;
  if (hidden > 0) {
    const last = shown[shown.length - 1]!;
    sink.report(createDiagnostic(Diagnostics.MoreSyntaxErrors, locationOf(module.lineMap(), last.start, last.end), [hidden]));
  }
  return module.sourceFile !== undefined && module.syntaxErrors.length === 0;
}

/**
 * Reports the problems of a JSON file (AL3008, AL3007).
 *
 * @param propertyPath the property path of the field whose value imports the file (e.g.
 *   `["tools", "echo", "inputSchema"]`), carried by every diagnostic so later stages know that
 *   field is unreadable (and do not also call it missing); omit when no field is involved.
 * @returns true when the file parsed (its value may still be partial).
 */
export function reportJsonProblems(sink: DiagnosticSink, document: JsonDocument, propertyPath?: readonly (string | number)[]): boolean {
  const map = document.file.lineMap();
  const details = propertyPath && propertyPath.length > 0 ? { path: propertyPath } : {};
  for (const problem of document.problems) {
    const at = locationOf(map, problem.start, problem.end);
    sink.report(
      problem.kind === "too-deep"
        ? createDiagnostic(Diagnostics.NestedTooDeeply, at, [MAX_NESTING], details)
        : createDiagnostic(Diagnostics.JsonSyntaxError, at, [problem.words], details),
    );
  }
  return document.root !== undefined;
}
