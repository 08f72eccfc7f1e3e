/**
 * `findJsonNestingBeyond` (common/json-nesting.ts) skips strings with `indexOf`: it must answer
 * exactly as a scan of one character at a time does, for every text, including escaped quotes,
 * runs of backslashes, unterminated strings and unbalanced closers. `jsonValueNestsBeyond`,
 * which `parseJsonText` asks of the parsed value, must answer as the scan of its text does.
 */
import { describe, expect, it } from "vitest";
import { findJsonNestingBeyond, jsonValueNestsBeyond } from "../../common/json-nesting.js";
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

describe("jsonValueNestsBeyond", () => {
  /** A random JSON value up to `depth` levels: objects (with `__proto__` and repeated keys among theirs), arrays, strings with brackets, numbers, null. */
  function randomValue(random: () => number, depth: number): unknown {
    const pick = random();
    if (depth === 0 || pick < 0.3) return [null, 1, "[{", '"}]', true][Math.floor(random() * 5)];
    const size = Math.floor(random() * 4);
    if (pick < 0.65) return Array.from({ length: size }, () => randomValue(random, depth - 1));
    const keys = ["a", "__proto__", "b", "[", "a"];
    return JSON.parse(`{${Array.from({ length: size }, () => `${JSON.stringify(keys[Math.floor(random() * keys.length)])}:${JSON.stringify(randomValue(random, depth - 1))}`).join(",")}}`);
  }

  it("answers as the scan of the value's text, on 5,000 random values and every limit up to their depth", () => {
    const random = seededRandom(40);
    for (let n = 0; n < 5_000; n++) {
      const value = randomValue(random, 7);
      const text = JSON.stringify(value, null, n % 2 === 0 ? 2 : undefined);
      for (let limit = 0; limit <= 8; limit++) {
        expect(jsonValueNestsBeyond(JSON.parse(text), limit), JSON.stringify([text, limit])).toBe(findJsonNestingBeyond(text, limit) !== undefined);
      }
    }
  });

  it("walks a value nested a million levels without a stack overflow", () => {
    const text = `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`;
    expect(jsonValueNestsBeyond(JSON.parse(text), 256)).toBe(true);
    expect(jsonValueNestsBeyond(JSON.parse(text), 1_000_000)).toBe(false);
  });
});
