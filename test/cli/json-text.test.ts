/**
 * `cli/output.ts`'s JSON text: DEL (U+007F) and the C1 controls (U+0080–U+009F), which
 * `JSON.stringify` leaves raw, are escaped, so no `--format json` document sends a terminal
 * reading 8-bit controls a CSI (U+009B) (README trial of 6 December); the text is still JSON and
 * parses to the same value.
 */
import { describe, expect, it } from "vitest";
import { escapeRawControls, jsonText } from "../../cli/output.js";

const controls = Array.from({ length: 0x9f - 0x7f + 1 }, (_, i) => String.fromCharCode(0x7f + i)).join("");

describe("jsonText", () => {
  it("escapes every one of U+007F–U+009F, in keys and values, and parses back to the same value", () => {
    const value = { [`key${controls}`]: [`value${controls}`, { nested: "\u009b31m" }], plain: "é\u00a0ü" };
    const text = jsonText(value, 2);
    expect(text).not.toMatch(/[\u007f-\u009f]/);
    expect(text).toContain('"\\u009b31m"');
    expect(text).toContain("\\u007f\\u0080\\u0081");
    // What JSON.stringify writes otherwise, indentation included; U+00A0 and letters stay as they are.
    expect(text).toContain('"plain": "é\u00a0ü"');
    expect(JSON.parse(text)).toEqual(value);
    expect(jsonText({ a: 1 })).toBe('{"a":1}');
  });

  it("escapeRawControls does the same to JSON text a lower layer wrote (the contract review, SARIF)", () => {
    const written = JSON.stringify({ message: "bad\u0085name" });
    expect(escapeRawControls(written)).toBe('{"message":"bad\\u0085name"}');
    expect(JSON.parse(escapeRawControls(written))).toEqual(JSON.parse(written));
  });
});
