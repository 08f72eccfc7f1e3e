import { describe, expect, it } from "vitest";
import { withDataLimitHint } from "../../runtime-min/sandbox/limit-messages.js";

describe("withDataLimitHint (runtime-min/sandbox/limit-messages.ts)", () => {
  it("names the host's memory limit when a Buffer could not be allocated (new-user trial 112, C9)", () => {
    expect(withDataLimitHint("Array buffer allocation failed", 64, 384)).toBe(
      "Array buffer allocation failed (the sandbox process's memory is bounded by the host: 384 MiB in all for a JavaScript heap of 64 MiB, memoryMb; process the data in smaller pieces, or raise the limit with --memory-mb MB or host.memoryMb / RuntimeOptions.memoryMb)",
    );
  });

  it("leaves every other error as the tool reported it", () => {
    expect(withDataLimitHint("Database unavailable", 64, 384)).toBe("Database unavailable");
    expect(withDataLimitHint("Invalid array buffer length", 64, 384)).toBe("Invalid array buffer length");
  });
});
