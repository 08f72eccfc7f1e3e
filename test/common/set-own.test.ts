/**
 * `setOwn` (common/json-value.ts): every key becomes an own, enumerable, writable, configurable
 * data property, the prototype never changes, whether it takes the assignment shortcut (a plain
 * object and a key it does not hold yet) or `Object.defineProperty`.
 */
import { describe, expect, it } from "vitest";
import { setOwn } from "../../common/json-value.js";

const KEYS = ["a", "__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "0", "10", "", "__defineGetter__", "isPrototypeOf"];

function defined(target: object, key: string, value: unknown): object {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

describe("setOwn", () => {
  it("gives what Object.defineProperty gives, on plain, null-prototype and filled objects", () => {
    const makers: (() => object)[] = [() => ({}), () => Object.create(null) as object, () => ({ a: 1, toString: 2 }), () => JSON.parse('{"__proto__": {"x": 1}, "b": 2}') as object];
    for (const make of makers) {
      for (const key of KEYS) {
        const mine = make();
        const theirs = make();
        setOwn(mine, key, { v: key });
        defined(theirs, key, { v: key });
        expect(Object.getPrototypeOf(mine)).toBe(Object.getPrototypeOf(theirs));
        expect(Reflect.ownKeys(mine)).toEqual(Reflect.ownKeys(theirs));
        expect(Object.getOwnPropertyDescriptor(mine, key)).toEqual(Object.getOwnPropertyDescriptor(theirs, key));
      }
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("overwrites a key the object holds, and refuses a frozen object as defineProperty does", () => {
    const object: Record<string, unknown> = { a: 1 };
    setOwn(object, "a", 2);
    expect(object).toEqual({ a: 2 });
    expect(() => setOwn(Object.freeze({}), "a", 1)).toThrow(TypeError);
  });
});
