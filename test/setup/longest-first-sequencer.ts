/**
 * The order `npm test` starts its files in. vitest's own order runs the files it has timed
 * before longest first, but a fresh clone (and CI) has no timings, and then vitest starts the
 * largest files first. Some of the slowest files are small ones that wait on whole processes
 * (pre-commit's `npm install`, `bench/run.mjs --quick`), so they started late and the run ended
 * on their tail, one worker busy while the others idled.
 *
 * This sequencer starts the files named in {@link SLOWEST_FIRST} first, in that order, and the
 * rest in vitest's order (longest first when timed, else largest first): the longest-processing-
 * time-first rule for spreading jobs over workers. The list only orders; a file missing from it
 * or from the run changes nothing. Durations are from a whole-suite run on an otherwise idle
 * 2-core machine (three workers, 7 December 2026: 412 s); update the list when a file's cost
 * changes (it names the files that took 15 s or more; the 2 December list missed three of them,
 * the slowest among them, which then started in vitest's untimed order: by size).
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Test files, relative to the repository root, slowest first (seconds in a fresh clone's run). */
export const SLOWEST_FIRST: readonly string[] = [
  "test/runtime/commit-crash.test.ts", // 64 s (whole processes killed mid-commit, three rounds each)
  "test/e2e/pre-commit-hooks.test.ts", // 56 s
  "test/bench/run-quick.test.ts", // 53 s
  "test/e2e/add-cli.test.ts", // 45 s
  "test/e2e/compile-up-to-date.test.ts", // 39 s
  "test/build/plugin-reuse.test.ts", // 35 s (own process)
  "test/editor/ts-plugin.test.ts", // 26 s
  "test/e2e/model-facing-cli.test.ts", // 25 s
  "test/e2e/project-config.test.ts", // 25 s
  "test/common/code-cache.test.ts", // 25 s
  "test/runtime/host-policy.test.ts", // 22 s
  "test/editor/lsp-stdio.test.ts", // 21 s
  "test/e2e/lockfile-cli.test.ts", // 21 s
  "test/runtime/cli.test.ts", // 20 s
  "test/startup/host-bundle.test.ts", // 17 s
  "test/e2e/monorepo.test.ts", // 17 s
  "test/e2e/compile-first.test.ts", // 17 s
  "test/runtime/lease.test.ts", // 17 s
];

/** vitest's sequencer with {@link SLOWEST_FIRST} moved to the front (`sequence.sequencer` in vitest.config.ts). */
export default class LongestFirstSequencer extends BaseSequencer {
  /** Takes the run's files; returns them in start order (vitest's order, the named slow files first). */
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (file: TestSpecification): number => {
      const index = SLOWEST_FIRST.indexOf(relativeTo(root, file.moduleId));
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the files not named keep vitest's order.
    return ordered.sort((a, b) => rank(a) - rank(b));
  }
}

/** `file` relative to `root`, with `/` separators. */
function relativeTo(root: string, file: string): string {
  const normalized = file.replaceAll("\\", "/");
  const prefix = root.replaceAll("\\", "/").replace(/\/?$/, "/");
  return normalized.startsWith(prefix) ? normalized.slice(prefix.length) : normalized;
}
