/** The shared cache of compiled validators by schema content (contract/validators-by-content.ts). */
import { describe, expect, it } from "vitest";
import { ValidatorsByContent } from "../../contract/validators-by-content.js";

describe("ValidatorsByContent", () => {
  it("compiles equal content once, and each object is remembered; another key order is other content (ajv's defaults and errors follow it)", () => {
    const cache = new ValidatorsByContent<string>();
    let compiles = 0;
    const compile = () => `v${++compiles}`;
    const a = { type: "object", properties: { x: { type: "string" } } };
    expect(cache.get(a, compile)).toBe("v1");
    expect(cache.get({ type: "object", properties: { x: { type: "string" } } }, compile)).toBe("v1");
    expect(cache.get(a, compile)).toBe("v1");
    expect(cache.get({ properties: { x: { type: "string" } }, type: "object" }, compile)).toBe("v2");
    expect(cache.get({ type: "string" }, compile)).toBe("v3");
    expect(compiles).toBe(3);
  });
  it("keeps an undefined result, and nothing when the compile throws", () => {
    const cache = new ValidatorsByContent<string | undefined>();
    let compiles = 0;
    expect(cache.get({ bad: 1 }, () => (compiles++, undefined))).toBeUndefined();
    expect(cache.get({ bad: 1 }, () => (compiles++, "other"))).toBeUndefined();
    expect(() => cache.get({ throws: 1 }, () => { compiles++; throw new Error("no"); })).toThrow("no");
    expect(cache.get({ throws: 1 }, () => (compiles++, "now"))).toBe("now");
    expect(compiles).toBe(3);
  });
  it("drops the least recently used content beyond its bound", () => {
    const cache = new ValidatorsByContent<number>(2);
    let compiles = 0;
    const ask = (n: number) => cache.get({ n }, () => ++compiles);
    ask(1);
    ask(2);
    ask(1); // 1 is now the most recent
    ask(3); // drops 2
    expect(compiles).toBe(3);
    ask(1);
    expect(compiles).toBe(3);
    ask(2);
    expect(compiles).toBe(4);
  });
});
