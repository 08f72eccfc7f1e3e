/**
 * `setOwn` (common/json-value.ts): every key becomes an own, enumerable, writable, configurable
 * data property, the prototype never changes, whether it takes the assignment shortcut (a plain
 * object and a key it does not hold yet) or `Object.defineProperty`.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { setOwn } from "../../common/json-value.js";
import { repoRoot } from "../helpers/temp-tree.js";

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

  it("sets a key of Object.prototype as its own even where a host froze Object.prototype", () => {
    const module = pathToFileURL(path.join(repoRoot, "dist", "common", "json-value.js")).href;
    // Frozen, `toString` is read-only, so an assignment to a plain object's `toString` throws.
    const script = `const { setOwn } = await import(${JSON.stringify(module)}); Object.freeze(Object.prototype); const o = {}; setOwn(o, "toString", 1); setOwn(o, "a", 2); process.stdout.write(JSON.stringify(Object.getOwnPropertyDescriptors(o)));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const data = { enumerable: true, writable: true, configurable: true };
    expect(JSON.parse(run.stdout)).toEqual({ toString: { value: 1, ...data }, a: { value: 2, ...data } });
  });

  it("overwrites a key the object holds, and refuses a frozen object as defineProperty does", () => {
    const object: Record<string, unknown> = { a: 1 };
    setOwn(object, "a", 2);
    expect(object).toEqual({ a: 2 });
    expect(() => setOwn(Object.freeze({}), "a", 1)).toThrow(TypeError);
  });
});
