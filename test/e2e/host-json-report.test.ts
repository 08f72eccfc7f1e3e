/**
 * The host commands' `--format json` (`tools`, `search`, `call`, `approve`) carries what they
 * also say on stderr, end to end with the real CLI (helper-67, helper-69: AL8046 and the
 * runtime's warnings were stderr text only, and nothing in the JSON said the compile-first step
 * had rewritten plugins.lock). The keys are `compile --format json`'s for the same facts:
 * `diagnostics` and `lockChanged`, after the command's own keys, which stay as they were.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { writeStarterAgent } from "../helpers/starter-agent.js";
import { tempDir } from "../helpers/temp-tree.js";

let root: string;

beforeAll(() => {
  root = path.join(tempDir("al-host-json-"), "agent");
  writeStarterAgent(root);
});

/** Changes the hello tool's description in both files that state it, so the next host command compiles first and rewrites the lock. */
function changeDescription(to: string): void {
  for (const file of ["plugins/hello/ai.assemblyline/index.ts", "plugins/hello/ai.assemblyline/hello.ts"]) {
    const target = path.join(root, file);
    fs.writeFileSync(target, fs.readFileSync(target, "utf8").replace(/description: "[^"]*"/, `description: "${to}"`));
  }
}

/** The last two keys of a host command's JSON: its own come first, unchanged. */
const lastKeys = (json: Record<string, unknown>): string[] => Object.keys(json).slice(-2);

describe("host commands' JSON", () => {
  it("says whether the compile-first step wrote plugins.lock (lockChanged), after the command's own keys", () => {
    const first = runCliJson(["tools", root]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ tools: expect.any(Array), tokens: expect.any(Number), diagnostics: [], lockChanged: true });
    expect(lastKeys(first.json)).toEqual(["diagnostics", "lockChanged"]);
    expect(first.stderr).toContain("had no plugins.lock, so it was compiled first");
    // Nothing changed since: no compile, no new lock.
    expect(runCliJson(["tools", root]).json).toMatchObject({ diagnostics: [], lockChanged: false });

    changeDescription("Greet a person warmly by name.");
    const call = runCliJson(["call", "hello", root, "--input", '{"name":"Ada"}']);
    expect(call.status, call.stderr).toBe(0);
    expect(call.json).toMatchObject({ status: "ok", output: { greeting: "Hello, Ada!" }, tool: "hello", diagnostics: [], lockChanged: true });
    expect(Object.keys(call.json)).toEqual(["status", "output", "events", "runId", "callId", "tool", "diagnostics", "lockChanged"]);
    expect(call.stderr).toContain("plugins.lock was updated");
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toContain("Greet a person warmly by name.");

    changeDescription("Greet someone by name.");
    const search = runCliJson(["search", "greet", root]);
    expect(search.status, search.stderr).toBe(0);
    expect(search.json).toMatchObject({ tools: [{ name: "hello", description: "Greet someone by name." }], totalMatches: 1, hasMore: false, diagnostics: [], lockChanged: true });
    expect(lastKeys(search.json)).toEqual(["diagnostics", "lockChanged"]);
  });

  it("says so in a refusal too: the lock was written before the command was refused", () => {
    changeDescription("Greet a person by their name.");
    const refused = runCliJson(["tools", root, "--surface", "subagents/nope"]);
    expect(refused.status).toBe(2);
    expect(refused.json).toMatchObject({ ok: false, diagnostics: [{ code: "AL8020", file: "", line: 1, column: 1 }], lockChanged: true });
    const call = runCliJson(["call", "hello", root, "--input", "{}", "--surface", "subagents/nope"]);
    expect(call.json).toMatchObject({ status: "failed", diagnostics: [{ code: "AL8020" }], events: [], lockChanged: false });
  });

  it("carries AL8046 of tools --run and search --run in diagnostics, as stderr prints it", () => {
    const tools = runCliJson(["tools", root, "--run", "run_typo"]);
    expect(tools.status, tools.stderr).toBe(0);
    const warning = {
      code: "AL8046",
      severity: "warning",
      message: "Run 'run_typo' has no record in this agent's state (.assemblyline/state.db): nothing was called or searched in it, so the list has no tools it activated.",
      file: "",
      line: 1,
      column: 1,
      hint: expect.stringContaining("Use the runId printed by a `call`"),
    };
    expect(tools.json.diagnostics).toEqual([warning]);
    expect(tools.stderr).toContain("warning AL8046: Run 'run_typo'");
    const search = runCliJson(["search", "greet", root, "--run", "run_typo_2"]);
    expect(search.json.diagnostics).toMatchObject([{ code: "AL8046", severity: "warning", message: expect.stringContaining("so this search started it") }]);
    expect(search.json.activated).toEqual([]);
    // The search started that run: asked again, there is nothing to warn about.
    expect(runCliJson(["search", "greet", root, "--run", "run_typo_2"]).json.diagnostics).toEqual([]);
  });

  it("carries the runtime's own warnings (AL8030 on a Node without the permission model) in call's and approve's diagnostics", () => {
    // A Node without the permission model, as an older one would be: the flags it lists hide it
    // (the runtime reads process.allowedNodeEnvironmentFlags), preloaded into the real CLI.
    const preload = path.join(tempDir("al-no-permission-"), "hide-permission.cjs");
    fs.writeFileSync(
      preload,
      'const flags = new Set([...process.allowedNodeEnvironmentFlags].filter((flag) => !flag.includes("permission")));\n' +
        'Object.defineProperty(process, "allowedNodeEnvironmentFlags", { value: flags, configurable: true });\n',
    );
    const env = { NODE_OPTIONS: `--require ${preload}` };
    const call = runCliJson(["call", "hello", root, "--input", '{"name":"Ada"}'], { env });
    expect(call.status, call.stderr).toBe(0);
    expect(call.json.diagnostics).toMatchObject([{ code: "AL8030", severity: "warning", file: ".assemblyline/build/manifest.json", message: expect.stringContaining("has no permission model") }]);
    expect(call.stderr).toContain("warning AL8030");
    const approve = runCliJson(["approve", "call_none", root, "--run", call.json.runId], { env });
    expect(approve.json).toMatchObject({ status: "failed", diagnostics: [{ code: "AL8023" }], lockChanged: false });
    // The pretty form still prints it on stderr, and stdout is unchanged.
    const pretty = runCli(["call", "hello", root, "--input", '{"name":"Ada"}'], { env });
    expect(pretty.stderr).toContain("warning AL8030");
    expect(pretty.stdout).toMatch(/^ok hello /);
  });

  it("warns (AL8048) about a --config key no tool requires, with the nearest one, and still runs the call (helper-73)", () => {
    // hello requires no config: every key is one that reaches no tool.
    const call = runCliJson(["call", "hello", root, "--input", '{"name":"Ada"}', "--config", "GREETING_TOEN=x"]);
    expect(call.status, call.stderr).toBe(0);
    expect(call.json.status).toBe("ok");
    expect(call.json.diagnostics).toEqual([
      expect.objectContaining({ code: "AL8048", severity: "warning", message: "--config GREETING_TOEN: no tool of this agent requires 'GREETING_TOEN', so it reaches no tool.", hint: "No tool of this agent declares requiredConfig; remove --config GREETING_TOEN=…." }),
    ]);
    expect(call.stderr).toContain("warning AL8048");
  });

  it("says with a code (AL8047) and the file when the run state cannot be opened, as a refusal (helper-73)", () => {
    const state = path.join(root, ".assemblyline", "state.db");
    fs.rmSync(state, { force: true });
    fs.writeFileSync(state, "not a database, just text\n".repeat(200));
    try {
      const refused = runCliJson(["tools", root, "--run", "run_any"]);
      expect(refused.status).toBe(2);
      expect(refused.json.diagnostics).toEqual([
        expect.objectContaining({ code: "AL8047", severity: "error", message: "The run state .assemblyline/state.db could not be opened: file is not a database." }),
      ]);
      expect(refused.json.diagnostics[0].hint).toContain("nothing was run");
      // Relative to the agent root, as every diagnostic's file: run from the parent, its path appears once (new-user trial 115).
      expect(refused.json.diagnostics[0].file).toBe(".assemblyline/state.db");
      const pretty = runCli(["call", "hello", path.basename(root), "--input", '{"name":"Ada"}'], { cwd: path.dirname(root) });
      expect(pretty.stderr).toMatch(/error AL8047: The run state \.assemblyline\/state\.db could not be opened/);
      expect(pretty.stderr).toContain(`${path.basename(root)}/.assemblyline/state.db:1:1 - error AL8047`);
      expect(pretty.stderr).not.toContain(`${path.basename(root)}/${path.basename(root)}/`);
    } finally {
      fs.rmSync(state, { force: true });
    }
  });
});
