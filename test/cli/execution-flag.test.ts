/**
 * `--execution` of `call` and `approve` (cli/commands/call-flags.ts, `parseExecution`): a
 * mistyped mode is AL8042 with "Did you mean …?" when it is a near miss, else a hint naming both
 * modes (README trial of 6 December, C7: `--execution drect` had no hint at all).
 */
import { describe, expect, it } from "vitest";
import { parseExecution } from "../../cli/commands/call-flags.js";
import { RuntimeError } from "../../runtime-min/errors.js";

function refusal(value: string) {
  try {
    parseExecution(value);
  } catch (error) {
    expect(error).toBeInstanceOf(RuntimeError);
    return (error as RuntimeError).diagnostics[0];
  }
  throw new Error(`--execution ${value} was accepted`);
}

describe("--execution", () => {
  it("takes sandbox (the default) and direct", () => {
    expect(parseExecution(undefined)).toBe("sandbox");
    expect(parseExecution("sandbox")).toBe("sandbox");
    expect(parseExecution("direct")).toBe("direct");
  });

  it("refuses anything else with AL8042: did you mean for a near miss, both modes otherwise", () => {
    const nearMiss = refusal("drect");
    expect(nearMiss?.code).toBe("AL8042");
    expect(nearMiss?.message).toBe("--execution 'drect' is not one of: sandbox, direct.");
    expect(nearMiss?.hint).toBe("Did you mean 'direct'?");
    const far = refusal("vm");
    expect(far?.code).toBe("AL8042");
    expect(far?.hint).toMatch(/^Leave the flag out to run tools in the sandbox \(the default\), or pass --execution direct/);
  });
});
