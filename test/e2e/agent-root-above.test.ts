/**
 * A command run from inside an agent (helper-64 M22: `compile` in `plugins/hello/`; `add`, `review`
 * and `inputs` too), end to end
 * with the real CLI: AL1001 still reports the folder typed (no command searches upwards), and
 * its hint names the agent root above with the command as typed, instead of suggesting an
 * `init` that would start a second agent inside the first.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cliPath, printedCli, runCli, runCliJson } from "../helpers/run-cli.js";
import { writeStarterAgent } from "../helpers/starter-agent.js";
import { tempDir } from "../helpers/temp-tree.js";

let root: string;
let plugin: string;
/** What the CLI prints to run itself there: the temporary folders have no install of it (`common/cli-command.ts`). */
let CLI: string;

beforeAll(() => {
  root = path.join(tempDir("al-root-above-"), "agent");
  writeStarterAgent(root);
  plugin = path.join(root, "plugins", "hello");
  CLI = printedCli(plugin);
});

const hintOf = (stderr: string): string => /^ {2}hint: (.*)$/m.exec(stderr)?.[1] ?? "";

describe("AL1001 inside an agent", () => {
  it("names the agent root above and the typed command with that root, for compile and the host commands", () => {
    const cases: [string[], string][] = [
      [["compile"], `${CLI} compile ../..`],
      [["compile", "--check"], `${CLI} compile ../.. --check`],
      [["call", "hello", "--input", '{"name":"Ada"}'], `${CLI} call hello ../.. --input '{"name":"Ada"}'`],
      [["search"], `${CLI} search '' ../..`],
      [["tools", "."], `${CLI} tools ../..`],
      // add refuses before installing anything (it had installed the package into the plugin and written an agent.md there).
      [["add", "openui"], `${CLI} add openui ../..`],
      [["review"], `${CLI} review ../..`],
      [["inputs", "."], `${CLI} inputs ../..`],
    ];
    for (const [args, command] of cases) {
      const run = runCli(args, { cwd: plugin });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`error AL1001: There is no agent\\.md in '(${fs.realpathSync(plugin)}|${plugin})'\\.`));
      // One error for one mistake (compile --check and review said AL6013 "plugins.lock was not checked" too).
      expect(run.stderr).not.toContain("AL6013");
      expect(hintOf(run.stderr)).toBe(`This folder is inside the agent whose root is ../.. (the folder with its agent.md): run \`${command}\`. \`init\` here would start a second agent inside it.`);
    }
    // Nothing was written inside the plugin: the root used is still the one typed.
    expect(fs.readdirSync(plugin).sort()).toEqual(["ai.assemblyline", "plugin.json"]);
  });

  it("is a whole-run diagnostic in every format: no agent.md:1:1 for a file that does not exist (helper-78 D8.4)", () => {
    const pretty = runCli(["compile"], { cwd: plugin });
    expect(pretty.stderr).toMatch(/^error AL1001: There is no agent\.md in /m);
    expect(pretty.stderr).not.toContain("agent.md:1:1");
    const json = runCliJson(["compile"], { cwd: plugin });
    expect(json.json.diagnostics).toMatchObject([{ code: "AL1001", file: "", line: 1, column: 1 }]);
    const github = runCli(["compile", "--format", "github"], { cwd: plugin });
    // GitHub's workflow commands allow an annotation without a file: none of file, line, col (helper-88).
    expect(github.stdout).toMatch(/^::error title=AL1001::There is no agent\.md in /);
    const sarif = JSON.parse(runCli(["compile", "--format", "sarif"], { cwd: plugin }).stdout);
    expect(sarif.runs[0].results[0].ruleId).toBe("AL1001");
    expect(sarif.runs[0].results[0].locations).toBeUndefined();
    // From the agent's root, the subagent's folder is named as a folder.
    const child = path.join(root, "subagents", "child");
    fs.mkdirSync(child, { recursive: true });
    try {
      const nested = runCliJson(["compile", "--no-package"], { cwd: root });
      expect(nested.json.diagnostics).toMatchObject([{ code: "AL1001", file: "subagents/child/", line: 1, column: 1 }]);
      expect(runCli(["compile", "--no-package"], { cwd: root }).stderr).toMatch(/^subagents\/child\/ - error AL1001: There is no agent\.md in 'subagents\/child'\./m);
    } finally {
      fs.rmSync(path.join(root, "subagents"), { recursive: true });
    }
  });

  it("replaces a root typed relative to the working directory, and says the same in JSON", () => {
    const json = runCliJson(["compile", "plugins/hello"], { cwd: root });
    expect(json.json.diagnostics[0]).toMatchObject({ code: "AL1001", hint: expect.stringContaining(`run \`${CLI} compile . --format json\``) });
    const call = runCli(["call", "hello", "plugins/hello", "--input", "{}"], { cwd: root });
    expect(hintOf(call.stderr)).toContain(`run \`${CLI} call hello . --input '{}'\``);
  });

  it("compile --watch in such a folder stops at once with that hint (it watched the plugin folder for good)", () => {
    // spawnSync with a timeout: a watch that keeps running must fail the test, not hang it.
    const run = spawnSync(process.execPath, [cliPath, "compile", "--watch"], { cwd: plugin, encoding: "utf8", timeout: 60_000, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
    expect(run.status, run.stderr).toBe(1);
    expect(hintOf(run.stderr)).toContain(`run \`${CLI} compile ../.. --watch\``);
    expect(run.stdout).not.toContain("Watching");
    // A root that does not exist stops it too, as a compile says it (AL1024).
    const nowhere = spawnSync(process.execPath, [cliPath, "compile", "--watch", "nowhere"], { cwd: plugin, encoding: "utf8", timeout: 60_000, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
    expect(nowhere.status, nowhere.stderr).toBe(1);
    expect(nowhere.stderr).toContain("error AL1024: The agent root 'nowhere' does not exist.");
  });

  it("names the agent below a folder that holds one, typed root and all (README trial of 6 December, C4)", () => {
    const above = path.dirname(root);
    const printed = printedCli(above);
    expect(hintOf(runCli(["compile"], { cwd: above }).stderr)).toBe(`The agent below this folder is agent (the folder with its agent.md): run \`${printed} compile agent\`.`);
    expect(hintOf(runCli(["tools", "."], { cwd: above }).stderr)).toBe(`The agent below this folder is agent (the folder with its agent.md): run \`${printed} tools agent\`.`);
  });

  it("lists the agents two folders below, never inside node_modules, dot folders or an agent's own subagents", () => {
    const repo = tempDir("al-agents-below-");
    for (const dir of ["examples/b", "examples/a", "examples/a/subagents/child", "node_modules/pkg", ".hidden/x", "deep/er/still"]) {
      fs.mkdirSync(path.join(repo, dir), { recursive: true });
      fs.writeFileSync(path.join(repo, dir, "agent.md"), "---\ncapabilities: {}\n---\n");
    }
    const printed = printedCli(repo);
    const run = runCli(["compile", "--no-package"], { cwd: repo });
    expect(run.status).toBe(1);
    expect(hintOf(run.stderr)).toBe(`Agents below this folder: examples/a, examples/b (each a folder with its agent.md). Pass one as the agent root, e.g. \`${printed} compile examples/a --no-package\`.`);
  });

  it("keeps the init hint where no folder above has an agent.md", () => {
    const lonely = tempDir("al-no-agent-");
    expect(hintOf(runCli(["compile"], { cwd: lonely }).stderr)).toContain(`\`${printedCli(lonely)} init <dir>\` writes a starting agent`);
  });
});
