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
  const window = visibleWindow(lines.slice(first - 1, last), marks[0]!);
  const rows: string[] = [];
  for (let number = first; number <= last; number++) {
    const line = lines[number - 1]!;
    const shown = window.clip(line);
    const gutter = ` ${String(number).padStart(width)} |`;
    const code = shown.length > 0 ? ` ${shown}` : "";
    const mark = number >= span.line && number <= lastMarked ? marks[number - span.line] : undefined;
    if (mark === undefined) {
      rows.push(` ${gray(gutter)}${code}`);
      continue;
    }
    rows.push(`${marker(">")}${gray(gutter)}${code}`);
    const visible = window.mark(mark);
    if (visible.length === 0) continue;
    // Tabs before the marker stay tabs, so the carets line up with the text above them.
    const spacing = shown.slice(0, visible.from - 1).replace(/[^\t]/g, " ");
    rows.push(` ${gray(gutter.replace(/\d/g, " "))} ${spacing}${marker("^").repeat(visible.length)}`);
  }
  const frame = rows.join("\n");
  return options.colors.isColorSupported ? reset(frame) : frame;
}

/**
 * The widest a frame's line is shown (UTF-16 code units), as Biome and rustc keep a minified
 * file's one long line from filling the terminal: a longer line shows the part around the span,
 * with `…` where text is left out.
 */
export const MAX_FRAME_LINE = 120;

/** Code units kept before the span's start when a long line is clipped. */
const CONTEXT_BEFORE = 40;

/** The columns every line of one frame shows ({@link MAX_FRAME_LINE}), and the marks within them. */
interface FrameWindow {
  /** The part of `line` shown, with `…` for text left out before or after it. */
  clip(line: string): string;
  /** `mark` in the clipped line's columns (length 0 when it falls outside). */
  mark(mark: LineMark): LineMark;
}

/**
 * The window of a frame's lines: the whole lines when none is longer than
 * {@link MAX_FRAME_LINE}, else the same {@link MAX_FRAME_LINE} columns of every line (so the
 * carets stay under their text), starting a little before the span's first mark.
 */
function visibleWindow(lines: readonly string[], first: LineMark): FrameWindow {
  if (lines.every((line) => line.length <= MAX_FRAME_LINE)) return { clip: (line) => line, mark: (mark) => mark };
  const start = first.from - 1 + first.length <= MAX_FRAME_LINE ? 0 : Math.max(first.from - 1 - CONTEXT_BEFORE, 0);
  const end = start + MAX_FRAME_LINE;
  const lead = start > 0 ? 1 : 0;
  return {
    clip: (line) => (start > 0 && line.length > 0 ? "…" : "") + line.slice(start, end) + (line.length > end ? "…" : ""),
    mark: ({ from, length }) => {
      const left = Math.max(from - 1, start);
      const right = Math.min(from - 1 + length, end);
      return right > left ? { from: left - start + 1 + lead, length: right - left } : { from: 1, length: 0 };
    },
  };
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
