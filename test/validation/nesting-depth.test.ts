/**
 * `nestingDepth` (compiler/validation/json-schema.ts), written without a record per value for
 * speed (issue 14 item 1), against the first version kept here as the reference: same depth
 * for every value and every `stopAt`, on random JSON values and on deep ones.
 */
import { describe, expect, it } from "vitest";
import { nestingDepth } from "../../compiler/validation/json-schema.js";

/** The first version: a stack of `{ value, depth }` for every value, objects or not. */
function reference(value: unknown, stopAt: number): number {
  let max = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    const next = depth + 1;
    if (next > max) max = next;
    if (max >= stopAt) return max;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push({ value: child, depth: next });
  }
  return max;
}

/** A pseudo-random JSON value (a fixed seed, so a failure reproduces). */
function randomValue(next: () => number, depth: number): unknown {
  const kind = depth > 6 ? Math.floor(next() * 4) : Math.floor(next() * 7);
  if (kind === 0) return null;
  if (kind === 1) return next() < 0.5;
  if (kind === 2) return Math.floor(next() * 100);
  if (kind === 3) return "text";
  if (kind === 4) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 4); i > 0; i--) object[`k${i}`] = randomValue(next, depth + 1);
  return object;
}

describe("nestingDepth", () => {
  it("gives the reference's depth for 2,000 random JSON values and every stopAt up to 10", () => {
    let seed = 42;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      const value = randomValue(next, 0);
      for (let stopAt = 0; stopAt <= 10; stopAt++) expect(nestingDepth(value, stopAt)).toBe(reference(value, stopAt));
    }
  });

  it("gives the reference's depth for scalars, empty containers and values nested 100,000 deep, without recursion", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { next: deep };
    for (const value of [null, 1, "x", true, [], {}, [[]], { a: {} }, deep]) {
      for (const stopAt of [0, 1, 2, 65, 1_000_000]) expect(nestingDepth(value, stopAt)).toBe(reference(value, stopAt));
    }
  });
});
