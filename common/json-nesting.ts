/**
 * How deep JSON text nests, found before any recursive parser sees it (jsonc-parser and the
 * TypeScript parser recurse per level and overflow the stack on adversarial input). Shared by
 * every JSON reader of the compiler and the lockfile (issue 2: bad input never crashes).
 */

/**
 * Offset of the first `{` or `[` that opens a level deeper than `limit`, skipping the
 * contents of strings (escapes included); `undefined` when nothing nests that deep.
 * Iterative, so it is safe on any input. Unbalanced closers are tolerated (the parser reports them).
 */
export function findJsonNestingBeyond(text: string, limit: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* backslash */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) {
      depth++;
      if (depth > limit) return i;
    } else if (ch === 125 || ch === 93) depth--;
  }
  return undefined;
}
