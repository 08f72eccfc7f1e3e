/**
 * `firstInvalidUtf8Byte` agrees with the platform's strict UTF-8 decoder, and
 * `invalidUtf8Location` points where an editor shows the replacement character (helper-73's
 * report, defect 13: AL1003 always said 1:1).
 */
import { describe, expect, it } from "vitest";
import { firstInvalidUtf8Byte, invalidUtf8Location } from "../../common/invalid-utf8.js";
import { seededRandom } from "../helpers/seeded-random.js";

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const isValid = (bytes: Uint8Array): boolean => {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe("firstInvalidUtf8Byte", () => {
  it("finds stray, cut-short, overlong, surrogate and too-large sequences at their first byte", () => {
    const at = (...bytes: number[]) => firstInvalidUtf8Byte(Uint8Array.from(bytes));
    expect(at(0x61, 0x62)).toBeUndefined();
    expect(at(0x43, 0x61, 0x66, 0xe9, 0x0a)).toBe(3);
    expect(at(0x61, 0x80)).toBe(1);
    expect(at(0x61, 0xe2, 0x82)).toBe(1);
    expect(at(0xc0, 0xaf)).toBe(0);
    expect(at(0xed, 0xa0, 0x80)).toBe(0);
    expect(at(0xf4, 0x90, 0x80, 0x80)).toBe(0);
    expect(at(0xef, 0xbf, 0xbd, 0xf0, 0x9f, 0x98, 0x80, 0xff)).toBe(7);
  });

  it("agrees with TextDecoder's fatal mode on random bytes (seed 74)", () => {
    const random = seededRandom(74);
    const pool = [0x41, 0x0a, 0x80, 0x9f, 0xa0, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
    for (let round = 0; round < 5000; round++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 8) }, () => pool[Math.floor(random() * pool.length)]!);
      const at = firstInvalidUtf8Byte(bytes);
      expect(at === undefined, `round ${round}: ${[...bytes]}`).toBe(isValid(bytes));
      if (at !== undefined) expect(isValid(bytes.subarray(0, at)), `round ${round}`).toBe(true);
    }
  });
});

describe("invalidUtf8Location", () => {
  it("counts lines and UTF-16 columns of the text before the byte, a byte order mark taking none", () => {
    const bytes = Buffer.concat([Buffer.from("\uFEFF---\r\nname: x\r\n---\r\nCafé 😀 au "), Buffer.from([0xe9]), Buffer.from(" lait\n")]);
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    expect(invalidUtf8Location("agent.md", text, bytes)).toEqual({ file: "agent.md", line: 4, column: 12, endLine: 4, endColumn: 13 });
    expect(invalidUtf8Location("agent.md", text, undefined)).toEqual({ file: "agent.md", line: 4, column: 12, endLine: 4, endColumn: 13 });
    expect(invalidUtf8Location("agent.md", "fine", Buffer.from("fine"))).toBeUndefined();
  });
});
