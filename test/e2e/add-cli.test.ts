/**
 * Issue 3 item 7 through the real CLI, offline: a fixture plugin packed with `npm pack` is
 * added from its tarball; agent.md keeps its comments; the lock pins name, version and
 * integrity; a second add changes nothing; compile refuses an installed version that differs
 * from the lock.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { printedCli, runCli, runCliJson } from "../helpers/run-cli.js";
import { repoRoot, writeTree } from "../helpers/temp-tree.js";

const pack = path.join(repoRoot, "test/fixtures/lockfile/packs/openui");
let tarball: string;

beforeAll(() => {
  const out = writeTree({}, "al-pack-");
  const run = spawnSync("npm", ["pack", "--pack-destination", out, "--silent"], { cwd: pack, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  tarball = path.join(out, run.stdout.trim().split("\n").pop()!);
}, 120_000);

const hintOf = (stderr: string): string => /^ {2}hint: (.*)$/m.exec(stderr)?.[1] ?? "";

const AGENT_MD = `---
name: demo # the agent's name
# Capabilities: keep this comment.
capabilities:
  openui:
    config:
      brand:
        name: Example
        footer: Example | Confidential
---

Be helpful.
`;

describe("assembly-line add", () => {
  it("in an agent folder below the repository's root, says that folder's package.json must be installed in CI too (new-user trial 115, B1)", () => {
    const repo = writeTree({ ".git/HEAD": "ref: refs/heads/main\n", "agents/bot/agent.md": AGENT_MD });
    const run = runCli(["add", `file:${tarball}`, path.join(repo, "agents/bot")]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("@assemblyline-agents/openui is a dependency of agents/bot/package.json, a project of its own below the repository's root: commit it with its package-lock.json, and install it in CI too (`npm ci --prefix agents/bot`");
    // At the repository's root (no .git above: the agent folder is the repository) there is nothing to say.
    const alone = writeTree({ "agent.md": AGENT_MD });
    expect(runCli(["add", `file:${tarball}`, alone]).stdout).not.toContain("a project of its own");
  });

  it("in an npm workspace finds the package where npm hoisted it, and names the agent folder's new package.json (new-user trial 119, B1)", () => {
    const repo = writeTree({
      ".git/HEAD": "ref: refs/heads/main\n",
      "package.json": `${JSON.stringify({ name: "team", private: true, workspaces: ["agents/*"] }, null, 2)}\n`,
      "agents/support/agent.md": AGENT_MD,
    });
    const agent = path.join(repo, "agents/support");
    // The root installed before the agent folder had a package.json: its lockfile does not list
    // the member, and npm installs nothing into it until the root registers it (new-user trial 120).
    const rootInstall = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--offline"], { cwd: repo, encoding: "utf8" });
    expect(rootInstall.status, rootInstall.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(repo, "package-lock.json"), "utf8")).packages["agents/support"]).toBeUndefined();
    const run = runCli(["add", `file:${tarball}`, agent]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("Added openui (@assemblyline-agents/openui@1.0.0): capabilities.openui in agent.md, pinned in plugins.lock.");
    // npm hoisted it to the workspace root; the agent folder's package.json is a named workspace member with the dependency.
    expect(fs.existsSync(path.join(repo, "node_modules/@assemblyline-agents/openui/package.json"))).toBe(true);
    expect(fs.existsSync(path.join(agent, "node_modules/@assemblyline-agents/openui"))).toBe(false);
    const manifest = JSON.parse(fs.readFileSync(path.join(agent, "package.json"), "utf8"));
    expect(manifest).toMatchObject({ name: "support", private: true, dependencies: { "@assemblyline-agents/openui": expect.stringMatching(/^file:/) } });
    expect(fs.existsSync(path.join(agent, "package-lock.json"))).toBe(false);
    expect(run.stdout).toContain("a workspace package: commit it with the workspace root's lockfile, whose install (`npm ci` at the root) installs it.");
    expect(JSON.parse(fs.readFileSync(path.join(agent, "plugins.lock"), "utf8")).surfaces["."].capabilities.openui.source).toMatchObject({ type: "npm", name: "@assemblyline-agents/openui", version: "1.0.0" });
    expect(runCli(["compile", agent, "--check"]).status).toBe(0);
    // node_modules behind the lock (a branch switch without an install): the hint installs at the
    // workspace root, whose lockfile lists the member's dependencies (new-user trial 125), not in the member.
    const installed = path.join(repo, "node_modules/@assemblyline-agents/openui/package.json");
    fs.writeFileSync(installed, fs.readFileSync(installed, "utf8").replace('"version": "1.0.0"', '"version": "1.0.1"'));
    const behind = runCliJson(["compile", "agents/support", "--check"], { cwd: repo });
    expect(behind.json.diagnostics[0]).toMatchObject({ code: "AL6008" });
    expect(behind.json.diagnostics[0].hint).toMatch(/Run `npm install`\.$/);
    expect(behind.json.diagnostics[0].hint).not.toContain("cd agents/support");
    const fromAgent = runCliJson(["compile", ".", "--check"], { cwd: agent });
    expect(fromAgent.json.diagnostics[0].hint).toMatch(/Run `cd \.\.\/\.\. && npm install`\.$/);
  }, 120_000);

  it("reports a workspace's own plugin package at its folder in the repository, not at the node_modules link npm made (new-user trial 119, C4)", () => {
    const repo = writeTree({
      ".git/HEAD": "ref: refs/heads/main\n",
      "package.json": `${JSON.stringify({ name: "team", private: true, workspaces: ["agents/*", "packages/*"] }, null, 2)}\n`,
      "agents/support/agent.md": AGENT_MD,
    });
    fs.cpSync(pack, path.join(repo, "packages/openui"), { recursive: true });
    const entry = path.join(repo, "packages/openui/ai.assemblyline/index.ts");
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace('      description: "Render rows', '      descripton: "Render rows'));
    // What npm install does for a workspace package: a link in the root's node_modules.
    fs.mkdirSync(path.join(repo, "node_modules/@assemblyline-agents"), { recursive: true });
    fs.symlinkSync("../../packages/openui", path.join(repo, "node_modules/@assemblyline-agents/openui"));
    fs.writeFileSync(path.join(repo, "agents/support/agent.md"), AGENT_MD.replace("  openui:\n", '  openui:\n    package: "@assemblyline-agents/openui"\n'));
    const line = fs.readFileSync(entry, "utf8").split("\n").findIndex((l) => l.includes("descripton:")) + 1;
    const github = runCli(["compile", "agents/support", "--check", "--format", "github"], { cwd: repo });
    expect(github.status).toBe(1);
    expect(github.stdout).toContain(`::error file=packages/openui/ai.assemblyline/index.ts,line=${line},col=7,`);
    expect(github.stdout).not.toContain("node_modules/");
    const pretty = runCli(["compile", "agents/support", "--check"], { cwd: repo });
    expect(pretty.stderr).toContain(`packages/openui/ai.assemblyline/index.ts:${line}:7 - error AL4001`);
    // A second agent selecting the same package: one annotation, not one per agent (new-user trial 120).
    fs.mkdirSync(path.join(repo, "agents/ops"));
    fs.copyFileSync(path.join(repo, "agents/support/agent.md"), path.join(repo, "agents/ops/agent.md"));
    const both = runCli(["compile", "agents/*", "--check", "--format", "github"], { cwd: repo });
    expect(both.status).toBe(1);
    expect(both.stdout.split("\n").filter((l) => l.startsWith(`::error file=packages/openui/ai.assemblyline/index.ts,line=${line},col=7,`))).toHaveLength(1);
    const sarif = JSON.parse(runCli(["compile", "agents/*", "--check", "--format", "sarif"], { cwd: repo }).stdout);
    expect(sarif.runs[0].results.filter((r: any) => r.ruleId === "AL4001")).toHaveLength(1);
    // Fixed and compiled, then a tool's tags changed without compiling (a pull request that forgot
    // to): both agents' locks are stale, and the change's line is annotated once (AL6218, new-user trial 125).
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace("descripton:", "description:"));
    expect(runCli(["compile", "agents/*", "--no-package"], { cwd: repo }).status).toBe(0);
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace('tags: ["ui", "table"]', 'tags: ["ui", "table", "grid"]'));
    const tagsLine = fs.readFileSync(entry, "utf8").split("\n").findIndex((l) => l.includes('"grid"')) + 1;
    const forgot = runCli(["compile", "agents/*", "--check", "--no-package", "--format", "github"], { cwd: repo });
    expect(forgot.status).toBe(1);
    const forgotLines = forgot.stdout.split("\n");
    expect(forgotLines.filter((l) => l.includes("title=AL6002"))).toHaveLength(2);
    expect(forgotLines.filter((l) => l.includes("title=AL6218"))).toEqual([expect.stringMatching(new RegExp(`^::notice file=packages/openui/ai\\.assemblyline/index\\.ts,line=${tagsLine},`))]);
    // The pretty report of the same check ends with one command for both stale roots (new-user trial 125).
    const forgotPretty = runCli(["compile", "agents/*", "--check", "--no-package"], { cwd: repo });
    expect(forgotPretty.stderr.trimEnd().split("\n").at(-1)).toMatch(/^Fix all 2: \S.* compile agents\/ops agents\/support \(then commit each plugins\.lock\)$/);
    fs.rmSync(path.join(repo, "agents/ops"), { recursive: true });

    // The same package selected under a second key of the surface: reported where agent.md selects it, not as AL4012 in the package's files (C7).
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace("descripton:", "description:"));
    fs.writeFileSync(path.join(repo, "agents/support/agent.md"), AGENT_MD.replace("  openui:\n", '  openui:\n    package: "@assemblyline-agents/openui"\n').replace("---\n\nBe helpful.", '  cards:\n    package: "@assemblyline-agents/openui"\n---\n\nBe helpful.'));
    const twice = runCliJson(["compile", "agents/support", "--check"], { cwd: repo });
    expect(twice.status).toBe(1);
    const cardsLine = fs.readFileSync(path.join(repo, "agents/support/agent.md"), "utf8").split("\n").indexOf("  cards:") + 1;
    // (AL6013: --check with errors compares no lock.)
    expect(twice.json.diagnostics.map((d: any) => [d.code, d.file, d.line, d.path])).toEqual([["AL1031", "agent.md", cardsLine, "capabilities.cards"], ["AL6013", "plugins.lock", 1, undefined]]);
    expect(twice.json.diagnostics[0].message).toBe("Capability 'cards' selects the package '@assemblyline-agents/openui', which capability 'openui' of this surface selects already.");
  }, 60_000);

  it("says Upgraded, Downgraded or Re-pinned, with both versions, when add changes the pin of a plugin the agent has (new-user trial 120)", () => {
    /** The openui pack as `version`, its description `extra`-suffixed, packed into a folder of its own. */
    const packAs = (version: string, extra = ""): string => {
      const folder = writeTree({}, "al-pack-");
      fs.cpSync(pack, path.join(folder, "openui"), { recursive: true });
      for (const file of ["package.json", "plugin.json"]) {
        const manifest = path.join(folder, "openui", file);
        fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replace('"version": "1.0.0"', `"version": "${version}"`).replace(/("description": "[^"]*)"/, `$1${extra}"`));
      }
      const run = spawnSync("npm", ["pack", "--pack-destination", folder, "--silent"], { cwd: path.join(folder, "openui"), encoding: "utf8" });
      expect(run.status, run.stderr).toBe(0);
      return path.join(folder, run.stdout.trim().split("\n").pop()!);
    };
    const root = writeTree({ "agent.md": AGENT_MD });
    expect(runCli(["add", `file:${tarball}`, root]).stdout).toContain("Added openui (@assemblyline-agents/openui@1.0.0)");
    const upgraded = runCli(["add", `file:${packAs("1.1.0")}`, root]);
    expect(upgraded.status, upgraded.stderr).toBe(0);
    expect(upgraded.stdout).toContain("Upgraded openui (@assemblyline-agents/openui 1.0.0 → 1.1.0): pinned in plugins.lock.");
    expect(upgraded.stdout).not.toContain("Added");
    const downgraded = runCli(["add", `file:${tarball}`, root]);
    expect(downgraded.status, downgraded.stderr).toBe(0);
    expect(downgraded.stdout).toContain("Downgraded openui (@assemblyline-agents/openui 1.1.0 → 1.0.0): pinned in plugins.lock.");
    // The same version rebuilt with other content (a tarball made again after an edit).
    const rebuilt = runCli(["add", `file:${packAs("1.0.0", " Rebuilt.")}`, root]);
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toContain("Re-pinned openui (@assemblyline-agents/openui@1.0.0, new content) in plugins.lock.");
    expect(runCli(["compile", root, "--check"]).status).toBe(0);
  }, 120_000);

  it("adds a packed plugin: agent.md keeps its comments, the lock pins version and integrity, a second add changes nothing", () => {
    const root = writeTree({ "agent.md": AGENT_MD });
    const first = runCli(["add", `file:${tarball}`, root]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("Added openui (@assemblyline-agents/openui@1.0.0)");

    const agentMd = fs.readFileSync(path.join(root, "agent.md"), "utf8");
    expect(agentMd).toBe(AGENT_MD.replace("  openui:\n", '  openui:\n    package: "@assemblyline-agents/openui"\n'));
    const lock = JSON.parse(fs.readFileSync(path.join(root, "plugins.lock"), "utf8"));
    const locked = lock.surfaces["."].capabilities.openui;
    expect(locked.source).toEqual({ type: "npm", name: "@assemblyline-agents/openui", version: "1.0.0" });
    expect(locked.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    expect(Object.keys(locked.tools).sort()).toEqual(["render_card", "render_table"]);
    expect(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).dependencies["@assemblyline-agents/openui"]).toMatch(/^file:/);
    expect(fs.readdirSync(root).sort()).toEqual([".assemblyline", "agent.md", "node_modules", "package-lock.json", "package.json", "plugins.lock"]);

    const installedMtime = fs.statSync(path.join(root, "node_modules/@assemblyline-agents/openui/package.json")).mtimeMs;
    const lockBytes = fs.readFileSync(path.join(root, "plugins.lock"));
    const lockMtime = fs.statSync(path.join(root, "plugins.lock")).mtimeMs;
    const second = runCli(["add", `file:${tarball}`, root]);
    expect(second.status, second.stderr).toBe(0);
    // npm had installed that very tarball: nothing is installed again (node_modules untouched).
    expect(second.stdout).toContain("openui (@assemblyline-agents/openui@1.0.0) is already installed, added and pinned; nothing changed.");
    expect(fs.readFileSync(path.join(root, "agent.md"), "utf8")).toBe(agentMd);
    expect(fs.readFileSync(path.join(root, "plugins.lock")).equals(lockBytes)).toBe(true);
    expect(fs.statSync(path.join(root, "plugins.lock")).mtimeMs).toBe(lockMtime);
    expect(fs.statSync(path.join(root, "node_modules/@assemblyline-agents/openui/package.json")).mtimeMs).toBe(installedMtime);

    const check = runCli(["compile", root, "--check"]);
    expect(check.status, check.stderr).toBe(0);
  });

  it("validates the plugin's brand configSchema against agent.md, at the offending line", () => {
    const root = writeTree({ "agent.md": AGENT_MD.replace("        footer: Example | Confidential\n", "        footer: Example | Confidential\n        logo: not-a-data-uri\n") });
    const run = runCli(["add", `file:${tarball}`, root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("agent.md:11:15 - error AL5002"); // after add inserted its package line
    expect(run.stderr).toContain("logo");
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
    // How to go on, or back (helper-67's trial: no undo command on this path).
    expect(run.stderr).toContain(`Added capabilities.openui to agent.md, but plugins.lock was not updated: fix the errors above, then run \`${printedCli()} compile ${root}\`; or undo the add: remove capabilities.openui from agent.md and run 'npm uninstall @assemblyline-agents/openui'.`);
  });

  it("compiles with the project configuration, as compile does: its tokenBudget refuses the lock, its outDir takes the artifact (trial 129's leftover)", () => {
    const root = writeTree({ "agent.md": AGENT_MD, "assembly-line.config.json": '{ "outDir": "dist/agent", "tokenBudget": 50 }\n' });
    const refused = runCli(["add", `file:${tarball}`, root]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("agent.md:1:1 - error AL4720: Surface '.' starts with");
    expect(refused.stderr).toContain("Added capabilities.openui to agent.md, but plugins.lock was not updated");
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
    fs.writeFileSync(path.join(root, "assembly-line.config.json"), '{ "outDir": "dist/agent" }\n');
    expect(runCli(["add", `file:${tarball}`, root]).status).toBe(0);
    expect(fs.existsSync(path.join(root, "dist/agent/manifest.json"))).toBe(true);
    expect(fs.existsSync(path.join(root, ".assemblyline/build"))).toBe(false);
  });

  it("compile refuses an installed version that differs from the lock, with a fix-it hint", () => {
    const root = writeTree({ "agent.md": AGENT_MD });
    expect(runCli(["add", `file:${tarball}`, root]).status).toBe(0);
    const manifest = path.join(root, "node_modules/@assemblyline-agents/openui/package.json");
    fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replace('"version": "1.0.0"', '"version": "1.0.1"'));
    const { status, json } = runCliJson(["compile", root]);
    expect(status).toBe(1);
    // The tarball lies outside the agent's folder (no Git repository here): compile says so too (AL6214).
    expect(json.diagnostics).toMatchObject([
      { code: "AL6008", file: "agent.md", line: 5, column: 3 },
      { code: "AL6214", severity: "warning", file: "package.json", path: 'dependencies["@assemblyline-agents/openui"]' },
    ]);
    // Installed from a tarball: the hint names it, never the registry (new-user trial E4); package.json
    // names the locked version's tarball, so the install is what is out of step (new-user trial of 6 December).
    // The agent root is not where the CLI ran, so the install command goes there first (new-user trial 115).
    expect(json.diagnostics[0].hint).toBe(
      `package.json already installs @assemblyline-agents/openui from file:${path.relative(root, tarball)}, the locked version 1.0.0: node_modules is behind it (as after a pull without an install). Run \`cd ${root} && npm install\`.`,
    );
    // When package.json names another version, both ways out: lock what it installs, or point it at the locked one.
    const pkg = path.join(root, "package.json");
    const other = path.join(path.dirname(tarball), "assemblyline-agents-openui-1.0.1.tgz");
    fs.copyFileSync(tarball, other);
    fs.writeFileSync(pkg, fs.readFileSync(pkg, "utf8").split(path.basename(tarball)).join(path.basename(other)));
    const moved = runCliJson(["compile", root]);
    expect(moved.json.diagnostics[0].hint).toContain(`package.json installs @assemblyline-agents/openui from file:${path.relative(root, other)}.`);
    expect(moved.json.diagnostics[0].hint).toContain(`run \`${printedCli()} add ${path.relative(root, other)}\``);
  });

  it("refuses a key that a local plugin folder owns (it would win resolution), before and after installing", () => {
    const root = writeTree({ "agent.md": AGENT_MD, "plugins/other/plugin.json": '{"name":"other"}', "plugins/openui/plugin.json": '{"name":"openui"}' });
    const asLocal = runCli(["add", `file:${tarball}`, root, "--as", "other"]);
    expect(asLocal.status).toBe(1);
    expect(asLocal.stderr).toContain("AL6210");
    expect(asLocal.stderr).toContain("plugins/other/");
    // A folder is shown as a folder, without a line and column (helper-78 D8.2: `plugins/other:1:1`).
    expect(asLocal.stderr).toMatch(/^\S*plugins\/other\/ - error AL6210: /m);
    expect(asLocal.stderr).not.toMatch(/plugins\/other\/?:1:1/);
    // Refused before anything was installed.
    expect(fs.existsSync(path.join(root, "package.json"))).toBe(false);
    expect(fs.readFileSync(path.join(root, "agent.md"), "utf8")).toBe(AGENT_MD);
    // The key a tarball's plugin.json names ('openui') is known before installing too (new-user trial M43c: it was checked after the install).
    const byName = runCli(["add", `file:${tarball}`, root]);
    expect(byName.status).toBe(1);
    expect(byName.stderr).toContain("AL6210");
    expect(byName.stderr).toContain("plugins/openui/");
    expect(byName.stderr).toContain("agent.md and plugins.lock were left unchanged.");
    expect(fs.existsSync(path.join(root, "package.json"))).toBe(false);
    expect(fs.existsSync(path.join(root, "node_modules"))).toBe(false);
    expect(fs.readFileSync(path.join(root, "agent.md"), "utf8")).toBe(AGENT_MD);
  });

  it("a plugin folder without package.json added --as a new key: AL6211's hint copies it to plugins/<that key>/, shown as a folder (helper-78 D8.2)", () => {
    const extplug = writeTree({ "plugin.json": '{"name":"chaos"}' }, "al-extplug-");
    const root = writeTree({ "agent.md": AGENT_MD, "plugins/chaos/plugin.json": '{"name":"chaos"}' });
    const run = runCli(["add", extplug, root, "--as", "chaos2"]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("AL6211");
    expect(hintOf(run.stderr)).toContain("copy it to plugins/chaos2/ and select it in agent.md (capabilities: chaos2: {})");
    expect(run.stderr).not.toContain("plugins/chaos/");
    // The folder is a folder: no line and column in the pretty output.
    expect(run.stderr).toMatch(/al-extplug-\w+\/ - error AL6211: /);
    expect(fs.existsSync(path.join(root, "package.json"))).toBe(false);
  });

  it("warns (AL6213) when the file: path it records leaves the repository, and not for a tarball inside it (helper-78 D8.3)", () => {
    const repository = writeTree({ ".git/HEAD": "ref: refs/heads/main\n", "agent/agent.md": AGENT_MD }, "al-repo-");
    const root = path.join(repository, "agent");
    const outside = runCli(["add", tarball, root]);
    expect(outside.status, outside.stderr).toBe(0);
    const dependency = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).dependencies["@assemblyline-agents/openui"];
    expect(dependency).toMatch(/^file:\.\.\/\.\.\//);
    // At the dependency's line in package.json, with the repository named and the ways to share the plugin.
    const line = fs.readFileSync(path.join(root, "package.json"), "utf8").split("\n").findIndex((l) => l.includes('"@assemblyline-agents/openui"')) + 1;
    expect(outside.stderr).toMatch(new RegExp(`package\\.json:${line}:5 - warning AL6213: package\\.json now depends on '@assemblyline-agents/openui' by the path '\\.\\./\\.\\./[^']+\\.tgz', which is outside the repository \\(\\.\\.\\): \`npm ci\` on CI or in another clone cannot find it there\\.`));
    expect(hintOf(outside.stderr)).toContain("copy the plugin into plugins/openui/");
    expect(hintOf(outside.stderr)).toContain("npm pack --pack-destination");
    // Said once, in add's words: not again as the compile's AL6214, which every later compile gives.
    expect(outside.stderr).not.toContain("AL6214");
    expect(runCliJson(["compile", root, "--check"]).json.diagnostics).toMatchObject([{ code: "AL6214", file: "package.json", line, column: 5 }]);

    // The same tarball committed into the repository (vendor/): nothing to say.
    const inside = writeTree({ ".git/HEAD": "ref: refs/heads/main\n", "agent/agent.md": AGENT_MD, "vendor/.keep": "" }, "al-repo-");
    fs.copyFileSync(tarball, path.join(inside, "vendor", path.basename(tarball)));
    const vendored = runCli(["add", path.join(inside, "vendor", path.basename(tarball)), path.join(inside, "agent")]);
    expect(vendored.status, vendored.stderr).toBe(0);
    expect(vendored.stderr).not.toContain("AL6213");
  });

  it("a plugin found unusable only after its install says the command that undoes the install", () => {
    const source = writeTree({ "package.json": '{"name":"broken-plugin","version":"1.0.0"}', "plugin.json": "not JSON" }, "al-broken-pack-");
    const out = writeTree({}, "al-pack-");
    const packed = spawnSync("npm", ["pack", "--pack-destination", out, "--silent"], { cwd: source, encoding: "utf8" });
    expect(packed.status, packed.stderr).toBe(0);
    const root = writeTree({ "agent.md": AGENT_MD });
    const run = runCli(["add", `file:${path.join(out, packed.stdout.trim().split("\n").pop()!)}`, root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("AL6208");
    expect(run.stderr).toMatch(/installed broken-plugin@1\.0\.0 into package\.json and node_modules; undo it with 'npm uninstall broken-plugin' if you do not retry\./);
    expect(fs.readFileSync(path.join(root, "agent.md"), "utf8")).toBe(AGENT_MD);
  }, 120_000);

  it("never changes an agent.md it cannot keep byte for byte or write in place (helper-73)", () => {
    // Not UTF-8: refused as the compile refuses it (AL1003), its bytes untouched (they came back as U+FFFD).
    const latin1 = writeTree({});
    const bytes = Buffer.concat([Buffer.from(AGENT_MD, "utf8"), Buffer.from("Caf\xe9\n", "latin1")]);
    fs.writeFileSync(path.join(latin1, "agent.md"), bytes);
    const refused = runCli(["add", `file:${tarball}`, latin1, "--as", "cards"]);
    expect(refused.status).toBe(1);
    expect(refused.stdout + refused.stderr).toContain("AL1003");
    expect(fs.readFileSync(path.join(latin1, "agent.md")).equals(bytes)).toBe(true);
    // Before anything was installed.
    expect(fs.readdirSync(latin1)).toEqual(["agent.md"]);
    // A link out of the agent: never written through (AL6301), the file it leads to untouched.
    const linked = writeTree({});
    const outside = path.join(writeTree({ "agent.md": AGENT_MD }), "agent.md");
    fs.symlinkSync(outside, path.join(linked, "agent.md"));
    const through = runCli(["add", `file:${tarball}`, linked, "--as", "cards"]);
    expect(through.status).toBe(1);
    expect(through.stdout + through.stderr).toContain("AL6301");
    expect(fs.readFileSync(outside, "utf8")).toBe(AGENT_MD);
    expect(fs.lstatSync(path.join(linked, "agent.md")).isSymbolicLink()).toBe(true);
    expect(fs.readdirSync(linked)).toEqual(["agent.md"]);
  });

  it("refuses a spec that names nothing, with exit code 1 and no change", () => {
    const root = writeTree({ "agent.md": AGENT_MD });
    const run = runCli(["add", "./does-not-exist.tgz", root]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("AL6201");
    expect(fs.readFileSync(path.join(root, "agent.md"), "utf8")).toBe(AGENT_MD);
  });
});
