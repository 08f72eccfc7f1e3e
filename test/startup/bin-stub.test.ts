/**
 * The package's bin, `dist/bin/assembly-line.cjs` (scripts/build-cli-bundle.mjs, written by
 * `pretest`'s build): its exit code is the command's, a command that throws fails, and one whose
 * work never settles exits with 13 and says so (as the ES module bin's unsettled top-level await
 * did), never 0, unless it ends the process itself. The host commands run from the host bundle,
 * which gets the CLI bundle on demand; every other command runs from the CLI bundle. Run against
 * stand-in bundles beside a copy of the bin.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

/**
 * A copy of the bin in `<dir>/bin/`, with a stand-in code cache, and stand-in bundles whose
 * `run` is `run`: the CLI bundle's, and the host bundle's (called with the CLI bundle's loader as
 * its third argument) unless `hostRun` is given.
 */
function binWith(run: string, hostRun = run): string {
  const dir = tempDir("al-bin-stub-");
  fs.mkdirSync(path.join(dir, "bin"));
  fs.mkdirSync(path.join(dir, "cli-bundle"));
  const bin = path.join(dir, "bin", "assembly-line.cjs");
  fs.copyFileSync(path.join(repoRoot, "dist", "bin", "assembly-line.cjs"), bin);
  fs.writeFileSync(path.join(dir, "cli-bundle", "code-cache.cjs"), "exports.commandKind = () => 'other';\nexports.installCodeCache = () => {};\n");
  fs.writeFileSync(path.join(dir, "cli-bundle", "assembly-line.cjs"), `exports.run = ${run};\nexports.answer = 42;\n`);
  fs.writeFileSync(path.join(dir, "cli-bundle", "host.cjs"), `exports.run = ${hostRun};\n`);
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

  it("runs the host commands from the host bundle, which loads the CLI bundle only when it asks, and everything else from the CLI bundle", () => {
    const which = (command: string) => {
      // The host bundle exits 7, or the CLI bundle's `answer` when it loads it for a command named "call".
      const bin = binWith("async () => 1", "async (argv, early, cliBundle) => (argv[0] === 'call' ? cliBundle().answer : 7)");
      return spawnSync(process.execPath, [bin, command], { encoding: "utf8" }).status;
    };
    expect(["tools", "search", "approve"].map(which)).toEqual([7, 7, 7]);
    expect(which("call")).toBe(42);
    expect(["compile", "inputs", "init", "validate", "add", "review", "lsp", "--help", "tool"].map(which)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it("refuses an unsupported Node.js with one line naming both versions, before loading anything, and still answers --version", () => {
    const dir = tempDir("al-bin-node-");
    // A preload that makes this Node.js report an old version, as Node 18 would.
    const preload = path.join(dir, "old-node.cjs");
    fs.writeFileSync(preload, 'Object.defineProperty(process.versions, "node", { value: "18.19.0" });\n');
    const bin = path.join(repoRoot, "dist", "bin", "assembly-line.cjs");
    const refused = spawnSync(process.execPath, ["--require", preload, bin, "compile", dir], { encoding: "utf8" });
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^assembly-line: this toolchain needs Node\.js >=\S+ \(its package\.json "engines"\), and this is Node\.js 18\.19\.0: .*nothing was done\.\n$/);
    // Nothing of the compile ran: no lock, no cache folder.
    expect(fs.readdirSync(dir)).toEqual(["old-node.cjs"]);
    const version = spawnSync(process.execPath, ["--require", preload, bin, "--version"], { encoding: "utf8" });
    expect([version.status, version.stdout]).toEqual([0, `${JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version}\n`]);
  });
});
