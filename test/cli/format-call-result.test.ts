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

// helper-89's review, finding 6: a hostile tool's error, stack, event types and output reached
// the terminal raw, so escape sequences could clear the screen or print a false "ok" over "failed".
describe("formatCallResult with a hostile tool's words", () => {
  const ESC = "\u001b";
  it("shows control characters as pictures in the error, failure kind, event types and data, stack lines and output", () => {
    const failed = {
      ...base,
      status: "failed",
      error: `boom ${ESC}]0;PWNED${"\u0007"}${ESC}[2J\rFAKE ok`,
      failure: { kind: `${ESC}[32mok`, runCanContinue: true },
      events: [{ type: `note${ESC}[2K`, stack: `Error: x${ESC}[1A\n    at y`, data: "\u009b31m" }],
    } as unknown as CallResult;
    const text = formatCallResult(failed);
    expect(text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
    expect(text).toContain("boom ␛]0;PWNED␇␛[2J␍FAKE ok");
    expect(text.split("\n")[0]).toBe("failed ␛[32mok save_note (run run-1, call call-1)");
    expect(text).toContain("note␛[2K");
    expect(text).toContain("Error: x␛[1A");
    const ok = formatCallResult({ ...base, status: "ok", output: { text: `a\u0085b${"\u007f"}` } } as CallResult);
    expect(ok).toContain('"text": "a\uFFFDb\u2421"');
  });
});
