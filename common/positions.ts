/**
 * Offsets → editor line/column, shared by every stage that reports into a text file
 * (agent.md, plugin.json, mcp.json, SKILL.md, the TypeScript entry).
 *
 * Conventions (DESIGN §7, issue 2 "from the text as the editor shows it"):
 * - lines and columns are 1-based;
 * - `\r\n`, `\n`, `\r`, U+2028 and U+2029 each end a line (as TypeScript and VS Code count);
 * - a leading byte order mark (U+FEFF) is part of the text but takes no column;
 * - columns count UTF-16 code units.
 */

/**
 * A place in a source file. `line` and `column` are 1-based and counted as an editor shows
 * the text: a byte order mark takes no column, and CRLF, LF and CR each end one line.
 * Columns count UTF-16 code units (as TypeScript, LSP and VS Code do).
 */
export interface SourceLocation {
  /** Absolute path while inside the pipeline; root-relative with `/` once reported. */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** End of the span (exclusive), same conventions; absent for a point. */
  readonly endLine?: number;
  readonly endColumn?: number;
}

/** Precomputed line starts of one text; build once per file, query many times. */
export interface LineMap {
  readonly file: string;
  readonly text: string;
  /** Offsets at which each line starts (index 0 = line 1). */
  readonly lineStarts: readonly number[];
}

/** Builds the line map of `text` (O(n)); `file` is carried into every location it makes. */
export function createLineMap(file: string, text: string): LineMap {
  const lineStarts = [0];
  // Most texts end their lines with `\n` alone: found with `indexOf`, several times faster than
  // the walk below in a cold process (issue 14 item 1). Any `\r`, U+2028 or U+2029 takes the walk.
  if (text.indexOf("\r") === -1 && text.indexOf("\u2028") === -1 && text.indexOf("\u2029") === -1) {
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lineStarts.push(at + 1);
    return { file, text, lineStarts };
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      lineStarts.push(i + 1);
    } else if (ch === 10 || ch === 0x2028 || ch === 0x2029) {
      lineStarts.push(i + 1);
    }
  }
  return { file, text, lineStarts };
}

/** Line and column (1-based) of a UTF-16 offset into the map's text; offsets are clamped. */
export function lineColumnOf(map: LineMap, offset: number): { line: number; column: number } {
  const clamped = clampOffset(map, offset);
  const index = lineIndexOf(map, clamped);
  return { line: index + 1, column: columnOf(map, index, clamped) };
}

/**
 * Writes the line and column (1-based) of a UTF-16 offset, exactly as {@link lineColumnOf}
 * gives them, into `out[at]` and `out[at + 1]`, without allocating: for tables that record
 * thousands of locations (`compiler/location-table.ts`, issue 14 item 1).
 */
export function writeLineColumn(map: LineMap, offset: number, out: number[] | Int32Array, at: number): void {
  const clamped = clampOffset(map, offset);
  const index = lineIndexOf(map, clamped);
  out[at] = index + 1;
  out[at + 1] = columnOf(map, index, clamped);
}

function clampOffset(map: LineMap, offset: number): number {
  return Math.max(0, Math.min(offset, map.text.length));
}

/** The 0-based index of the line holding a clamped offset (binary search of the line starts). */
function lineIndexOf(map: LineMap, clamped: number): number {
  const starts = map.lineStarts;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= clamped) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The 1-based column of a clamped offset on the line of index `index` (a byte order mark takes none). */
function columnOf(map: LineMap, index: number, clamped: number): number {
  const column = clamped - map.lineStarts[index]! + 1;
  return index === 0 && map.text.charCodeAt(0) === 0xfeff && clamped > 0 ? column - 1 : column;
}

/** The location of the span `[start, end)` of the map's text. */
export function locationOf(map: LineMap, start: number, end?: number): SourceLocation {
  const from = lineColumnOf(map, start);
  if (end === undefined || end <= start) return { file: map.file, ...from };
  const to = lineColumnOf(map, end);
  return { file: map.file, line: from.line, column: from.column, endLine: to.line, endColumn: to.column };
}

/** Location for a whole file when nothing more precise is known (line 1, column 1). */
export function fileStart(file: string): SourceLocation {
  return { file, line: 1, column: 1 };
}

/**
 * Location for a folder (a plugin folder, `tools/`, a subagent folder): `file` is the folder
 * with a trailing `/`, line and column 1. The one rule for folder-level diagnostics
 * (docs/cli.md): the trailing `/` survives relativizing ({@link rebaseFile}), and the pretty
 * output and GitHub annotations show the folder without a line and column, since a folder has
 * none.
 */
export function folderStart(folder: string): SourceLocation {
  return { file: isFolderFile(folder) ? folder : `${folder}/`, line: 1, column: 1 };
}

/** True when a reported `file` names a folder ({@link folderStart}): it ends in `/` (or `\\` on Windows before it is reported). */
export function isFolderFile(file: string): boolean {
  return file.endsWith("/") || file.endsWith("\\");
}

/**
 * `file` rebased by `relative` (e.g. from absolute to root-relative), with `/` separators and a
 * folder's trailing `/` kept ({@link folderStart}); `""` (a whole-run diagnostic) stays `""`,
 * and the base itself is `.` (`./` for a folder).
 */
export function rebaseFile(file: string, relative: (file: string) => string): string {
  if (file === "") return file;
  const rebased = relative(file).split("\\").join("/") || ".";
  return isFolderFile(file) && !rebased.endsWith("/") ? `${rebased}/` : rebased;
}
