/**
 * `assembly-line validate <pluginDir>` (issue 2 item 6) on real plugin folders: the example's
 * plugins and the project's own Agent Plugins fixtures, with the exact JSON document of DESIGN §7.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { printedCli, runCli, runCliJson } from "../helpers/run-cli.js";
import { seedPlugins } from "../helpers/support-agent.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";
import { gzipSync } from "node:zlib";
import { writeFiles } from "../helpers/temp-tree.js";
import { agentWithTools } from "../providers/helpers.js";

/** A case of `test/fixtures/agent-plugins/` (its plugin root). */
const fixturePlugin = (name: string): string => path.join(repoRoot, "test", "fixtures", "agent-plugins", name, "plugin");

describe("assembly-line validate", () => {
  it("prints no code frame of a tarball given instead of a folder: no raw bytes reach the terminal (helper-73, defect 12)", () => {
    const tarball = path.join(tempDir("al-validate-tgz-"), "plugin.tgz");
    fs.writeFileSync(tarball, gzipSync(Buffer.concat([Buffer.from("package/plugin.json\u0000\u0000\u0000"), Buffer.alloc(600), Buffer.from("{}\n")])));
    const run = runCli(["validate", tarball]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error AL2001:");
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F]/);
    expect(run.stderr).not.toContain(" | ");
  });

  it("prints { ok, diagnostics, plugin: { name, rejected, skills, mcpServers, tools } } for a clean plugin", () => {
    const { status, json } = runCliJson(["validate", seedPlugins.supportTools]);
    expect(status).toBe(0);
    expect(json).toEqual({
      ok: true,
      diagnostics: [],
      plugin: { name: "support-tools", rejected: false, skills: ["escalation"], mcpServers: [], tools: ["accept_document", "hydrate_customer", "lookup_record", "record_note"] },
    });
  });

  it("says a plugin the spec rejects is rejected, with the reason at its line", () => {
    const { status, json } = runCliJson(["validate", fixturePlugin("manifest-name-uppercase")]);
    expect(status).toBe(1);
    expect(json.ok).toBe(false);
    expect(json.plugin).toMatchObject({ rejected: true, skills: [], mcpServers: [], tools: [] });
    expect(json.diagnostics[0]).toMatchObject({ code: "AL2106", file: "plugin.json", severity: "error", path: "name" });
  });

  it("lists only the components that load; skipped ones are diagnostics", () => {
    const { status, json } = runCliJson(["validate", fixturePlugin("component-failure-isolation")]);
    expect(status).toBe(1);
    expect(json.plugin).toMatchObject({ rejected: false, skills: ["first", "last"], mcpServers: ["good"] });
    const codes = json.diagnostics.map((d: { code: string }) => d.code);
    expect(codes).toContain("AL2102"); // unknown top-level field `hooks`: reported, ignored
    expect(codes).toContain("AL2208"); // skills/broken: name differs from the directory
  });

  it("pretty output names the plugin and its components", () => {
    const run = runCli(["validate", seedPlugins.example]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("example: ok\n  tools: echo\n  skills: none\n  MCP servers: none\n");
  });

  it("exits 2 on a usage error", () => {
    expect(runCli(["validate"]).status).toBe(2);
    expect(runCli(["compile", "--format", "yaml"]).status).toBe(2);
    expect(runCli(["frobnicate"]).status).toBe(2);
  });
});

describe("--format json on failures of the command line itself", () => {
  it("still prints exactly one JSON object, with AL9001, and exits 2", () => {
    const compile = runCli(["compile", "x", "--format", "json", "--bogus"]);
    expect(compile.status).toBe(2);
    expect(JSON.parse(compile.stdout)).toMatchObject({ ok: false, diagnostics: [{ code: "AL9001", message: "The command line is not valid: unknown option '--bogus'." }] });
    const call = runCli(["call", "echo", "x", "--format", "json"]);
    expect(call.status).toBe(2);
    expect(JSON.parse(call.stdout)).toMatchObject({ status: "failed", diagnostics: [{ code: "AL9001" }], events: [] });
  });

  it("--format sarif prints a SARIF log with the failure, --format github its annotation (new-user trial 115: the SARIF file was empty)", () => {
    const sarif = runCli(["compile", "x", "--chek", "--format", "sarif"]);
    expect(sarif.status).toBe(2);
    const log = JSON.parse(sarif.stdout);
    expect(log.version).toBe("2.1.0");
    expect(log.runs[0].results).toMatchObject([{ ruleId: "AL9001", level: "error", message: { text: expect.stringContaining("unknown option '--chek'") } }]);
    expect(log.runs[0].results[0].locations).toBeUndefined();
    const github = runCli(["compile", "x", "--chek", "--format", "github"]);
    expect(github.status).toBe(2);
    expect(github.stdout).toMatch(/^::error title=AL9001::The command line is not valid: unknown option '--chek'\. Did you mean --check\? /);
    expect(github.stdout.trim().split("\n")).toHaveLength(1);
  });

  it("pretty output names the code too", () => {
    const run = runCli(["call", "echo", "x"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error AL9001: required option '--input <json>' not specified$/m);
  });

  it("a misspelt required option is named as unknown, not as missing (call --input, approve --run)", () => {
    const call = runCli(["call", "echo", "x", "--inptu", "{}"]);
    expect(call.status).toBe(2);
    expect(call.stderr).toMatch(/^error AL9001: unknown option '--inptu'$/m);
    expect(call.stderr).toContain("Did you mean --input?");
    const approve = runCli(["approve", "call_1", "x", "--rnu", "run_1"]);
    expect(approve.status).toBe(2);
    expect(approve.stderr).toMatch(/^error AL9001: unknown option '--rnu'$/m);
    // Missing, each is still reported in commander's words, with --format json too.
    expect(runCli(["approve", "call_1", "x"]).stderr).toMatch(/^error AL9001: required option '--run <id>' not specified$/m);
    const json = runCli(["call", "echo", "x", "--format", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "failed", diagnostics: [{ code: "AL9001", message: "The command line is not valid: required option '--input <json>' not specified." }] });
  });

  it("a usage error points at the command's own help; commander's suggestion is the JSON hint, not part of the message", () => {
    const call = runCli(["call", "echo", "x", "--inptu", "{}"]);
    expect(call.stderr).toContain(`\n(run '${printedCli()} call --help' for usage)\n`);
    const json = runCli(["call", "echo", "x", "--inptu", "{}", "--format", "json"]);
    expect(JSON.parse(json.stdout).diagnostics).toEqual([
      expect.objectContaining({ code: "AL9001", message: "The command line is not valid: unknown option '--inptu'.", hint: `Did you mean --input? Run '${printedCli()} call --help' for usage.` }),
    ]);
    const search = runCli(["search", "--frobnicate", "--format", "json"]);
    expect(JSON.parse(search.stdout).diagnostics[0].hint).toBe(`Run '${printedCli()} search --help' for usage.`);
    // `--config` is compile's name for the project configuration file; the host commands say theirs.
    const tools = runCli(["tools", "x", "--config", "x.json"]);
    expect(tools.status).toBe(2);
    expect(tools.stderr).toMatch(/^error AL9001: unknown option '--config'\n\(Did you mean --project-config\? tools takes/m);
    const searchConfig = JSON.parse(runCli(["search", "q", "x", "--config=x.json", "--format", "json"]).stdout).diagnostics[0];
    expect(searchConfig.hint).toMatch(/^Did you mean --project-config\? .*--config is compile's name for it\. Run '.*' for usage\.$/);
    expect(searchConfig.hint).toContain(`Run '${printedCli()} search --help' for usage.`);
    const callConfig = runCli(["call", "echo", "x", "--input", "{}", "--config", "x.json"]);
    expect(callConfig.stderr).toContain("AL8041");
    expect(callConfig.stderr).toContain("pass --project-config FILE");
    // No command: the program's own help.
    const none = runCli(["--bogus"]);
    expect(none.stderr).toContain(`\n(run '${printedCli()} --help' for usage)\n`);
  });

  it("a file or a missing folder as the root is a diagnostic, and nothing is created", () => {
    const file = path.join(repoRoot, "examples/support-agent/agent.md");
    const { status, json } = runCliJson(["compile", file]);
    expect(status).toBe(1);
    expect(json.diagnostics).toMatchObject([{ code: "AL1025" }]);
    const missing = path.join(repoRoot, "examples", "no-such-agent");
    expect(runCliJson(["compile", missing]).json.diagnostics).toMatchObject([{ code: "AL1024" }]);
    expect(fs.existsSync(missing)).toBe(false);
    // Pretty output does not speak of a lock or an artifact the missing root never had.
    const pretty = runCli(["compile", missing]);
    expect(pretty.stderr).toContain("AL1024");
    expect(pretty.stderr).not.toContain("left unchanged");
  });

  it("a folder without agent.md gets no .assemblyline/ (not even the analysis cache), from compile or a mistyped search", () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "al-not-an-agent-"));
    try {
      const compile = runCliJson(["compile", folder]);
      expect(compile.status).toBe(1);
      // `search <path>` reads the path as the query and the working directory as the root.
      const search = runCli(["search", "/some/agent"], { cwd: folder });
      expect(search.status).toBe(1);
      expect(fs.readdirSync(folder)).toEqual([]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("validate --target (new-user trial 129, finding 8)", () => {
  /** `[code, line, column, path]` of each diagnostic, and its file relative to `base`'s folder `from`. */
  const placed = (json: { diagnostics: { code: string; file: string; line: number; column: number; path?: string }[] }, from: string) =>
    json.diagnostics.map((d) => [d.code, path.posix.relative(from, d.file), d.line, d.column, d.path]);

  it("reports what compile --target reports for the plugin's tools, at the same places, and exits 1 on a target's error", () => {
    const root = agentWithTools({
      lookup: { inputSchema: { type: "object", properties: { id: { type: "string", pattern: "^[A-Z]+-\\d+$" }, note: { type: ["string", "null"], maxLength: 10 } }, required: ["id"] } },
    });
    const plugin = path.join(root, "plugins", "tools");
    const args = ["--target", "openai-strict", "--target", "anthropic-strict", "--target", "gemini"];
    const compiled = runCliJson(["compile", root, "--no-package", ...args]);
    const validated = runCliJson(["validate", plugin, ...args]);
    expect(validated.status).toBe(1);
    expect(validated.json.ok).toBe(false);
    // The compile's files are relative to the agent root, validate's to the plugin folder.
    expect(placed(validated.json, ".")).toEqual(placed(compiled.json, "plugins/tools"));
    expect([...new Set(validated.json.diagnostics.map((d: { code: string }) => d.code))].sort()).toEqual(["AL4703", "AL4705", "AL4706", "AL4707", "AL4708"]);
    // Without a target: a clean plugin, as before.
    expect(runCliJson(["validate", plugin]).json).toMatchObject({ ok: true, diagnostics: [] });
  });

  it("reads targets from the project configuration found from the plugin folder; the flag wins; an unknown id is AL4712 where the file writes it", () => {
    const root = agentWithTools({ lookup: { inputSchema: { type: "object", properties: { id: { type: "string", minLength: 1 } }, required: ["id"], additionalProperties: false } } });
    const plugin = path.join(root, "plugins", "tools");
    writeFiles(root, { "assembly-line.config.json": '{\n  "targets": ["anthropic-strict", "gemni"]\n}\n' });
    const { status, json } = runCliJson(["validate", plugin]);
    expect(status).toBe(1);
    expect(json.diagnostics.map((d: { code: string; file: string; line: number }) => [d.code, d.file, d.line])).toEqual([
      ["AL4712", "../../assembly-line.config.json", 2],
      ["AL4703", "ai.assemblyline/index.ts", expect.any(Number)],
    ]);
    expect(runCliJson(["validate", plugin, "--target", "openai"]).json).toMatchObject({ ok: true, diagnostics: [] });
    expect(runCliJson(["validate", plugin, "--no-config"]).json).toMatchObject({ ok: true, diagnostics: [] });
    const pretty = runCli(["validate", plugin, "--target", "openai"]);
    expect(pretty.stdout).toContain("tools: ok (targets: openai)");
    expect(runCli(["validate", plugin, "--target", "gemni"]).status).toBe(2);
  });
});
