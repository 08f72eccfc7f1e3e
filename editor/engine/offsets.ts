/**
 * 1-based line/column (the conventions of `common/positions.ts`: CRLF, LF, CR, U+2028 and
 * U+2029 end a line; a leading byte order mark takes no column; UTF-16 columns) ↔ offsets
 * into a text. Editors address text by offset (tsserver) or 0-based line/character (LSP).
 */
import { createLineMap, lineColumnOf } from "../../common/positions.js";

/**
 * The UTF-16 offset in `text` of the 1-based `line` and `column`, clamped to the line (and
 * to the text). Inverse of `lineColumnOf`: `offsetAt(t, …lineColumnOf(map(t), o)) === o`.
 */
export function offsetAt(text: string, line: number, column: number): number {
  const starts = lineStartsOf(text);
  const index = Math.max(0, Math.min(line - 1, starts.length - 1));
  const lineStart = starts[index]!;
  const lineEnd = index + 1 < starts.length ? starts[index + 1]! : text.length;
  const bom = index === 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  return Math.max(lineStart, Math.min(lineStart + bom + column - 1, lineEnd));
}

/** The 1-based line and column of a UTF-16 offset into `text`. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  return lineColumnOf(createLineMap("", text), offset);
}

let lastText: string | undefined;
let lastStarts: readonly number[] = [];

/** Line starts of `text`; the last text's are kept (the spans of one file come in a row). */
function lineStartsOf(text: string): readonly number[] {
  if (text !== lastText) {
    lastStarts = createLineMap("", text).lineStarts;
    lastText = text;
  }
  return lastStarts;
}
