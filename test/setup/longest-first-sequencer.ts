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
 * or from the run changes nothing. Durations are from a whole-suite run in a fresh clone
 * (2-core machine, three workers, 2 December 2026); update the list when a file's cost changes.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Test files, relative to the repository root, slowest first (seconds in a fresh clone's run). */
export const SLOWEST_FIRST: readonly string[] = [
  "test/e2e/pre-commit-hooks.test.ts", // 72 s
  "test/bench/run-quick.test.ts", // 68 s
  // 71 s before helper-124 (68 CLI runs, now 33: about 0.65 of its CPU, so about 45 s).
  "test/e2e/project-config.test.ts",
  "test/e2e/compile-up-to-date.test.ts", // 42 s
  "test/editor/lsp-stdio.test.ts", // 27 s
  "test/e2e/monorepo.test.ts", // 26 s
  "test/runtime/cli.test.ts", // 25 s
  "test/e2e/lockfile-cli.test.ts", // 25 s
  "test/startup/startup-cli.test.ts", // 22 s
  "test/editor/ts-plugin.test.ts", // 22 s
  // 27 s before helper-124 (25 compiles of the token families, now 9: about 0.7 of its CPU, so about 19 s).
  "test/config/secret-scan.test.ts",
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
