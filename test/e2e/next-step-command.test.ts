/**
 * The commands the CLI prints for the user to run next (`init`'s "Next:" lines, hints) start the
 * way the user can run this toolchain where they are (`common/cli-command.ts`), end to end with
 * the real built CLI: new-user trials helper-67 and helper-69 ran it by path in a project without
 * the package installed, where the printed `npx assembly-line …` would have sent npx to the
 * registry for whatever package of that name it has. Each printed line is then run by a shell,
 * as the user would paste it.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath, runCli } from "../helpers/run-cli.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

/** The "Next:" lines `init` printed, without their indent. */
function nextSteps(stdout: string): string[] {
  const at = stdout.indexOf("\nNext:\n");
  expect(at, stdout).toBeGreaterThanOrEqual(0);
  return stdout.slice(at + "\nNext:\n".length).split("\n").filter((line) => line.startsWith("  ")).map((line) => line.trim());
}

/** Runs `line` with `sh -c` in `cwd`, as a user pastes it (colour off; `PATH` as given). */
function shell(line: string, cwd: string, pathVariable = process.env["PATH"] ?? ""): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync("sh", ["-c", line], { cwd, encoding: "utf8", env: { ...process.env, PATH: pathVariable, NO_COLOR: "1", FORCE_COLOR: "0" }, timeout: 120_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe.skipIf(process.platform === "win32")("printed next steps", () => {
  it("in a project without the package, name the CLI by its path (not npx), and the lines run", () => {
    const project = tempDir("al-next-bare-");
    fs.writeFileSync(path.join(project, "package.json"), '{ "name": "bare", "private": true }\n');
    const init = runCli(["init", "my agent"], { cwd: project });
    expect(init.status, init.stderr).toBe(0);
    const [compile, call] = nextSteps(init.stdout);
    expect(compile).toBe(`node ${cliPath} compile 'my agent'`);
    expect(call).toBe(`node ${cliPath} call hello 'my agent' --input '{"name":"Ada"}'`);
    expect(init.stdout).not.toContain("npx");
    const compiled = shell(compile!, project);
    expect(compiled.status, compiled.stderr).toBe(0);
    expect(compiled.stdout).toMatch(/^Wrote .*plugins\.lock/m);
    const called = shell(call!, project);
    expect(called.status, called.stderr).toBe(0);
    expect(called.stdout).toContain("Hello, Ada!");
    // A hint says the same: AL1001 from inside the agent names the root above with the path form.
    const inside = runCli(["compile"], { cwd: path.join(project, "my agent", "plugins", "hello") });
    expect(inside.stderr).toContain(`run \`node ${cliPath} compile ../..\``);
  });

  it("in a project that installed the package, say npx assembly-line, which runs the installed bin without the registry", () => {
    const project = tempDir("al-next-installed-");
    fs.writeFileSync(path.join(project, "package.json"), '{ "name": "installed", "private": true }\n');
    // As `npm install -D` lays it out: the package in node_modules, its bin linked in node_modules/.bin.
    fs.mkdirSync(path.join(project, "node_modules", "@assemblyline-agents"), { recursive: true });
    fs.mkdirSync(path.join(project, "node_modules", ".bin"));
    fs.symlinkSync(repoRoot, path.join(project, "node_modules", "@assemblyline-agents", "assembly-line"));
    fs.symlinkSync("../@assemblyline-agents/assembly-line/dist/bin/assembly-line.cjs", path.join(project, "node_modules", ".bin", "assembly-line"));
    const init = spawnSync(process.execPath, [path.join(project, "node_modules", ".bin", "assembly-line"), "init", "agent"], { cwd: project, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    expect(init.status, init.stderr).toBe(0);
    const [compile] = nextSteps(init.stdout);
    expect(compile).toBe("npx assembly-line compile agent");
    // --no: npx must find the local bin; it fails rather than ask the registry when it does not.
    const compiled = shell(compile!.replace(/^npx /, "npx --no "), project);
    expect(compiled.status, compiled.stderr).toBe(0);
    expect(compiled.stdout).toMatch(/^Wrote .*plugins\.lock/m);
  });

  it("run from PATH (a global install), say the bin name alone, which the same PATH finds", () => {
    const bin = tempDir("al-next-global-bin-");
    fs.symlinkSync(cliPath, path.join(bin, "assembly-line"));
    const project = tempDir("al-next-global-");
    const onPath = `${bin}${path.delimiter}${process.env["PATH"] ?? ""}`;
    const init = shell("assembly-line init", project, onPath);
    expect(init.status, init.stderr).toBe(0);
    const [compile] = nextSteps(init.stdout);
    expect(compile).toBe("assembly-line compile");
    const compiled = shell(compile!, project, onPath);
    expect(compiled.status, compiled.stderr).toBe(0);
    expect(compiled.stdout).toMatch(/^Wrote .*plugins\.lock/m);
  });
});
