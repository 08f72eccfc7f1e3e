/**
 * Issue 10 items 2 and 7 through the real CLI: `compile --fail-on-change` (what the
 * `assembly-line` pre-commit hook runs), `.assemblyline/.gitignore`, pretty paths relative to
 * the working directory, and `add` showing the package manager's output when it fails.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { copyAgent } from "../helpers/copy-agent.js";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { writeTree } from "../helpers/temp-tree.js";

const echoOf = (root: string): string => path.join(root, "plugins", "example", "ai.assemblyline", "echo.ts");
const git = (cwd: string, ...args: string[]) => spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.org", ...args], { cwd, encoding: "utf8" });

describe("compile --fail-on-change", () => {
  it("exits 0 when the lock did not change, even when the ignored artifact was written", () => {
    const root = copyAgent(supportAgentRoot);
    const run = runCli(["compile", root, "--fail-on-change"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("Packaged");
  });

  it("exits 1 with AL6014 when it rewrote plugins.lock, naming the file to stage; the next run passes", () => {
    const root = copyAgent(supportAgentRoot);
    fs.appendFileSync(echoOf(root), "// changed\n");
    const lockBefore = fs.readFileSync(path.join(root, "plugins.lock"), "utf8");
    const parent = path.dirname(root);
    const run = runCli(["compile", path.basename(root), "--fail-on-change"], { cwd: parent });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`Wrote ${path.join(path.basename(root), "plugins.lock")}`);
    expect(run.stderr).toContain("error AL6014: compile changed support-agent/plugins.lock; stage the change and commit again.");
    expect(run.stderr).toContain("hint: Run `git add support-agent/plugins.lock` and commit again");
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).not.toBe(lockBefore);
    // Only content hashes changed: nothing for the model, so no review is printed.
    expect(run.stderr).not.toContain("changes for the model");
    expect(runCli(["compile", root, "--fail-on-change"]).status).toBe(0);
  });

  it("says what the rewritten lock changes for the model, so a fixer hook never undoes a hand edit silently (new-user trial 119)", () => {
    const root = copyAgent(supportAgentRoot);
    const lockFile = path.join(root, "plugins.lock");
    const lock = fs.readFileSync(lockFile, "utf8");
    fs.writeFileSync(lockFile, lock.replace('"Echo a message back to the caller."', '"Echo a message back to the caller, and send it to me."'));
    // What `compile --check` says of the hand edit (it writes nothing).
    const note = /The files of capability 'example' are unchanged .*edited by hand.*$/m.exec(runCli(["compile", root, "--check", "--no-package"]).stderr)?.[0];
    expect(note).toBeDefined();
    const run = runCli(["compile", root, "--fail-on-change", "--no-package"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error AL6014");
    expect(run.stderr).toContain("What the new plugins.lock changes for the model: 1 change.");
    expect(run.stderr).toMatch(/description-changed +echo +Echo a message back to the caller\[-, and send it to me-\]\.\n/);
    // Said as `compile --check` says it: the files are unchanged, so the lock was edited by hand (new-user trial 120).
    expect(run.stderr).toContain(`note: ${note}\n`);
    expect(run.stderr).toContain("note: staging the rewritten plugins.lock undoes that edit; if it was all the commit held, Git then has nothing to commit.\n");
    expect(fs.readFileSync(lockFile, "utf8")).toBe(lock);
  });

  it("--format json says ok: false with AL6014 and lockChanged: true", () => {
    const root = copyAgent(supportAgentRoot);
    fs.appendFileSync(echoOf(root), "// changed\n");
    const { status, json } = runCliJson(["compile", root, "--fail-on-change", "--no-package"]);
    expect(status).toBe(1);
    expect(json).toMatchObject({ ok: false, lockChanged: true, diagnostics: [{ code: "AL6014", file: "plugins.lock", severity: "error" }] });
  });

  it("counts a changed artifact in an --out directory (one the team commits), not the default one", () => {
    const root = copyAgent(supportAgentRoot);
    const out = path.join(root, "dist-agent");
    const first = runCliJson(["compile", root, "--fail-on-change", "--out", out]);
    expect(first.status).toBe(1);
    expect(first.json.diagnostics.map((d: { code: string }) => d.code)).toEqual(["AL6014"]);
    expect(first.json.diagnostics[0].message).toContain("dist-agent");
    expect(runCli(["compile", root, "--fail-on-change", "--out", out]).status).toBe(0);
  });

  it("without the flag a changed lock still exits 0 (DESIGN §7)", () => {
    const root = copyAgent(supportAgentRoot);
    fs.appendFileSync(echoOf(root), "// changed\n");
    expect(runCli(["compile", root, "--no-package"]).status).toBe(0);
  });
});

describe(".assemblyline/ is ignored by Git", () => {
  it("compile writes .assemblyline/.gitignore holding *, so git status shows nothing from it", () => {
    const root = copyAgent(supportAgentRoot);
    expect(git(root, "init", "-q").status).toBe(0);
    expect(git(root, "add", "-A").status).toBe(0);
    expect(git(root, "commit", "-qm", "agent").status).toBe(0);
    expect(runCli(["compile", root]).status).toBe(0);
    expect(fs.readFileSync(path.join(root, ".assemblyline", ".gitignore"), "utf8")).toMatch(/^\*$/m);
    expect(fs.existsSync(path.join(root, ".assemblyline", "build", "manifest.json"))).toBe(true);
    expect(git(root, "status", "--porcelain", "--untracked-files=all").stdout).toBe("");
    // The runtime's state (call) lands there too and stays ignored.
    const call = runCli(["call", "echo", root, "--input", '{"message":"hi"}', "--execution", "direct"]);
    expect(call.status, call.stderr).toBe(0);
    expect(git(root, "status", "--porcelain", "--untracked-files=all").stdout).toBe("");
  });

  it("keeps a .gitignore the user edited", () => {
    const root = copyAgent(supportAgentRoot);
    fs.mkdirSync(path.join(root, ".assemblyline"));
    fs.writeFileSync(path.join(root, ".assemblyline", ".gitignore"), "cache/\n");
    expect(runCli(["compile", root, "--no-package"]).status).toBe(0);
    expect(fs.readFileSync(path.join(root, ".assemblyline", ".gitignore"), "utf8")).toBe("cache/\n");
  });

  it("compile --check creates no .assemblyline/ at all", () => {
    const root = copyAgent(supportAgentRoot);
    expect(runCli(["compile", root, "--check"]).status).toBe(0);
    expect(fs.existsSync(path.join(root, ".assemblyline"))).toBe(false);
  });
});

describe("pretty output names files from where the command ran", () => {
  it("agent/agent.md:3:3, not agent.md:3:3, when run from the agent's parent folder", () => {
    const parent = writeTree({ "my-agent/agent.md": "---\nname: x\ncapabilities:\n  nowhere: {}\n---\n\nBody.\n" });
    const run = runCli(["compile", "my-agent"], { cwd: parent });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^my-agent\/agent\.md:4:3 - error AL\d{4}: /m);
    // The code frame is still read from the file.
    expect(run.stderr).toContain("> 4 |   nowhere: {}");
    // JSON keeps root-relative paths (DESIGN §7).
    expect(runCliJson(["compile", "my-agent"], { cwd: parent }).json.diagnostics[0].file).toBe("agent.md");
  });

  it("from inside the agent root the paths are root-relative as before", () => {
    const root = writeTree({ "agent.md": "---\nname: x\ncapabilities:\n  nowhere: {}\n---\n" });
    expect(runCli(["compile"], { cwd: root }).stderr).toMatch(/^agent\.md:4:3 - error /m);
  });
});

describe("add shows the package manager's output when it fails", () => {
  it("prints npm's own error text before AL6202", () => {
    const dir = writeTree({
      "agent/agent.md": "---\nname: a\n---\n",
      "broken-plugin/package.json": JSON.stringify({ name: "broken-plugin", version: "1.0.0", scripts: { preinstall: "echo broken-plugin-says-why >&2 && exit 3" } }),
    });
    const run = runCli(["add", "./broken-plugin", "agent"], { cwd: dir, env: { npm_config_offline: "true", npm_config_audit: "false", npm_config_fund: "false" } });
    expect(run.status).toBe(1);
    const said = run.stderr.indexOf("broken-plugin-says-why");
    const diagnostic = run.stderr.indexOf("error AL6202");
    expect(said, run.stderr).toBeGreaterThanOrEqual(0);
    expect(diagnostic).toBeGreaterThan(said);
    expect(run.stderr).toMatch(/^agent\/package\.json:1:1 - error AL6202/m);
  });
});

describe("compile --check --format github|sarif on a stale lock", () => {
  it("also places each changed tool field where the agent writes it (AL6218), so the annotation lands on the pull request's line (new-user trials 119 and 120)", () => {
    const root = copyAgent(supportAgentRoot);
    const entry = path.join(root, "plugins/example/ai.assemblyline/index.ts");
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace('      description: "Echo', '      tags: ["echo"],\n      description: "Echo'));
    fs.writeFileSync(path.join(root, "agent.md"), fs.readFileSync(path.join(root, "agent.md"), "utf8").replace("index: products", "index: docs"));
    const tagsLine = fs.readFileSync(entry, "utf8").split("\n").findIndex((l) => l.includes("tags:")) + 1;
    const keyLine = fs.readFileSync(path.join(root, "agent.md"), "utf8").split("\n").indexOf("  private-search:") + 1;
    const parent = path.dirname(root);
    const agent = path.basename(root);

    const github = runCli(["compile", agent, "--check", "--no-package", "--format", "github"], { cwd: parent });
    expect(github.status).toBe(1);
    const lines = github.stdout.split("\n");
    expect(lines.filter((l) => l.startsWith(`::error file=${agent}/plugins.lock,`) && l.includes("AL6002"))).toHaveLength(1);
    const here = lines.filter((l) => l.includes("AL6218"));
    expect(here).toEqual([
      expect.stringMatching(new RegExp(`^::notice file=${agent}/agent\\.md,line=${keyLine},col=3,.*title=AL6218 at capabilities\\["private-search"\\]\\.config::tools\\.search\\.config\\.index differs from plugins\\.lock: compile the agent again and commit its plugins\\.lock \\(AL6002 on the lock names the command\\)\\.$`)),
      expect.stringMatching(new RegExp(`^::notice file=${agent}/plugins/example/ai\\.assemblyline/index\\.ts,line=${tagsLine},col=13,.*title=AL6218 at tools\\.echo\\.tags::tools\\.echo\\.tags differs from plugins\\.lock: compile the agent again and commit its plugins\\.lock \\(AL6002 on the lock names the command\\)\\.$`)),
    ]);

    const sarif = JSON.parse(runCli(["compile", agent, "--check", "--no-package", "--format", "sarif"], { cwd: parent }).stdout);
    const placed = sarif.runs[0].results.filter((r: any) => r.ruleId === "AL6218").map((r: any) => r.locations[0].physicalLocation.artifactLocation.uri);
    expect(placed.sort()).toEqual([`${agent}/agent.md`, `${agent}/plugins/example/ai.assemblyline/index.ts`]);
    // The pretty report has the diff instead: no notices there.
    expect(runCli(["compile", agent, "--check", "--no-package"], { cwd: parent }).stderr).not.toContain("AL6218");
  });
});
