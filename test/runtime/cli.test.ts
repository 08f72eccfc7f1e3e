/**
 * `assembly-line call` and `approve` (DESIGN §7), each invocation a separate host process that
 * shares the agent's state.db: approval in one process, approve in another, a repeated approve
 * that does nothing, and step replay across processes.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { runSourceCliJson, runSourceCliWithEnv, sourceCliCommandLine } from "./helpers/run-source-cli.js";

let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    { name: "record_note", file: seedTools.recordNote },
    { name: "hydrate_customer", file: seedTools.hydrateCustomer, inject: ["fetch-shim.ts"] },
    { name: "search", file: "search.ts", factory: "createSearchTool", config: { limit: 20, index: "products" }, requiredConfig: ["SEARCH_API_URL"] },
  ]);
});

afterAll(() => agent?.cleanup());

const cli = runSourceCliJson;

describe("assembly-line call / approve across processes", () => {
  it("approval_required, then approve runs it once, then a second approve does nothing", () => {
    const pending = cli("call", "record_note", agent.root, "--input", '{"note":"ship it"}', "--run", "cli-run", "--call", "c1", "--format", "json");
    expect(pending.code).toBe(0);
    expect(pending.json).toMatchObject({ status: "approval_required", runId: "cli-run", callId: "c1", approval: { sideEffect: "idempotent", state: "pending" } });

    const approved = cli("approve", "c1", agent.root, "--run", "cli-run", "--format", "json");
    expect(approved.code).toBe(0);
    expect(approved.json.status).toBe("ok");
    expect(approved.json.output).toEqual({ recorded: true });
    expect(approved.json.events.map((event: { type: string }) => event.type)).toEqual([
      "tool.approval_granted",
      "tool.execution_started",
      "note.recorded",
      "tool.execution_completed",
    ]);

    const again = cli("approve", "c1", agent.root, "--run", "cli-run", "--format", "json");
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ status: "ok", alreadyDecided: true, events: [] });
    // A deny after the approval changes nothing, and says so with exit code 1 (new-user review).
    const denyAfter = cli("approve", "c1", agent.root, "--run", "cli-run", "--deny", "--format", "json");
    expect(denyAfter.code).toBe(1);
    expect(denyAfter.json).toMatchObject({ status: "failed", alreadyDecided: true, events: [], approval: { state: "approved" } });
    expect(denyAfter.json.error).toMatch(/was approved earlier and ran, so it cannot be denied/);
    const denyPretty = cli("approve", "c1", agent.root, "--run", "cli-run", "--deny");
    expect(denyPretty.code).toBe(1);
    expect(denyPretty.stdout).toMatch(/^failed record_note \(run cli-run, call c1\) — decided earlier; nothing ran now\n {2}The call of 'record_note' was approved earlier and ran/);
    const db = new Database(path.join(agent.root, ".assemblyline/state.db"), { readonly: true });
    const notes = db.prepare("SELECT COUNT(*) AS n FROM events WHERE run_id = 'cli-run' AND type = 'note.recorded'").get() as { n: number };
    db.close();
    expect(notes.n).toBe(1);
  });

  it("replays a durable step in a second process of the same run", () => {
    const first = cli("call", "hydrate_customer", agent.root, "--input", '{"customerId":"c-7"}', "--run", "steps", "--call", "a", "--format", "json");
    const second = cli("call", "hydrate_customer", agent.root, "--input", '{"customerId":"c-7"}', "--run", "steps", "--call", "b", "--format", "json");
    expect(first.json.output).toEqual(second.json.output);
    expect(first.json.events.map((event: { type: string }) => event.type)).toContain("durable_step.recorded");
    expect(second.json.events.map((event: { type: string }) => event.type)).toEqual(["tool.execution_started", "durable_step.replayed", "tool.execution_completed"]);
    const log = fs.readFileSync(path.join(agent.root, ".assemblyline/runs/steps/workspace/fetch-log.txt"), "utf8");
    expect(log.trim().split("\n")).toHaveLength(1);
  });

  it("passes --config to ctx.config, honours --execution direct, and fails without required config", () => {
    const configured = cli("call", "search", agent.root, "--input", "{}", "--config", "SEARCH_API_URL=https://s.example", "--execution", "direct", "--format", "json");
    expect(configured.code).toBe(0);
    expect(configured.json.output.ctxConfig).toEqual({ limit: 20, index: "products", SEARCH_API_URL: "https://s.example" });
    expect(configured.json.events[0].runtimeBoundary).toBe("host");
    const missing = cli("call", "search", agent.root, "--input", "{}", "--format", "json");
    expect(missing.code).toBe(1);
    expect(missing.json.failure).toEqual({ kind: "configuration_error", runCanContinue: true });
  });

  it("prints a readable result and usage errors with codes", () => {
    const pretty = cli("call", "record_note", agent.root, "--input", '{"note":"x"}', "--run", "pretty-run", "--call", "p1");
    expect(pretty.code).toBe(0);
    expect(pretty.stdout).toContain("approval required record_note");
    // The printed command can be pasted as is: npx, the root, the ids.
    expect(pretty.stdout).toContain(`approve: npx assembly-line approve p1 ${agent.root} --run pretty-run`);
    // Written as a JavaScript object literal: the hint is about JSON's quotes, not the shell's (helper-69).
    const badInput = cli("call", "echo", agent.root, "--input", "{message:'hi'}", "--format", "json");
    expect(badInput.code).toBe(2);
    expect(badInput.json.diagnostics[0].code).toBe("AL8040");
    expect(badInput.json.diagnostics[0].hint).toMatch(/^JSON needs double quotes around every key and string/);
    // Our words and the column, not V8's "No number after minus sign in JSON at position 12" (helper-73 #15).
    expect(cli("call", "echo", agent.root, "--input", '{"message":-}', "--format", "json").json.diagnostics[0].message).toBe("--input is not valid JSON: unexpected character at column 12.");
    expect(cli("call", "echo", agent.root, "--input", "{}", "--config", "NOVALUE", "--format", "json").json.diagnostics[0].code).toBe("AL8041");
    expect(cli("call", "echo", agent.root, "--input", "{}", "--execution", "vm", "--format", "json").json.diagnostics[0].code).toBe("AL8042");
  });

  it("--input - reads the input's JSON from standard input", () => {
    const piped = runSourceCliWithEnv(["call", "echo", agent.root, "--input", "-", "--format", "json"], {}, '{"message":"from stdin"}\n');
    expect(piped.status, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout)).toMatchObject({ status: "ok", output: { message: "from stdin" } });
    // A pipe is not a terminal: nothing to tell the user.
    expect(piped.stderr).not.toContain("reading the input's JSON");
    // A byte order mark before the JSON is no part of it (helper-73).
    const marked = runSourceCliWithEnv(["call", "echo", agent.root, "--input", "-", "--format", "json"], {}, '\uFEFF{"message":"with a BOM"}\n');
    expect(marked.status, marked.stderr).toBe(0);
    expect(JSON.parse(marked.stdout)).toMatchObject({ status: "ok", output: { message: "with a BOM" } });
    const bad = runSourceCliWithEnv(["call", "echo", agent.root, "--input", "-"], {}, "{message}");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error AL8040: --input is not valid JSON: standard input \(--input -\): unexpected character at column 2\./);
    // The hint is about the piped text, not about quoting for a shell (helper-67's trial).
    expect(bad.stderr).toContain("hint: Standard input must hold the tool's input as one JSON value");
    expect(bad.stderr).not.toContain("Quote the JSON for your shell");
    const empty = runSourceCliWithEnv(["call", "echo", agent.root, "--input", "-"], {}, "");
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/^error AL8040: --input is not valid JSON: standard input \(--input -\) was empty\./);
  });

  // `script` (util-linux) runs the CLI on a pseudo-terminal, as a user's shell does.
  it.runIf(process.platform === "linux")("--input - on a terminal says it reads standard input and how to end it (helper-64 M27d: it waited silently)", () => {
    const line = sourceCliCommandLine(["call", "echo", agent.root, "--input", "-", "--format", "json"]);
    // The JSON, then Ctrl-D (EOT) at the start of a line: the terminal's end of input.
    const run = spawnSync("script", ["-qec", line, "/dev/null"], { input: '{"message":"typed"}\n\u0004', encoding: "utf8", timeout: 60_000, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
    expect(run.error).toBeUndefined();
    expect(run.status, run.stdout).toBe(0);
    // stdout, stderr and the terminal's echo of what was typed share the output: the prompt is one line of it, once.
    const shown = run.stdout.replace(/\r/g, "");
    expect(shown).toMatch(/^assembly-line: reading the input's JSON from standard input; end it with Ctrl-D\.$/m);
    expect(shown.split("reading the input's JSON").length).toBe(2);
    expect(shown).toMatch(/^\{"status":"ok","output":\{"message":"typed"\}/m);
  });

  it("approve takes the host settings of the call (--config, --execution), and the printed command repeats them", () => {
    const pending = cli("call", "record_note", agent.root, "--input", '{"note":"direct"}', "--run", "host-run", "--call", "h1", "--execution", "direct", "--config", "SEARCH_API_URL=https://s.example");
    expect(pending.code).toBe(0);
    expect(pending.stdout).toContain(`approve: npx assembly-line approve h1 ${agent.root} --run host-run --config SEARCH_API_URL=https://s.example --execution direct`);
    const approved = cli("approve", "h1", agent.root, "--run", "host-run", "--execution", "direct", "--config", "SEARCH_API_URL=https://s.example", "--format", "json");
    expect(approved.code).toBe(0);
    expect(approved.json).toMatchObject({ status: "ok" });
    expect(approved.json.events.find((event: { type: string }) => event.type === "tool.execution_started")).toMatchObject({ runtimeBoundary: "host" });
    expect(cli("approve", "h1", agent.root, "--run", "host-run", "--execution", "vm", "--format", "json").json.diagnostics[0].code).toBe("AL8042");
  });

  it("usage errors about arguments carry no file location (file \"\"), and pretty output shows none", () => {
    const usage = [
      cli("call", "echo", agent.root, "--input", "{message}", "--format", "json"),
      cli("call", "echo", agent.root, "--input", "{}", "--run", "no spaces allowed", "--format", "json"),
      cli("call", "echo", agent.root, "--input", "{}", "--surface", "subagents/nobody", "--format", "json"),
      cli("approve", "missing-call", agent.root, "--run", "never-ran", "--format", "json"),
    ];
    for (const run of usage) {
      expect(run.code).toBe(2);
      expect(run.json.diagnostics[0]).toMatchObject({ file: "" });
    }
    expect(usage[3]!.json.diagnostics[0].code).toBe("AL8045");
    const unknownRun = cli("approve", "missing-call", agent.root, "--run", "never-ran");
    expect(unknownRun.stderr).toMatch(/^error AL8045: Run 'never-ran' has no record in this agent's state/);
    const pretty = cli("call", "echo", agent.root, "--input", "{message}");
    // The same layout as compile's diagnostics: "error CODE: message", then "hint:" (here the
    // catalog's, about the shell's quoting: no JavaScript literal to blame).
    expect(pretty.stderr).toMatch(/^error AL8040: --input is not valid JSON/);
    expect(pretty.stderr).toContain("hint: Quote the JSON for your shell");
  });

  it("refuses a tampered artifact with exit code 1", () => {
    const tampered = fs.mkdtempSync(path.join(path.dirname(agent.root), "al-tampered-"));
    try {
      fs.cpSync(agent.root, tampered, { recursive: true });
      fs.rmSync(path.join(tampered, ".assemblyline/state.db"), { force: true });
      fs.appendFileSync(path.join(tampered, ".assemblyline/build/bundles/echo.mjs"), "\n//x\n");
      const refused = cli("call", "echo", tampered, "--input", '{"message":"x"}');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("error AL8012: The bundle .assemblyline/build/bundles/echo.mjs of tool 'echo' does not match its locked integrity");
    } finally {
      fs.rmSync(tampered, { recursive: true, force: true });
    }
  });
});
