/**
 * The suite's start order (test/setup/longest-first-sequencer.ts): the named slow files first, in
 * their order, the rest in vitest's own order; every named file exists.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import LongestFirstSequencer, { SLOWEST_FIRST } from "./longest-first-sequencer.js";
import { repoRoot } from "../helpers/temp-tree.js";

/** A run's file as the sequencer sees it: one project, no timings; `size` is what vitest orders untimed files by. */
function spec(file: string): TestSpecification {
  const project = { name: "", config: { sequence: { groupOrder: 0 }, isolate: true } };
  return { moduleId: path.join(repoRoot, file), project } as unknown as TestSpecification;
}

/** A vitest context with no recorded timings and the given file sizes. */
function context(sizes: Record<string, number>): Vitest {
  const cache = {
    getFileTestResults: () => undefined,
    getFileStats: (key: string) => ({ size: sizes[key.slice(1)] ?? 0 }),
  };
  return { config: { root: repoRoot }, cache } as unknown as Vitest;
}

describe("the longest-first sequencer", () => {
  it("starts the named slow files first, in their order, and keeps vitest's order for the rest", async () => {
    const sizes = { "test/a/big.test.ts": 900, "test/a/mid.test.ts": 500, [SLOWEST_FIRST[2]!]: 10, [SLOWEST_FIRST[0]!]: 20, "test/a/small.test.ts": 1 };
    const files = Object.keys(sizes).map(spec);
    const sorted = await new LongestFirstSequencer(context(sizes)).sort(files);
    expect(sorted.map((f) => path.relative(repoRoot, f.moduleId).replaceAll("\\", "/"))).toEqual([
      SLOWEST_FIRST[0],
      SLOWEST_FIRST[2],
      "test/a/big.test.ts",
      "test/a/mid.test.ts",
      "test/a/small.test.ts",
    ]);
  });

  it("names only test files that exist", () => {
    for (const file of SLOWEST_FIRST) expect(fs.existsSync(path.join(repoRoot, file)), file).toBe(true);
  });
});
