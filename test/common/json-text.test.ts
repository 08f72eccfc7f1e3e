/**
 * The one reader of JSON with positions (common/json-text.ts, issue 8 "each rule once"): the
 * lock's reader and the runtime's artifact locator both go through it, and every JSON reader
 * words a syntax error from the same list.
 */
import { describe, expect, it } from "vitest";
import { JsonPositions, jsonSyntaxWords, parseJsonText } from "../../common/json-text.js";
import { locateProperty, parseJsonText as parseLockText } from "../../lockfile/json-text.js";
import { JsonLocator } from "../../runtime-min/artifact/json-locator.js";
import { parseJsonDocument } from "../../compiler/plugin-package/json-document.js";

const TEXT = '{\n  "surfaces": {\n    ".": { "tools": ["a", "b"] }\n  }\n}\n';

describe("JsonPositions.locate", () => {
  const positions = new JsonPositions("x.json", TEXT);

  it("points at a member's value, its name, or both", () => {
    expect(positions.locate(["surfaces", "."])).toEqual({ file: "x.json", line: 3, column: 10, endLine: 3, endColumn: 33 });
    expect(positions.locate(["surfaces", "."], "key")).toEqual({ file: "x.json", line: 3, column: 5, endLine: 3, endColumn: 8 });
    expect(positions.locate(["surfaces", "."], "property")).toEqual({ file: "x.json", line: 3, column: 5, endLine: 3, endColumn: 33 });
  });

  it("finds array items by index, and falls back to the nearest existing ancestor, then line 1", () => {
    expect(positions.locate(["surfaces", ".", "tools", 1])).toMatchObject({ line: 3, column: 27 });
    expect(positions.locate(["surfaces", ".", "missing"], "key")).toMatchObject({ line: 3, column: 10 });
    expect(new JsonPositions("e.json", "").locate(["a"])).toEqual({ file: "e.json", line: 1, column: 1 });
  });

  it("skips a byte order mark (it takes no column)", () => {
    expect(new JsonPositions("b.json", `\uFEFF{"a": 1}`).locate(["a"])).toMatchObject({ line: 1, column: 7 });
  });

  it("never overflows the stack on absurd nesting (locations fall back to line 1)", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    expect(new JsonPositions("d.json", deep).locate([0, 0])).toEqual({ file: "d.json", line: 1, column: 1 });
  });
});

describe("parseJsonText", () => {
  it("gives the value and its positions", () => {
    const parsed = parseJsonText("x.json", TEXT);
    expect(parsed.ok && parsed.value).toEqual({ surfaces: { ".": { tools: ["a", "b"] } } });
    expect(parsed.ok && parsed.positions.locate(["surfaces"], "key")).toMatchObject({ line: 2, column: 3 });
  });

  it("refuses nesting deeper than its limit at the first bracket beyond it, valid JSON or not (too deep is reported first)", () => {
    const valid = `{"a": [\n  ${"[".repeat(5)}1${"]".repeat(5)}]}`;
    // Seven levels: the object, its array, five more arrays on line 2 (columns 3 to 7).
    expect(parseJsonText("x.json", valid, 7)).toMatchObject({ ok: true });
    expect(parseJsonText("x.json", valid, 6)).toMatchObject({ ok: false, reason: "nesting deeper than 6 levels is not supported", location: { line: 2, column: 7 } });
    expect(parseJsonText("x.json", valid, 5)).toMatchObject({ ok: false, location: { line: 2, column: 6 } });
    expect(parseJsonText("x.json", `\uFEFF${valid}`, 6)).toMatchObject({ ok: false, location: { line: 2, column: 7 } });
    expect(parseJsonText("x.json", `${valid},`, 6)).toMatchObject({ ok: false, reason: "nesting deeper than 6 levels is not supported" });
    expect(parseJsonText("x.json", `${valid},`, 7)).toMatchObject({ ok: false, reason: "nothing may follow the top-level value" });
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    expect(parseJsonText("d.json", deep)).toMatchObject({ ok: false, location: { line: 1 } });
    // A repeated key: JSON.parse keeps the last copy, so the value alone would hide the deep first one (review of 794a048).
    const hidden = `{"a": ${"[".repeat(300)}${"]".repeat(300)}, "a": 1}`;
    expect(parseJsonText("h.json", hidden)).toMatchObject({ ok: false, reason: "nesting deeper than 256 levels is not supported", location: { line: 1, column: 262 } });
  });

  it("reports the first syntax error in our words, at its place", () => {
    expect(parseJsonText("x.json", '{\n  "a": 1,\n}')).toMatchObject({ ok: false, reason: "a property name in double quotes is expected", location: { line: 3, column: 1 } });
    expect(parseJsonText("x.json", "[1] [2]")).toMatchObject({ ok: false, reason: "nothing may follow the top-level value", location: { line: 1, column: 5 } });
  });
});

describe("one reader behind the lock, the runtime and the compiler", () => {
  it("the lock's locateProperty and the runtime's JsonLocator agree with the shared reader", () => {
    const lock = parseLockText("plugins.lock", TEXT);
    const shared = new JsonPositions("plugins.lock", TEXT);
    if (!lock.ok) throw new Error("the text is valid JSON");
    expect(locateProperty(lock, ["surfaces", "."], true)).toEqual(shared.locate(["surfaces", "."], "key"));
    expect(new JsonLocator("plugins.lock", TEXT).locate(["surfaces", "."])).toEqual(shared.locate(["surfaces", "."], "property"));
  });

  it("plugin.json and the lock word the same syntax error the same way", () => {
    const text = '{ "name": "a" "version": "1" }';
    const lock = parseLockText("plugins.lock", text);
    const manifest = parseJsonDocument("plugin.json", text);
    expect(lock.ok ? undefined : lock.reason).toBe("',' is expected");
    expect(manifest.syntaxError?.message).toBe("',' is expected");
    expect(jsonSyntaxWords(6 /* CommaExpected */)).toBe("',' is expected");
  });
});
