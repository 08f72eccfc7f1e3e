/**
 * `findJsonNestingBeyond` (common/json-nesting.ts) skips strings with `indexOf`: it must answer
 * exactly as a scan of one character at a time does, for every text, including escaped quotes,
 * runs of backslashes, unterminated strings and unbalanced closers.
 */
import { describe, expect, it } from "vitest";
import { findJsonNestingBeyond } from "../../common/json-nesting.js";
import { seededRandom } from "../helpers/seeded-random.js";

/** The plain scan: one character at a time, a backslash in a string skipping the next one. */
function reference(text: string, limit: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++;
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) {
      depth++;
      if (depth > limit) return i;
    } else if (ch === 125 || ch === 93) depth--;
  }
  return undefined;
}

describe("findJsonNestingBeyond", () => {
  it("answers as the character-at-a-time scan on hand-picked texts", () => {
    const cases: [string, number][] = [
      ['[["a"]]', 1],
      ['["[[["]', 1],
      ['["\\"[[["]', 1],
      ['["\\\\"[[]]', 2],
      ['["\\\\\\"[[]]"]', 1],
      ['"unterminated [[[', 0],
      ['"\\', 0],
      ["]]]][[[", 1],
      ['{"a":{"b":[1,{"c":"}}}]"}]}}', 3],
      ["", 0],
    ];
    for (const [text, limit] of cases) expect(findJsonNestingBeyond(text, limit), text).toBe(reference(text, limit));
  });

  it("answers as the character-at-a-time scan on 20,000 random texts of brackets, quotes and backslashes", () => {
    const random = seededRandom(14);
    const alphabet = ['"', "\\", "[", "]", "{", "}", "a", ",", ":", " "];
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      const length = Math.floor(random() * 40);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
      const limit = Math.floor(random() * 4);
      expect(findJsonNestingBeyond(text, limit), JSON.stringify([text, limit])).toBe(reference(text, limit));
    }
  });
});
