/**
 * `compile` where the file system refuses what it must read or write is a diagnostic and exit 1,
 * never an internal error (helper-73: a read-only agent crashed at the compile record's stamp, and
 * a folder the configuration search could not read crashed in cosmiconfig's own set-up). The
 * refusal is made here with a path too long to use (the agent root is 4,080 characters deep, so
 * its agent.md can be read but nothing under `.assemblyline/cache` can be made): the same throw
 * as a permission error, and one the tests' root user cannot bypass.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath } from "../helpers/run-cli.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

/** An agent with nothing in it but an agent.md, `depth` characters deep (default 4,080). */
function deepAgent(depth = 4080): string {
  let dir = tempDir("al-deep-");
  while (dir.length + 251 <= depth) dir = path.join(dir, "d".repeat(250));
  dir = path.join(dir, "e".repeat(depth - dir.length - 1));
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "agent.md"), "---\nname: deep\n---\nBe brief.\n");
  return dir;
}

/** `compile . …args` run in `cwd` (short relative paths in the output). */
function compileIn(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [cliPath, "compile", ".", "--format", "json", ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, json: run.stdout ? JSON.parse(run.stdout) : undefined };
}

describe("compile where the file system refuses a path", () => {
  it("a configuration search that cannot read a folder is AL9112 with a hint that fits, exit 1", () => {
    const root = deepAgent();
    const run = compileIn(root);
    expect(run.output).not.toContain("internal error");
    expect(run.status).toBe(1);
    expect(run.json.diagnostics[0]).toMatchObject({ code: "AL9112" });
    expect(run.json.diagnostics[0].hint).toMatch(/^The search for a configuration reads the agent's folder/);
  });

  it("a compile that cannot make .assemblyline/ is AL7050, exit 1, and writes no lock", () => {
    const root = deepAgent();
    const run = compileIn(root, "--no-config");
    expect(run.output).not.toContain("internal error");
    expect(run.status).toBe(1);
    expect(run.json.diagnostics.map((d: { code: string }) => d.code)).toEqual(["AL7050"]);
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
  });
});

describe("add where the agent root cannot take a package.json", () => {
  it("is AL6212 (created, not read), before anything is installed", () => {
    // 4,084 characters: agent.md (4,093) can be read, package.json (4,097) cannot be made.
    const root = deepAgent(4084);
    const out = tempDir("al-pack-");
    const packed = spawnSync("npm", ["pack", "--pack-destination", out, "--silent"], { cwd: path.join(repoRoot, "test/fixtures/lockfile/packs/openui"), encoding: "utf8" });
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = path.join(out, packed.stdout.trim().split("\n").pop()!);
    // --no-config: the configuration's search cannot read this root either (AL9112, the first test).
    const run = spawnSync(process.execPath, [cliPath, "add", `file:${tarball}`, ".", "--as", "cards", "--no-config"], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    const output = `${run.stdout}${run.stderr}`;
    expect(output).not.toContain("internal error");
    expect(run.status).toBe(1);
    expect(output).toContain("error AL6212: package.json could not be created in the agent root");
    expect(fs.readdirSync(root)).toEqual(["agent.md"]);
  }, 60_000);
});
