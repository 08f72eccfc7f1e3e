/**
 * Errors the runtime throws to its host (not to the model): a refused artifact, a refused
 * call (ended run, unknown surface, bad ids) or a closed runtime. Each carries diagnostics
 * with stable AL8xxx codes, so the CLI renders them like any other diagnostic.
 *
 * Tool-call failures are never thrown: they come back as a failed `CallResult`.
 */
import * as path from "node:path";
import type { WriteRefusal } from "../common/confined-write.js";
import { relativeInside } from "../common/path-inside.js";
import type { DiagnosticMessage } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../diagnostics/diagnostic.js";
import { writeRefusalDiagnostic } from "../diagnostics/write-refusal.js";

/** A refusal with one or more diagnostics; `message` is the first diagnostic's message. */
export class RuntimeError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  /** Code of the first diagnostic (e.g. `"AL8012"`). */
  readonly code: string;

  constructor(diagnostics: readonly Diagnostic[]) {
    const first = diagnostics[0];
    super(first ? first.message : "The runtime refused the request.");
    this.name = "RuntimeError";
    this.diagnostics = diagnostics;
    this.code = first?.code ?? "AL8000";
  }
}

/**
 * Builds a {@link RuntimeError} from one catalog entry.
 * @param location where the problem is; a file name means line 1 of that file, and `""` means
 *   no file at all: the problem is in the request (a command-line flag, a run or call id, an
 *   API argument), so formatters print no location (as for AL1024).
 */
export function runtimeError(message: DiagnosticMessage, location: SourceLocation | string, args: readonly (string | number)[] = [], hint?: string): RuntimeError {
  const at = typeof location === "string" ? { file: location, line: 1, column: 1 } : location;
  return new RuntimeError([createDiagnostic(message, at, args, hint === undefined ? {} : { hint })]);
}

/**
 * A {@link RuntimeError} AL6301/AL6302 for a write of the runtime's state that
 * `common/confined-write.ts` refused (`writeRefusalDiagnostic`), located at the offending path
 * relative to the agent `root` (with `/`), as DESIGN §7 has every diagnostic's `file`.
 */
export function writeRefusalError(what: string, refusal: WriteRefusal, root: string): RuntimeError {
  const diagnostic = writeRefusalDiagnostic(what, refusal, root);
  const relative = relativeInside(root, diagnostic.file);
  return new RuntimeError([relative ? { ...diagnostic, file: relative.split(path.sep).join("/") } : diagnostic]);
}
