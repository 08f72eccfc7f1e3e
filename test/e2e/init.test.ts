/**
 * `assembly-line init` (issue 10 item 3), end to end with the real CLI: in an empty folder,
 * init → compile → call works; the tsconfig it writes type-checks the starter plugin against
 * the authoring API; an existing file stops init before anything is written.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { printedCli, runCli, runCliJson } from "../helpers/run-cli.js";
import { writeStarterAgent } from "../helpers/starter-agent.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

/** Every file under `root`: relative POSIX path → text, sorted by path. */
function filesOf(root: string): Record<string, string> {
  const files = fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const entries = files.map((e) => [path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"), fs.readFileSync(path.join(e.parentPath, e.name), "utf8")] as const);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe("assembly-line init", () => {
  it("starts an agent that compiles and whose tool runs (init → compile → call)", () => {
    const parent = tempDir("al-init-");
    const init = runCli(["init", "Support Bot"], { cwd: parent });
    expect(init.status, init.stderr).toBe(0);
    // The next steps as a shell takes them: the folder quoted, and the CLI as it was started here
    // (no install in this folder: its path; test/e2e/next-step-command.test.ts runs the lines).
    const cli = printedCli(parent);
    expect(init.stdout).toContain(`Next:\n  ${cli} compile 'Support Bot'\n  ${cli} call hello 'Support Bot' --input '{"name":"Ada"}'\n`);
    const root = path.join(parent, "Support Bot");
    const files = fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"));
    expect(files.sort()).toEqual([".gitignore", "agent.md", "plugins/hello/ai.assemblyline/hello.ts", "plugins/hello/ai.assemblyline/index.ts", "plugins/hello/plugin.json", "tsconfig.json"]);
    expect(fs.readFileSync(path.join(root, "agent.md"), "utf8")).toMatch(/^---\nname: support-bot\n/);
    expect(fs.readFileSync(path.join(root, ".gitignore"), "utf8")).toContain(".assemblyline/\n");
    const tsconfig = JSON.parse(fs.readFileSync(path.join(root, "tsconfig.json"), "utf8"));
    expect(tsconfig.compilerOptions.plugins).toEqual([{ name: "@assemblyline-agents/assembly-line/ts-plugin" }]);
    expect(fs.existsSync(path.resolve(root, tsconfig.compilerOptions.paths["@assemblyline-agents/core"][0]))).toBe(true);

    const compile = runCliJson(["compile"], { cwd: root });
    expect(compile.json, compile.stderr).toMatchObject({ ok: true, diagnostics: [], lockChanged: true, artifact: ".assemblyline/build" });
    const call = runCliJson(["call", "hello", "--input", '{"name":"Ada"}'], { cwd: root });
    expect(call.status, call.stderr).toBe(0);
    expect(call.json).toMatchObject({ status: "ok", output: { greeting: "Hello, Ada!" } });
  });

  it("writes the files the tests' in-process starter agent writes (test/helpers/starter-agent.ts), byte for byte", () => {
    const viaCli = path.join(tempDir("al-init-same-"), "agent");
    expect(runCli(["init", viaCli]).status).toBe(0);
    // The same depth below the OS temporary folder: the tsconfig's paths to dist/ are relative.
    const inProcess = writeStarterAgent(path.join(tempDir("al-init-same-"), "agent"));
    const written = filesOf(viaCli);
    expect(Object.keys(written)).toContain("tsconfig.json");
    expect(filesOf(inProcess)).toEqual(written);
  });

  it("writes a tsconfig.json under which the starter plugin type-checks against the authoring API", () => {
    const root = path.join(tempDir("al-init-tsc-"), "typed");
    expect(runCli(["init", root]).status).toBe(0);
    const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    const clean = spawnSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.json")], { encoding: "utf8" });
    expect(clean.stdout + clean.stderr, "tsc on the fresh agent").toBe("");
    expect(clean.status).toBe(0);
    // The wiring is real: a wrong field in defineTool is a type error, and so is an asset import the declarations do not cover.
    const tool = path.join(root, "plugins", "hello", "ai.assemblyline", "hello.ts");
    fs.writeFileSync(tool, fs.readFileSync(tool, "utf8").replace("async execute(", "async exeucte("));
    fs.writeFileSync(path.join(root, "plugins", "hello", "ai.assemblyline", "prompt.ts"), 'import prompt from "./prompt.md";\nexport const text: string = prompt;\n');
    const broken = spawnSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.json")], { encoding: "utf8" });
    expect(broken.status).not.toBe(0);
    expect(broken.stdout).toContain("hello.ts");
    expect(broken.stdout).not.toContain("prompt.ts");
  });

  it("in a project that installed the toolchain, maps the types through ./node_modules and catches a misspelt descriptor key", () => {
    // As `npm install --save-dev <checkout>` leaves it: node_modules/@assemblyline-agents/assembly-line is a link.
    const project = tempDir("al-init-project-");
    fs.mkdirSync(path.join(project, "node_modules", "@assemblyline-agents"), { recursive: true });
    fs.symlinkSync(repoRoot, path.join(project, "node_modules", "@assemblyline-agents", "assembly-line"));
    expect(runCli(["init"], { cwd: project }).status).toBe(0);
    const tsconfig = JSON.parse(fs.readFileSync(path.join(project, "tsconfig.json"), "utf8"));
    // A paths entry without "./" is TS5090 when no baseUrl is set; a path into the toolchain's own folder breaks other checkouts.
    expect(tsconfig.compilerOptions.paths["@assemblyline-agents/core"]).toEqual(["./node_modules/@assemblyline-agents/assembly-line/dist/runtime-min/authoring/index.d.ts"]);
    const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    const clean = spawnSync(process.execPath, [tsc, "-p", path.join(project, "tsconfig.json")], { encoding: "utf8" });
    expect(clean.stdout + clean.stderr).toBe("");
    const entry = path.join(project, "plugins", "hello", "ai.assemblyline", "index.ts");
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace("description:", "descripton:"));
    const typo = spawnSync(process.execPath, [tsc, "-p", path.join(project, "tsconfig.json")], { encoding: "utf8" });
    expect(typo.stdout).toContain("Did you mean to write 'description'?");
  });

  it("for a subagent, the next steps compile the parent agent and call through its surface (new-user trial of 6 December)", () => {
    const root = path.join(tempDir("al-init-sub-"), "agent");
    expect(runCli(["init", root]).status).toBe(0);
    const run = runCli(["init", "subagents/reviewer"], { cwd: root });
    expect(run.status, run.stderr).toBe(0);
    const next = run.stdout.slice(run.stdout.indexOf("Next:")).split("\n").slice(1, 3).map((line) => line.trim());
    expect(next[0]).toMatch(/ compile$/);
    expect(next[1]).toMatch(/ call hello --surface subagents\/reviewer --input '\{"name":"Ada"\}'$/);
    // Followed as printed, in the parent: one lock, the subagent a surface of it.
    expect(runCli(["compile"], { cwd: root }).status).toBe(0);
    expect(fs.existsSync(path.join(root, "subagents", "reviewer", "plugins.lock"))).toBe(false);
    const called = runCli(["call", "hello", "--surface", "subagents/reviewer", "--input", '{"name":"Ada"}', "--format", "json"], { cwd: root });
    expect(JSON.parse(called.stdout)).toMatchObject({ status: "ok" });
  });

  it("refuses to overwrite: one existing file and nothing is written (AL9101, exit 1)", () => {
    const root = tempDir("al-init-refuse-");
    fs.writeFileSync(path.join(root, "agent.md"), "mine\n");
    const run = runCli(["init", root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error AL9101: init would overwrite");
    expect(run.stderr).toContain("agent.md");
    expect(fs.readdirSync(root)).toEqual(["agent.md"]);
    expect(fs.readFileSync(path.join(root, "agent.md"), "utf8")).toBe("mine\n");
  });

  it("refuses init again in an agent with one error naming the files in the way, not one per file (new-user trial M33)", () => {
    const root = path.join(tempDir("al-init-again-"), "agent");
    expect(runCli(["init", root]).status).toBe(0);
    const before = fs.readFileSync(path.join(root, "agent.md"), "utf8");
    const run = runCli(["init", root]);
    expect(run.status).toBe(1);
    expect(run.stderr.split("error AL9101").length - 1).toBe(1);
    // Every file of the starter agent in the way is named (four: its .gitignore and tsconfig.json
    // would be kept, as a project's), agent.md first.
    expect(run.stderr).toMatch(/init would overwrite \S*agent\.md, (\S+, ){1}\S+ and \S+ \(\S+ has an agent\.md: it is an agent already\); nothing was written\./);
    expect(run.stderr).not.toContain("more file");
    expect(fs.readFileSync(path.join(root, "agent.md"), "utf8")).toBe(before);
  });

  it("in an existing project, keeps its tsconfig.json with a note (AL9103) and adds to its .gitignore (helper-67)", () => {
    const root = tempDir("al-init-project-");
    fs.writeFileSync(path.join(root, "tsconfig.json"), "{}\n");
    fs.writeFileSync(path.join(root, ".gitignore"), "dist\n");
    const run = runCli(["init", root]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("  .gitignore (added .assemblyline/, node_modules/)\n");
    expect(run.stderr).toContain("info AL9103: ");
    expect(run.stderr).toContain("hint: Add to its compilerOptions (an object of that name, if it has none): \"paths\"");
    expect(fs.readFileSync(path.join(root, "tsconfig.json"), "utf8")).toBe("{}\n");
  });

  it("refuses a target that is a file (AL9102)", () => {
    const file = path.join(tempDir("al-init-file-"), "agent");
    fs.writeFileSync(file, "");
    const run = runCli(["init", file]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error AL9102");
  });

  it("agrees with compile about an agent.md link that leads to no file: both say it is a broken link", () => {
    const root = tempDir("al-init-broken-link-");
    fs.symlinkSync("nowhere.md", path.join(root, "agent.md"));
    const compile = runCliJson(["compile"], { cwd: root });
    expect(compile.json.diagnostics.map((d: { code: string; message: string }) => [d.code, d.message])).toEqual([["AL1002", "agent.md could not be read: it is a symbolic link to 'nowhere.md', which does not exist."]]);
    const init = runCli(["init"], { cwd: root });
    expect(init.status).toBe(1);
    expect(init.stderr).toContain("error AL9101: init would overwrite agent.md (agent.md could not be read: it is a symbolic link to 'nowhere.md', which does not exist); nothing was written.\n");
    expect(init.stderr).toContain("hint: Point the link at an existing file (ln -sf <file> agent.md), or replace it with a regular agent.md.\n");
    expect(fs.readlinkSync(path.join(root, "agent.md"))).toBe("nowhere.md");
  });
});
