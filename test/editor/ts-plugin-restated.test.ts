/**
 * One problem, one diagnostic in tsserver (helper-75's trial, K7): our AL4001 is left out where
 * TypeScript reports the same excess property at the same span (TS2353, TS2561).
 */
import type * as ts from "typescript";
import { describe, expect, it } from "vitest";
import { withoutRestated } from "../../editor/ts-plugin/index.js";

const at = (code: number, start: number, length: number, source?: string) => ({ code, start, length, category: 1, messageText: `${code}`, file: undefined, ...(source ? { source } : {}) }) as ts.Diagnostic;

describe("withoutRestated", () => {
  it("drops our unknown field where TypeScript reports that excess property at the same span", () => {
    const ours = [at(994001, 120, 10, "assembly-line"), at(994026, 40, 5, "assembly-line")];
    expect(withoutRestated([at(2561, 120, 10)], ours)).toEqual([ours[1]]);
    expect(withoutRestated([at(2353, 120, 10)], ours)).toEqual([ours[1]]);
  });

  it("keeps ours where TypeScript says nothing there, or something else", () => {
    const ours = [at(994001, 120, 10, "assembly-line")];
    expect(withoutRestated([], ours)).toEqual(ours);
    expect(withoutRestated([at(2561, 121, 10)], ours)).toEqual(ours);
    expect(withoutRestated([at(2322, 120, 10)], ours)).toEqual(ours);
  });
});
