/**
 * How deep JSON text nests, found before any recursive parser sees it (jsonc-parser and the
 * TypeScript parser recurse per level and overflow the stack on adversarial input). Shared by
 * every JSON reader of the compiler and the lockfile (issue 2: bad input never crashes).
 */

/** Deepest object/array nesting a JSON document of the toolchain's may have; deeper input is a syntax error, never a stack overflow. */
export const MAX_JSON_DEPTH = 256;

/**
 * Offset of the first `{` or `[` that opens a level deeper than `limit`, skipping the
 * contents of strings (escapes included); `undefined` when nothing nests that deep.
 * Iterative, so it is safe on any input. Unbalanced closers are tolerated (the parser reports them).
 * A string is skipped with `indexOf` to its closing quote (one not preceded by an odd run of
 * backslashes), not a character at a time: a lock is mostly strings, and its 2.5 MB on a
 * 2,000-tool agent took about 12 ms a character at a time.
 */
export function findJsonNestingBeyond(text: string, limit: number): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34 /* " */) {
      const end = closingQuote(text, i);
      if (end < 0) return undefined;
      i = end;
    } else if (ch === 123 || ch === 91) {
      depth++;
      if (depth > limit) return i;
    } else if (ch === 125 || ch === 93) depth--;
  }
  return undefined;
}

/** Offset of the quote that closes the string opened at `open`; -1 when none does. */
function closingQuote(text: string, open: number): number {
  for (let from = open + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92 /* backslash */) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}
