/**
 * Pretty output of `call` and `approve` (`cli/format-call-result.ts`): an `approve` that found
 * the call decided earlier says that nothing ran now, whichever way the recorded call ended.
 */
import { describe, expect, it } from "vitest";
import { formatCallResult } from "../../cli/format-call-result.js";
import type { CallResult } from "../../runtime-min/types.js";

const base = { runId: "run-1", callId: "call-1", tool: "save_note", events: [] } as const;

describe("formatCallResult", () => {
  it("says an approve of a call decided earlier ran nothing, for a call that succeeded and one that failed (new-user review)", () => {
    const ok: CallResult = { ...base, status: "ok", output: { id: 1 }, alreadyDecided: true };
    expect(formatCallResult(ok).split("\n")[0]).toBe("ok save_note (run run-1, call call-1) — already approved; nothing ran");
    const failed: CallResult = {
      ...base,
      status: "failed",
      error: "save is not defined",
      failure: { kind: "execution_error", runCanContinue: true } as CallResult["failure"] & object,
      alreadyDecided: true,
    };
    expect(formatCallResult(failed).split("\n").slice(0, 3)).toEqual([
      "failed execution_error save_note (run run-1, call call-1) — decided earlier; nothing ran now",
      "  save is not defined",
      "  the run continues",
    ]);
    // The first decision's output says nothing of the kind.
    expect(formatCallResult({ ...failed, alreadyDecided: undefined } as CallResult).split("\n")[0]).toBe("failed execution_error save_note (run run-1, call call-1)");
  });
});
