/**
 * Git conflict markers in `plugins.lock` (issue 3 item 6).
 */

/** One conflict marker line. */
export interface ConflictMarker {
  /** The marker itself: `<<<<<<<`, `|||||||` (diff3 base), `=======` or `>>>>>>>`. */
  readonly marker: string;
  /** 1-based line number. */
  readonly line: number;
}

const MARKER = /^(<{7}|\|{7}|={7}|>{7})(?=[ \t\r\n]|$)/;

/**
 * {@link MARKER} over the whole text: `^` and `$` also match at every line terminator, so it
 * matches wherever a line of `text.split("\n")` would (and at a few more places: after a lone
 * `\r`, U+2028 or U+2029). No match means no marker, without splitting a lock of megabytes
 * into lines (issue 14 item 1).
 */
const ANY_MARKER = /^(?:<{7}|\|{7}|={7}|>{7})(?=[ \t\r\n]|$)/m;

/**
 * Finds Git conflict markers: seven `<`, `|`, `=` or `>` at the start of a line, followed by
 * a space, a tab or the end of the line. A canonical lock never has such a line (every line
 * of it starts with a space, `{` or `}`), so any marker means a merge left both sides in the
 * file. CRLF and LF line ends are both understood.
 *
 * @returns the markers in file order; empty when there are none.
 */
export function findConflictMarkers(text: string): ConflictMarker[] {
  const found: ConflictMarker[] = [];
  if (!ANY_MARKER.test(text)) return found;
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const match = MARKER.exec(lines[index]!);
    if (match) found.push({ marker: match[1]!, line: index + 1 });
  }
  return found;
}
