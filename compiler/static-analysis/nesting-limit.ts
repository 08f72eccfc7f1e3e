/**
 * The nesting limit of the static analysis, and where a file first exceeds it.
 *
 * The TypeScript parser and the evaluator are recursive; real descriptors nest a few dozen
 * levels, so anything beyond {@link MAX_NESTING} is reported (AL3007) instead of risking a
 * stack overflow (issue 2: "2,000-deep nested objects").
 */
import { ts } from "./typescript.js";

/** The deepest nesting of values (and of brackets, when the parser gives up) that is analysed. */
export const MAX_NESTING = 256;

/**
 * The deepest value that composing already evaluated parts may build (a constant or a JSON
 * file used deep inside another value); keeps flattening the value safe for the stack.
 */
export const MAX_VALUE_HEIGHT = 2 * MAX_NESTING;

/** Evaluations in progress at once (nesting plus reference hops such as `const b = a`). */
export const MAX_ACTIVE_EVALUATIONS = 2 * MAX_NESTING;

/**
 * Offset (into the text as read) of the first `{`, `[` or `(` that opens a level deeper than
 * {@link MAX_NESTING}, found with the scanner (iterative, so it cannot overflow); `undefined`
 * when no bracket nests that deep. Template literals and regular expressions are scanned
 * approximately; the offset only locates a diagnostic.
 */
export function findDeepNesting(text: string, bomShift: number): number | undefined {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text.slice(bomShift));
  let depth = 0;
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.OpenBraceToken || token === ts.SyntaxKind.OpenBracketToken || token === ts.SyntaxKind.OpenParenToken) {
      depth += 1;
      if (depth > MAX_NESTING) return scanner.getTokenStart() + bomShift;
    } else if (token === ts.SyntaxKind.CloseBraceToken || token === ts.SyntaxKind.CloseBracketToken || token === ts.SyntaxKind.CloseParenToken) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}
