/**
 * `jsonEqual` (compiler/validation/drift.ts), the descriptor-drift check's structural equality,
 * written with plain loops (issue 14 item 1): it must decide exactly as the first version did,
 * on equal values in another key order, on near misses and on random values.
 */
import { describe, expect, it } from "vitest";
import { setOwn, type JsonValue } from "../../common/json-value.js";
import { jsonEqual } from "../../compiler/validation/drift.js";
import { seededRandom } from "../helpers/seeded-random.js";

/** The first version, kept as the reference. */
function reference(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  const isObject = (v: JsonValue): v is { [key: string]: JsonValue } => v !== null && typeof v === "object" && !Array.isArray(v);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => reference(item, b[i]!));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && reference(a[key]!, b[key]!));
  }
  return false;
}

/** A random JSON value of small depth, with keys and leaves from small pools so that pairs often match. */
function randomValue(next: () => number, depth: number): JsonValue {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 8));
  if (pick === 0) return null;
  if (pick === 1) return next() < 0.5;
  if (pick === 2) return Math.floor(next() * 3);
  if (pick === 3 || pick === 4) return ["a", "b", ""][Math.floor(next() * 3)]!;
  if (pick === 5) return Array.from({ length: Math.floor(next() * 3) }, () => randomValue(next, depth + 1));
  const out: { [key: string]: JsonValue } = {};
  for (const key of ["x", "y", "__proto__", "0"].filter(() => next() < 0.5)) setOwn(out, key, randomValue(next, depth + 1));
  return out;
}

/** `value` rebuilt with its object keys in reverse order. */
function reordered(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: JsonValue } = {};
  const object = value as { readonly [key: string]: JsonValue };
  for (const key of Object.keys(object).reverse()) setOwn(out, key, reordered(object[key]!));
  return out;
}

describe("jsonEqual", () => {
  it("ignores key order, and tells apart types, lengths, missing keys and own __proto__ keys", () => {
    const withProto: { [key: string]: JsonValue } = {};
    setOwn(withProto, "__proto__", 1);
    const cases: [JsonValue, JsonValue, boolean][] = [
      [{ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }, true],
      [[1, 2], [1, 2, 3], false],
      [{}, [], false],
      [[], {}, false],
      [null, {}, false],
      [{ a: undefined as unknown as JsonValue }, { b: 1 }, false],
      [withProto, {}, false],
      [withProto, { __proto__: 1 } as unknown as JsonValue, false],
      ["1", 1, false],
    ];
    for (const [a, b, equal] of cases) {
      expect(jsonEqual(a, b), JSON.stringify([a, b])).toBe(equal);
      expect(jsonEqual(b, a), JSON.stringify([b, a])).toBe(equal);
      expect(reference(a, b)).toBe(equal);
    }
  });

  it("decides as the first version did on 5,000 random pairs, and on each value against its reordered copy", () => {
    const next = seededRandom(14);
    let equalPairs = 0;
    for (let i = 0; i < 5_000; i++) {
      const a = randomValue(next, 0);
      const b = next() < 0.3 ? reordered(a) : randomValue(next, 0);
      const expected = reference(a, b);
      if (expected) equalPairs += 1;
      expect(jsonEqual(a, b)).toBe(expected);
      expect(jsonEqual(a, reordered(a))).toBe(true);
    }
    expect(equalPairs).toBeGreaterThan(500);
  });
});
