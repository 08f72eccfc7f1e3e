/**
 * What a new user tripped over in `call` (README trial of 6 December), each a host process run
 * from the sources:
 * - a tool name the surface cannot call (`call ecoh`) is refused (AL8064, exit 2) before any run
 *   state is written: no run record, no run folder, not even state.db; so are a bad `--input`,
 *   an unknown `--surface` and a bad `--run`. Input that fails the tool's inputSchema stays what
 *   the model would get, a failed call (`invalid_input`) recorded in its run;
 * - `call --run <id>` of a run the state has no record of warns AL8046, as `tools` and `search`
 *   do, and starts it;
 * - `--network none` and `--memory-mb` with `--execution direct` are a usage error (AL8065), and a
 *   warning (AL8066) when the project configuration sets them;
 * - `--format json` escapes DEL and the C1 controls.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { runSourceCliJson, sourceCliArgs } from "./helpers/run-source-cli.js";
import { repoRoot } from "../helpers/temp-tree.js";

let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    { name: "record_note", file: seedTools.recordNote },
  ]);
});

afterAll(() => agent?.cleanup());

const cli = runSourceCliJson;

const stateDb = () => path.join(agent.root, ".assemblyline", "state.db");
const runsDir = () => path.join(agent.root, ".assemblyline", "runs");

/** The run ids state.db has a record of, and the run folders (empty lists when neither exists). */
function runState(): { records: string[]; folders: string[] } {
  let records: string[] = [];
  if (fs.existsSync(stateDb())) {
    const db = new Database(stateDb(), { readonly: true });
    records = (db.prepare("SELECT run_id FROM runs ORDER BY run_id").all() as { run_id: string }[]).map((row) => row.run_id);
    db.close();
  }
  const folders = fs.existsSync(runsDir()) ? fs.readdirSync(runsDir()).sort() : [];
  return { records, folders };
}

describe("refusals before a call starts leave no run behind", () => {
  it("a mistyped tool name is AL8064 with the near miss, and writes nothing, not even state.db", () => {
    expect(fs.existsSync(stateDb())).toBe(false);
    const typo = cli("call", "ecoh", agent.root, "--input", '{"message":"hi"}', "--format", "json");
    expect(typo.code).toBe(2);
    expect(typo.json.diagnostics[0]).toMatchObject({ code: "AL8064", severity: "error", file: "" });
    expect(typo.json.diagnostics[0].message).toBe("There is no tool 'ecoh' on surface '.'. Did you mean 'echo'? Nothing was run or recorded.");
    expect(typo.json.diagnostics[0].hint).toContain("assembly-line tools");
    const named = cli("call", "ecoh", agent.root, "--input", '{"message":"hi"}', "--run", "typo-run");
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(/^error AL8064: There is no tool 'ecoh' on surface '\.'\. Did you mean 'echo'\?/);
    expect(fs.existsSync(stateDb())).toBe(false);
    expect(runState()).toEqual({ records: [], folders: [] });
  });

  it("so do a bad --input, an unknown --surface and a bad --run, also in a run that exists", () => {
    expect(cli("call", "echo", agent.root, "--input", '{"message":"first"}', "--run", "kept-run", "--format", "json").code).toBe(0);
    const before = runState();
    expect(before).toEqual({ records: ["kept-run"], folders: ["kept-run"] });
    const refusals = [
      { args: ["call", "echo", agent.root, "--input", "{message}", "--run", "bad-json-run"], code: "AL8040" },
      { args: ["call", "echo", agent.root, "--input", "{}", "--surface", "subagents/nobody", "--run", "bad-surface-run"], code: "AL8020" },
      { args: ["call", "echo", agent.root, "--input", "{}", "--run", "no spaces allowed"], code: "AL8022" },
      { args: ["call", "ecoh", agent.root, "--input", "{}", "--run", "kept-run"], code: "AL8064" },
    ];
    for (const { args, code } of refusals) {
      const refused = cli(...args, "--format", "json");
      expect(refused.code, refused.stdout).toBe(2);
      expect(refused.json.diagnostics[0].code).toBe(code);
    }
    expect(runState()).toEqual(before);
    const db = new Database(stateDb(), { readonly: true });
    const events = (db.prepare("SELECT type FROM events WHERE run_id = 'kept-run' ORDER BY seq").all() as { type: string }[]).map((row) => row.type);
    db.close();
    expect(events).toEqual(["tool.execution_started", "tool.execution_completed"]);
  });

  it("input that fails the inputSchema is the failed call the model would get, recorded in its run", () => {
    const invalid = cli("call", "record_note", agent.root, "--input", '{"notes":"x"}', "--run", "schema-run", "--format", "json");
    expect(invalid.code).toBe(1);
    expect(invalid.json).toMatchObject({ status: "failed", failure: { kind: "invalid_input", runCanContinue: true } });
    // The required error names the key given in its place (item 4).
    expect(invalid.json.error).toContain("`note` is required, but the input has `notes`, which the schema does not list (did you mean 'note'?)");
    expect(runState().records).toContain("schema-run");
  });
});

describe("call --run of a run the state has no record of", () => {
  it("warns AL8046 (stderr and JSON) and starts the run; the next call in it does not warn", () => {
    const first = cli("call", "echo", agent.root, "--input", '{"message":"a"}', "--run", "fresh-run", "--format", "json");
    expect(first.code).toBe(0);
    expect(first.json.status).toBe("ok");
    expect(first.json.diagnostics).toEqual([expect.objectContaining({ code: "AL8046", severity: "warning", file: "" })]);
    expect(first.json.diagnostics[0].message).toBe("Run 'fresh-run' has no record in this agent's state (.assemblyline/state.db): nothing was called or searched in it, so this call started it; check the id if you meant an existing run.");
    expect(first.stderr).toMatch(/^warning AL8046: Run 'fresh-run' has no record/);
    const second = cli("call", "echo", agent.root, "--input", '{"message":"b"}', "--run", "fresh-run", "--format", "json");
    expect(second.json.diagnostics).toEqual([]);
    expect(second.stderr).toBe("");
    // Without --run the call starts a run of its own: nothing to warn about.
    const unnamed = cli("call", "echo", agent.root, "--input", '{"message":"c"}', "--format", "json");
    expect(unnamed.json.diagnostics).toEqual([]);
    // A typo of a run this agent has: the warning names it (new-user trial of 6 December).
    const typo = cli("call", "echo", agent.root, "--input", '{"message":"d"}', "--run", "fresh-rum", "--format", "json");
    expect(typo.json.diagnostics).toEqual([expect.objectContaining({ code: "AL8046", hint: "Did you mean 'fresh-run', a run of this agent? Give that id to --run to continue it." })]);
    // A new id two edits from one (run_link1 and run_int1): a new run, not a typo; no suggestion (new-user trial 112).
    const other = cli("call", "echo", agent.root, "--input", '{"message":"e"}', "--run", "fresh-ruin1", "--format", "json");
    expect(other.json.diagnostics).toEqual([expect.objectContaining({ code: "AL8046" })]);
    expect(other.json.diagnostics[0].hint).toBe("Use the runId printed by a `call` or a `search --run` of this agent, with the same agent root (each agent keeps its runs in its own .assemblyline/state.db).");
  });
});

describe("a call's warnings in a log that holds both streams", () => {
  it("come before the result (new-user trial 125: AL8046 came after a long result)", () => {
    const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "al-call-log-")), "log");
    const fd = fs.openSync(log, "w");
    try {
      const run = spawnSync(process.execPath, sourceCliArgs(["call", "echo", agent.root, "--input", '{"message":"in the log"}', "--run", "logged-run"]), { cwd: repoRoot, stdio: ["ignore", fd, fd], env: { ...process.env, NO_COLOR: "1" }, timeout: 60_000 });
      expect(run.status).toBe(0);
    } finally {
      fs.closeSync(fd);
    }
    const text = fs.readFileSync(log, "utf8");
    expect(text.indexOf("warning AL8046")).toBeGreaterThanOrEqual(0);
    expect(text.indexOf("warning AL8046")).toBeLessThan(text.indexOf("in the log"));
  });
});

describe("host limits direct execution cannot apply", () => {
  it.each([
    { flags: ["--network", "none"], named: "--network none" },
    { flags: ["--memory-mb", "256"], named: "--memory-mb 256" },
    { flags: ["--network", "none", "--memory-mb", "256"], named: "--network none and --memory-mb 256" },
  ])("$named with --execution direct on the command line is AL8065, exit 2, and nothing runs", ({ flags, named }) => {
    const before = runState();
    const refused = cli("call", "echo", agent.root, "--input", '{"message":"x"}', "--execution", "direct", ...flags, "--run", "direct-run", "--format", "json");
    expect(refused.code).toBe(2);
    expect(refused.json.diagnostics[0]).toMatchObject({ code: "AL8065", severity: "error" });
    expect(refused.json.diagnostics[0].message).toContain(`${named} cannot bind the tool under --execution direct`);
    expect(refused.json.diagnostics[0].hint).toContain(`Leave out ${named}`);
    expect(refused.json.diagnostics[0].hint).toContain("leave out --execution direct");
    expect(runState()).toEqual(before);
  });

  it("approve takes the same flags and refuses them the same way", () => {
    const refused = cli("approve", "c1", agent.root, "--run", "any-run", "--execution", "direct", "--network", "none", "--format", "json");
    expect(refused.code).toBe(2);
    expect(refused.json.diagnostics[0].code).toBe("AL8065");
  });

  it("--network host is the host's network anyway: no complaint", () => {
    const ran = cli("call", "echo", agent.root, "--input", '{"message":"x"}', "--execution", "direct", "--network", "host", "--format", "json");
    expect(ran.code).toBe(0);
    expect(ran.json.diagnostics).toEqual([]);
  });

  it("from the project configuration they are a warning (AL8066) and the call runs", () => {
    const config = path.join(agent.root, "direct-limits.config.json");
    fs.writeFileSync(config, '{\n  "host": {\n    "memoryMb": 256,\n    "network": "none"\n  }\n}\n');
    try {
      const ran = cli("call", "echo", agent.root, "--input", '{"message":"x"}', "--execution", "direct", "--project-config", config, "--format", "json");
      expect(ran.code, ran.stdout).toBe(0);
      // At the first of the keys it names, in the configuration file, relative to the agent root
      // (the last new-user trial: it was reported without a file or line).
      expect(ran.json.diagnostics).toEqual([expect.objectContaining({ code: "AL8066", severity: "warning", file: "direct-limits.config.json", line: 4, column: 5 })]);
      expect(ran.json.diagnostics[0].message).toContain('sets host.network "none" and host.memoryMb 256, which direct execution (--execution direct) does not apply');
      expect(ran.stderr).toMatch(/^direct-limits\.config\.json:4:5 - warning AL8066: /);
      // Only the memory limit: at its key.
      fs.writeFileSync(config, '{\n  "host": {\n    "memoryMb": 256,\n    "network": "none"\n  }\n}\n');
      const memory = cli("call", "echo", agent.root, "--input", '{"message":"x"}', "--execution", "direct", "--network", "host", "--project-config", config, "--format", "json");
      expect(memory.json.diagnostics).toEqual([expect.objectContaining({ code: "AL8066", file: "direct-limits.config.json", line: 3, column: 5 })]);
      // Given on the command line over the configuration's, the flag's own rule applies.
      const flagged = cli("call", "echo", agent.root, "--input", '{"message":"x"}', "--execution", "direct", "--network", "none", "--project-config", config, "--format", "json");
      expect(flagged.code).toBe(2);
      expect(flagged.json.diagnostics[0].code).toBe("AL8065");
    } finally {
      fs.rmSync(config, { force: true });
    }
  });
});

describe("--format json and raw control characters", () => {
  it("escapes DEL and the C1 controls (U+009B is CSI on 8-bit terminals), and parses to the same value", () => {
    const message = "a\u009b31mb\u007fc\u0085d\u00a0é";
    const ran = cli("call", "echo", agent.root, "--input", JSON.stringify({ message }), "--format", "json");
    expect(ran.code).toBe(0);
    expect(ran.stdout).not.toMatch(/[\u007f-\u009f]/);
    expect(ran.stdout).toContain("a\\u009b31mb\\u007fc\\u0085d\u00a0é");
    expect(ran.json.output).toEqual({ message });
  });
});
