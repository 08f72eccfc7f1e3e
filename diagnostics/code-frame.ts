/**
 * The code frame of a diagnostic: the source lines around its span, with `>` before the lines
 * it covers and a row of `^` under exactly the text it covers. The layout is
 * @babel/code-frame's (which rendered frames before), but every line of a span that runs over
 * several lines is underlined from where its text starts to where the span ends on it, with the
 * end exclusive on every line: babel underlined a span's last line up to and including its end
 * column (so an end at the start of the next line drew a `^` there) and gave every middle line
 * the length of the span's second line (helper-75's trial, K9).
 */
import type { Palette } from "./terminal-color.js";

/** Where a frame's span is: 1-based lines and columns (UTF-16 code units), the end exclusive. */
export interface FrameSpan {
  readonly line: number;
  readonly column: number;
  readonly endLine?: number;
  readonly endColumn?: number;
}

/** Options of {@link renderCodeFrame}. */
export interface FrameOptions {
  /** Colours of the gutter and markers (the identity palette for none). */
  readonly colors: Palette;
  /** Lines shown above the span (default 2) and below it (default 1). */
  readonly linesAbove?: number;
  readonly linesBelow?: number;
}

/** The line ends a frame splits on: the same as the line map's (`common/positions.ts`). */
const LINE_END = /\r\n|[\n\r\u2028\u2029]/;

/**
 * The frame of `span` in `text`, without a trailing line end; `undefined` when the span's first
 * line is not in the text.
 * @example
 * renderCodeFrame("a: 1\nbb: 2\n", { line: 2, column: 1, endLine: 2, endColumn: 3 }, { colors })
 * // "  1 | a: 1\n> 2 | bb: 2\n    | ^^\n  3 |"
 */
export function renderCodeFrame(text: string, span: FrameSpan, options: FrameOptions): string | undefined {
  const lines = text.split(LINE_END);
  if (span.line < 1 || span.line > lines.length) return undefined;
  const marks = markedColumns(lines, span);
  const lastMarked = span.line + marks.length - 1;
  const first = Math.max(span.line - (options.linesAbove ?? 2), 1);
  const last = Math.min(lastMarked + (options.linesBelow ?? 1), lines.length);
  const width = String(last).length;
  const { gray, red, bold, reset } = options.colors;
  const marker = (text: string) => red(bold(text));
  const rows: string[] = [];
  for (let number = first; number <= last; number++) {
    const line = lines[number - 1]!;
    const gutter = ` ${String(number).padStart(width)} |`;
    const code = line.length > 0 ? ` ${line}` : "";
    const mark = number >= span.line && number <= lastMarked ? marks[number - span.line] : undefined;
    if (mark === undefined) {
      rows.push(` ${gray(gutter)}${code}`);
      continue;
    }
    rows.push(`${marker(">")}${gray(gutter)}${code}`);
    if (mark.length === 0) continue;
    // Tabs before the marker stay tabs, so the carets line up with the text above them.
    const spacing = line.slice(0, mark.from - 1).replace(/[^\t]/g, " ");
    rows.push(` ${gray(gutter.replace(/\d/g, " "))} ${spacing}${marker("^").repeat(mark.length)}`);
  }
  const frame = rows.join("\n");
  return options.colors.isColorSupported ? reset(frame) : frame;
}

/** What one marked line underlines: from column `from`, `length` code units (0: nothing). */
interface LineMark {
  readonly from: number;
  readonly length: number;
}

/**
 * The marks of the span's lines, first line first. A point or an empty span is one `^` at its
 * column. An end at column 1 of a later line ends the span with the line before it (a node's
 * range that takes its line end with it). Lines after the first are underlined from their first
 * character that is not white space, and the last one up to its end column.
 */
function markedColumns(lines: readonly string[], span: FrameSpan): LineMark[] {
  let endLine = Math.min(span.endLine ?? span.line, lines.length);
  let endColumn = span.endColumn ?? span.column;
  if (endLine > span.line && endColumn <= 1) {
    endLine--;
    endColumn = lines[endLine - 1]!.length + 1;
  }
  if (endLine < span.line || (endLine === span.line && endColumn <= span.column)) return [{ from: span.column, length: 1 }];
  const marks: LineMark[] = [];
  for (let number = span.line; number <= endLine; number++) {
    const line = lines[number - 1]!;
    const from = number === span.line ? span.column : line.length - line.trimStart().length + 1;
    const to = number === endLine ? Math.min(endColumn, line.length + 1) : line.length + 1;
    marks.push({ from, length: Math.max(to - from, 0) });
  }
  // The first line always shows where the span starts, even when its text there is only a line end.
  if (marks[0]!.length === 0) marks[0] = { from: span.column, length: 1 };
  return marks;
}
