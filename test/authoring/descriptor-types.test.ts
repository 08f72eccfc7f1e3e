/**
 * Issue 9 part 3: the authoring types catch descriptor typos in `tsc` too. The real TypeScript
 * compiler (the repo's 6.0) checks `test/fixtures/descriptor-types/`: each misspelt key or
 * wrong enum value fails with TypeScript's own "Did you mean" error at that key, and the
 * correct entry passes with its literal types kept. `needsApproval.sideEffect` is open: a custom
 * label (`"billing"`) passes (helper-78 D4), and a near miss is `compile`'s warning AL4032.
 *
 * One `tsc` run checks the whole folder (the correct entry, `valid.ts`, with the wrong ones: the
 * files import nothing from each other, so each file's diagnostics are what a run over it alone
 * gives); each test reads its files' lines from it. A `tsc` run costs about 2 s of CPU.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/temp-tree.js";

const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
const fixtures = path.join(repoRoot, "test", "fixtures", "descriptor-types");

/** Runs `tsc --noEmit -p <project>` in the fixture folder; returns its exit status and error lines. */
function runTsc(project: string) {
  const run = spawnSync(process.execPath, [tsc, "--noEmit", "--pretty", "false", "-p", project], { encoding: "utf8", cwd: fixtures });
  const errors = run.stdout.split(/\r?\n/).filter((line) => / error TS\d+:/.test(line));
  return { status: run.status, output: run.stdout + run.stderr, errors };
}

let run: ReturnType<typeof runTsc>;
beforeAll(() => {
  run = runTsc("tsconfig.json");
}, 120_000);

describe("defineAssemblyLinePlugin's types", () => {
  it("pass on a correct entry and keep its literal types, custom sideEffect labels included", () => {
    expect(run.output).toContain("misspelt-key.ts"); // the run checked the folder
    expect(run.output.split(/\r?\n/).filter((line) => line.includes("valid.ts"))).toEqual([]);
    // Every line of the run is one of the wrong files' errors (below): nothing else failed.
    expect(run.output.split(/\r?\n/).filter((line) => line !== "" && !/^(misspelt-approval-key|misspelt-key|misspelt-plugin-key|wrong-visibility)\.ts\(/.test(line))).toEqual([]);
  });

  it("fail on misspelt keys and wrong enum values, each at its key, with TypeScript's did-you-mean", () => {
    expect(run.status).not.toBe(0);
    expect(run.errors).toEqual([
      "misspelt-approval-key.ts(9,44): error TS2561: Object literal may only specify known properties, but 'sideEfect' does not exist in type 'DescriptorApproval'. Did you mean to write 'sideEffect'?",
      "misspelt-key.ts(7,7): error TS2561: Object literal may only specify known properties, but 'descripton' does not exist in type 'ToolDescriptor'. Did you mean to write 'description'?",
      "misspelt-plugin-key.ts(4,3): error TS2561: Object literal may only specify known properties, but 'configSchma' does not exist in type 'AssemblyLinePlugin'. Did you mean to write 'configSchema'?",
      `wrong-visibility.ts(9,7): error TS2820: Type '"defered"' is not assignable to type '"visible" | "deferred" | "hidden" | undefined'. Did you mean '"deferred"'?`,
    ]);
  });
});
