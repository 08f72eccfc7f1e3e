/** The code frame under a diagnostic underlines exactly its span (helper-75's trial, K9). */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { MAX_FRAME_LINE, renderCodeFrame } from "../../diagnostics/code-frame.js";
import { paletteFor } from "../../diagnostics/terminal-color.js";

const babel = (createRequire(import.meta.url)("@babel/code-frame") as typeof import("@babel/code-frame")).codeFrameColumns;
const plain = { colors: paletteFor(false) };

describe("renderCodeFrame", () => {
  it("draws a point and a one-line span as @babel/code-frame did; in colour, only the gutter and markers are coloured", () => {
    const text = "export default {\n  tools: {\n\techo: { descripton: \"Echo.\" }\n  }\n};\n";
    const spans = [
      { line: 3, column: 10, endLine: 3, endColumn: 20 },
      { line: 1, column: 1 },
      { line: 5, column: 2, endLine: 5, endColumn: 3 },
      { line: 6, column: 1 },
      { line: 2, column: 9, endLine: 2, endColumn: 9 },
    ];
    for (const span of spans) {
      const end = span.endLine !== undefined && span.endColumn! > span.column ? { end: { line: span.endLine, column: span.endColumn! } } : {};
      const expected = babel(text, { start: { line: span.line, column: span.column }, ...end }, { highlightCode: false, linesAbove: 2, linesBelow: 1 });
      expect(renderCodeFrame(text, span, plain)).toBe(expected);
      // babel's forceColor also highlighted every file as JavaScript (agent.md too): the source stays as written.
      const coloured = renderCodeFrame(text, span, { colors: paletteFor(true) })!;
      expect(coloured).toContain("\u001b[31m\u001b[1m^\u001b[22m\u001b[39m");
      expect(coloured.replace(/\u001b\[\d+m/g, "")).toBe(expected);
    }
  });

  it("underlines each line of a span over several lines from its text to the span's end, each row as long as its text", () => {
    const text = "---\nname: a\ncapabilities:\n  - hello\n  - search\n  - x\n---\nbody\n";
    expect(renderCodeFrame(text, { line: 4, column: 3, endLine: 6, endColumn: 6 }, plain)).toBe(
      [
        "  2 | name: a",
        "  3 | capabilities:",
        "> 4 |   - hello",
        "    |   ^^^^^^^",
        "> 5 |   - search",
        "    |   ^^^^^^^^",
        "> 6 |   - x",
        "    |   ^^^",
        "  7 | ---",
      ].join("\n"),
    );
    // An end at the start of a later line (a range that took its line end) stops on the line before.
    expect(renderCodeFrame(text, { line: 1, column: 1, endLine: 2, endColumn: 1 }, plain)).toBe(["> 1 | ---", "    | ^^^", "  2 | name: a"].join("\n"));
    // A blank line inside the span is marked but has nothing to underline.
    expect(renderCodeFrame("a: [\n\n  b]\n", { line: 1, column: 4, endLine: 3, endColumn: 5 }, plain)).toBe(
      ["> 1 | a: [", "    |    ^", ">" + " 2 |", "> 3 |   b]", "    |   ^^", "  4 |"].join("\n"),
    );
  });

  it("shows a window of a line longer than MAX_FRAME_LINE around the span, with … for what is left out, the carets under their text", () => {
    const long = `const x = [${"1, ".repeat(400)}"bad"];`;
    const column = long.indexOf('"bad"') + 1;
    const frame = renderCodeFrame(`// a minified file\n${long}\n`, { line: 2, column, endLine: 2, endColumn: column + 5 }, plain)!;
    const [, shown, carets] = frame.split("\n");
    expect(shown!.length).toBeLessThan(MAX_FRAME_LINE + 12);
    expect(shown).toMatch(/^> 2 \| …[ 1,]+"bad"\];$/);
    expect(carets!.indexOf("^")).toBe(shown!.indexOf('"bad"'));
    expect(carets!.replace(/^ *\| */, "")).toBe("^^^^^");
    // A span at the start of a long line: the line's start, and … at its end.
    const head = renderCodeFrame(long, { line: 1, column: 1, endLine: 1, endColumn: 6 }, plain)!;
    expect(head.split("\n")[0]).toBe(`> 1 | ${long.slice(0, MAX_FRAME_LINE)}…`);
    expect(head.split("\n")[1]).toBe("    | ^^^^^");
    // Short lines are shown whole, as before.
    expect(renderCodeFrame("a: 1\n", { line: 1, column: 1 }, plain)).toBe("> 1 | a: 1\n    | ^\n  2 |");
  });

  it("has no frame for a line the text does not have", () => {
    expect(renderCodeFrame("a\n", { line: 9, column: 1 }, plain)).toBeUndefined();
  });
});
