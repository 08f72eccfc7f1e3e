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
 * Finds Git conflict markers: seven `<`, `|`, `=` or `>` at the start of a line, followed by
 * a space, a tab or the end of the line. A canonical lock never has such a line (every line
 * of it starts with a space, `{` or `}`), so any marker means a merge left both sides in the
 * file. CRLF and LF line ends are both understood.
 *
 * @returns the markers in file order; empty when there are none.
 */
export function findConflictMarkers(text: string): ConflictMarker[] {
  const found: ConflictMarker[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const match = MARKER.exec(lines[index]!);
    if (match) found.push({ marker: match[1]!, line: index + 1 });
  }
  return found;
}
