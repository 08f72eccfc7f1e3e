/**
 * The package's bin, `dist/bin/assembly-line.cjs` (scripts/build-cli-bundle.mjs, written by
 * `pretest`'s build): its exit code is the command's, a command that throws fails, and one whose
 * work never settles exits with 13 and says so (as the ES module bin's unsettled top-level await
 * did), never 0, unless it ends the process itself. Run against stand-in bundles beside a copy of the bin.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

/** A copy of the bin in `<dir>/bin/`, with a stand-in code cache and a bundle whose `run` is `run`. */
function binWith(run: string): string {
  const dir = tempDir("al-bin-stub-");
  fs.mkdirSync(path.join(dir, "bin"));
  fs.mkdirSync(path.join(dir, "cli-bundle"));
  const bin = path.join(dir, "bin", "assembly-line.cjs");
  fs.copyFileSync(path.join(repoRoot, "dist", "bin", "assembly-line.cjs"), bin);
  fs.writeFileSync(path.join(dir, "cli-bundle", "code-cache.cjs"), "exports.commandKind = () => 'other';\nexports.installCodeCache = () => {};\n");
  fs.writeFileSync(path.join(dir, "cli-bundle", "assembly-line.cjs"), `exports.run = ${run};\n`);
  return bin;
}

describe("the bin", () => {
  it("exits with the command's code, fails a command that throws, and exits 13 for one that never settles", () => {
    const run = (body: string) => spawnSync(process.execPath, [binWith(body), "tools"], { encoding: "utf8" });
    expect(run("async () => 3").status).toBe(3);
    expect(run("async () => 0").status).toBe(0);
    const thrown = run('async () => { throw new Error("broken"); }');
    expect(thrown.status).toBe(1);
    expect(thrown.stderr).toContain("broken");
    const unsettled = run("() => new Promise(() => {})");
    expect(unsettled.status).toBe(13);
    expect(unsettled.stderr).toContain("assembly-line: the command stopped before it finished.");
    // A command that ends the process itself (the language server after its exit notification) decides the code.
    const ended = run("() => new Promise(() => { setTimeout(() => process.exit(0), 10); })");
    expect([ended.status, ended.stderr]).toEqual([0, ""]);
  });
});
