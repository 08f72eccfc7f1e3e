/**
 * The `sideEffect` default has one source, `DEFAULT_SIDE_EFFECT` (contract/approval.ts). The
 * authoring API restates it because it is bundled into every tool as a self-contained leaf
 * that imports nothing; this test keeps the two equal (issue 8, "each rule once").
 */
import { expect, test } from "vitest";
import { DEFAULT_SIDE_EFFECT, sideEffectOrDefault } from "../../contract/approval.js";
import { approvalRequired } from "../../runtime-min/authoring/index.js";

test("approvalRequired() without a sideEffect uses the contract's DEFAULT_SIDE_EFFECT", () => {
  expect(approvalRequired("Writes a note.").sideEffect).toBe(DEFAULT_SIDE_EFFECT);
  expect(approvalRequired("Writes a note.", "idempotent").sideEffect).toBe("idempotent");
  expect(sideEffectOrDefault(approvalRequired("Writes a note.").sideEffect)).toBe(DEFAULT_SIDE_EFFECT);
});
