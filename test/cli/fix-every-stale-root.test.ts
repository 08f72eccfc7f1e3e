import { describe, expect, it } from "vitest";
import { fixEveryStaleRoot } from "../../cli/commands/compile.js";
import type { LockfileCheckReport } from "../../lockfile/check-lockfile.js";

const report = (status: LockfileCheckReport["status"], extra: Partial<LockfileCheckReport> = {}): LockfileCheckReport => ({
  status,
  lockPath: "plugins.lock",
  groups: [],
  formattingOnly: false,
  notes: [],
  diff: [],
  diffOmittedLines: 0,
  fixCommand: "npx assembly-line compile x",
  ...extra,
});
const outcome = (displayRoot: string, checkReport?: LockfileCheckReport) => ({ target: { displayRoot }, result: checkReport ? { checkReport } : {} });

describe("fixEveryStaleRoot (the closing line of a pretty --check of several roots)", () => {
  it("names every root whose report ends with a Fix: line, in order, quoted for the shell", () => {
    const line = fixEveryStaleRoot([outcome("agents/ops", report("out-of-date")), outcome("agents/up", report("up-to-date")), outcome("agents/my support", report("missing"))]);
    expect(line).toMatch(/^Fix all 2: .* compile agents\/ops 'agents\/my support' \(then commit each plugins\.lock\)$/);
  });

  it("says nothing for one stale root (its own Fix: line is the command), or for a lock that would drop every tool", () => {
    expect(fixEveryStaleRoot([outcome("a", report("out-of-date")), outcome("b", report("up-to-date"))])).toBeUndefined();
    expect(fixEveryStaleRoot([outcome("a", report("out-of-date")), outcome("b", report("out-of-date", { dropsEveryTool: [{ surfaceId: ".", tools: ["echo"] }] }))])).toBeUndefined();
    expect(fixEveryStaleRoot([outcome("a", report("out-of-date")), outcome("b"), outcome("c", report("not-checked", { fixCommand: undefined }))])).toBeUndefined();
  });
});
