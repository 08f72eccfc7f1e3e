/**
 * Quick fixes the language server offers for its own diagnostics (issue 9: "wherever a
 * diagnostic already knows the fix"):
 *  - a "Did you mean 'x'?" hint (unknown keys, enum values, capability fields) becomes an
 *    edit that replaces the misspelt token at the diagnostic's span, keeping its quotes;
 *  - a missing, stale, conflicted or damaged `plugins.lock` gets a "Run assembly-line compile"
 *    action that runs the {@link COMPILE_COMMAND} command on the server.
 */
import { CodeActionKind, type CodeAction, type Diagnostic as LspDiagnostic } from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { DIAGNOSTIC_SOURCE, type DiagnosticData } from "./to-lsp.js";

/** The `workspace/executeCommand` command that runs `assembly-line compile` on an agent root. */
export const COMPILE_COMMAND = "assembly-line.compile";

/** Lock problems that `compile` repairs by rewriting `plugins.lock`. */
const FIXED_BY_COMPILE: ReadonlySet<string> = new Set(
  [Diagnostics.LockfileMissing, Diagnostics.LockfileOutOfDate, Diagnostics.LockfileConflictMarkers, Diagnostics.LockfileInvalidJson, Diagnostics.LockfileInvalidShape].map((m) => m.code),
);

const DID_YOU_MEAN = /Did you mean '([^']+)'\?/;

/**
 * The quick fixes for `diagnostics` (those the client sent with the code-action request) in
 * `document`. `root` is the document's agent root, for the compile command.
 */
export function codeActionsFor(document: TextDocument, diagnostics: readonly LspDiagnostic[], root: string | undefined): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== DIAGNOSTIC_SOURCE) continue;
    const hint = (diagnostic.data as DiagnosticData | undefined)?.hint;
    const suggestion = hint ? DID_YOU_MEAN.exec(hint)?.[1] : undefined;
    const edit = suggestion === undefined ? undefined : renameEdit(document.getText(diagnostic.range), suggestion);
    if (suggestion !== undefined && edit !== undefined) {
      actions.push({
        title: `Change to '${suggestion}'`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: { changes: { [document.uri]: [{ range: diagnostic.range, newText: edit }] } },
      });
    }
    if (root !== undefined && typeof diagnostic.code === "string" && FIXED_BY_COMPILE.has(diagnostic.code)) {
      const command = { title: "Run assembly-line compile", command: COMPILE_COMMAND, arguments: [root] };
      actions.push({ title: command.title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], command });
    }
  }
  return actions;
}

/**
 * The replacement for the token `current` (the text under a diagnostic's span): the
 * suggestion, in the same quotes when the token was quoted. `undefined` when the span is empty
 * or holds more than one token (an edit could then destroy text around it).
 */
export function renameEdit(current: string, suggestion: string): string | undefined {
  const quoted = /^(["'`])(.*)\1$/s.exec(current);
  const bare = quoted ? quoted[2]! : current;
  if (bare === "" || /[\s,:{}[\]]/.test(bare)) return undefined;
  if (!quoted) return suggestion;
  return quoted[1] === '"' ? JSON.stringify(suggestion) : `${quoted[1]}${suggestion}${quoted[1]}`;
}
