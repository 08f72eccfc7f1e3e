/**
 * Generated run and call ids (`runtime-min/execution/ids.ts`): valid ids, never repeated, and —
 * issue 14 item 2 — increasing in the order a process generates them, so the calls of a run that
 * take generated ids append to the end of state.db's `(run_id, call_id)` index.
 */
import { describe, expect, it } from "vitest";
import { checkId, newId } from "../../runtime-min/execution/ids.js";

describe("newId", () => {
  it("generates valid, distinct ids of each kind", () => {
    const ids = [...Array.from({ length: 500 }, () => newId("call")), ...Array.from({ length: 500 }, () => newId("run"))];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 500)) expect(checkId(id, "call")).toMatch(/^call_[0-9a-f]{36}$/);
    for (const id of ids.slice(500)) expect(checkId(id, "run")).toMatch(/^run_[0-9a-f]{36}$/);
  });

  it("ids sort in the order they were generated (random UUIDs would not)", () => {
    const ids = Array.from({ length: 300 }, () => newId("call"));
    expect([...ids].sort()).toEqual(ids);
    // One process part, a count after it.
    expect(new Set(ids.map((id) => id.slice(0, "call_".length + 24))).size).toBe(1);
  });
});
