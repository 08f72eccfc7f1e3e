/**
 * `findConflictMarkers` (lockfile/conflict-markers.ts): the whole-text pre-check that skips
 * splitting a marker-free lock into lines (issue 14 item 1) finds exactly what the line-by-line
 * scan finds.
 */
import { describe, expect, it } from "vitest";
import { findConflictMarkers, type ConflictMarker } from "../../lockfile/conflict-markers.js";

/** The scan without the pre-check: every line of `text.split("\n")`. */
function reference(text: string): ConflictMarker[] {
  const found: ConflictMarker[] = [];
  text.split("\n").forEach((line, index) => {
    const match = /^(<{7}|\|{7}|={7}|>{7})(?=[ \t\r\n]|$)/.exec(line);
    if (match) found.push({ marker: match[1]!, line: index + 1 });
  });
  return found;
}

describe("findConflictMarkers", () => {
  it("finds markers at line starts, with LF and CRLF, and none in a canonical lock", () => {
    expect(findConflictMarkers('{\n  "a": 1\n}\n')).toEqual([]);
    expect(findConflictMarkers("<<<<<<< HEAD\r\n{}\r\n=======\r\n{}\r\n>>>>>>> other\r\n")).toEqual([
      { marker: "<<<<<<<", line: 1 },
      { marker: "=======", line: 3 },
      { marker: ">>>>>>>", line: 5 },
    ]);
    expect(findConflictMarkers("x\n|||||||")).toEqual([{ marker: "|||||||", line: 2 }]);
  });

  it("ignores markers after a lone CR or a Unicode line separator, as the line scan does", () => {
    for (const text of ["a\r<<<<<<< x\n", "a\u2028<<<<<<< x", "a\u2029=======", "  <<<<<<< x", "<<<<<<<< x", "<<<<<<<x"]) {
      expect(findConflictMarkers(text)).toEqual([]);
      expect(reference(text)).toEqual([]);
    }
  });

  it("agrees with the line-by-line scan on 5,000 generated texts", () => {
    let seed = 11;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ["<<<<<<<", "=======", ">>>>>>>", "|||||||", "<<<<<<", "=", " ", "\t", "\n", "\r\n", "\r", "\u2028", "x", '  "k": 1,', "{", "}"];
    for (let i = 0; i < 5000; i++) {
      const text = Array.from({ length: next(12) }, () => pieces[next(pieces.length)]!).join("");
      expect(findConflictMarkers(text)).toEqual(reference(text));
    }
  });
});
