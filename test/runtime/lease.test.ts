/**
 * Run progress leases (seed "Tool implementation": an expired run progress lease is a
 * control-plane failure that terminates the run; issue 4 "expired lease"), with real state.db
 * files and several runtimes on one agent root standing in for several hosts.
 *
 * Timing is only the mechanism here (short leases, sleeping or blocking tools); nothing
 * asserts how fast anything is.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCallCommand } from "../../cli/commands/runtime-commands.js";
import { openRuntime, type Runtime, type RuntimeOptions } from "../../runtime-min/index.js";
import { STATE_SCHEMA_VERSION } from "../../runtime-min/state/schema.js";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { alive, sandboxPidsIn } from "./helpers/sandbox-processes.js";

let agent: AgentFixture;
const opened: Runtime[] = [];
const lease = (name: string, factory = name) => ({ name, file: "lease-probes.ts", factory });

beforeAll(async () => {
  agent = await createAgent([{ name: "echo", file: seedTools.echo }, lease("block"), lease("sleep"), lease("gated"), lease("idle")]);
});

afterAll(async () => {
  for (const runtime of opened) await runtime.close();
  agent?.cleanup();
});

/** Opens a runtime on the fixture agent (closed after the file). */
async function open(options: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  const runtime = await openRuntime({ root: agent.root, ...options });
  opened.push(runtime);
  return runtime;
}

const stateDb = () => path.join(agent.root, ".assemblyline/state.db");
const pidFile = (runId: string) => path.join(agent.root, ".assemblyline/runs", runId, "workspace", "pid.txt");

/** Reads state.db with a separate connection (another process's view). */
function query<T>(sql: string, ...params: unknown[]): T[] {
  const db = new Database(stateDb(), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

/** Writes state.db with a separate connection (what another host would do). */
function write(sql: string, ...params: unknown[]): void {
  const db = new Database(stateDb());
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

const leaseRow = (runId: string) =>
  query<{ lease_owner: string | null; lease_expires_at: number | null; lease_epoch: number }>("SELECT lease_owner, lease_expires_at, lease_epoch FROM runs WHERE run_id = ?", runId)[0];

async function waitForFile(file: string): Promise<void> {
  await vi.waitFor(() => expect(fs.existsSync(file)).toBe(true), { timeout: 20_000, interval: 10 });
}

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("taking the lease", () => {
  it("refuses a call on a run another runtime drives (AL8028, nothing recorded); renewal keeps the long call alive; closing the runtime frees the run at once", async () => {
    // 1.5 s, renewed every 0.5 s: a loaded machine (load 15) may delay a renewal by a second
    // without the lease lapsing (with 500 ms it could, a flake seen in helper-117's broad run).
    const first = await open({ leaseMs: 1500 });
    const second = await open({ leaseMs: 1500 });
    const runId = "held-run";
    // Warm the first runtime's sandbox process for the run, so the long call below starts at once.
    expect((await first.call({ tool: "sleep", input: { ms: 0 }, runId })).status).toBe("ok");
    fs.rmSync(pidFile(runId));
    const long = first.call({ tool: "sleep", input: { ms: 4800 }, runId, callId: "long" });
    await waitForFile(pidFile(runId));
    expect(leaseRow(runId)).toMatchObject({ lease_owner: expect.any(String) });

    const refused = second.call({ tool: "echo", input: { message: "intruder" }, runId, callId: "intruder" });
    await expect(refused).rejects.toMatchObject({ name: "RuntimeError", code: "AL8028" });
    await expect(refused).rejects.toThrow(/^Run 'held-run' is being driven by another host, which holds its progress lease until \d{4}-\d\d-\d\dT/);
    await expect(second.approve({ runId, callId: "intruder" })).rejects.toMatchObject({ code: "AL8023" });
    // The CLI (another process, in effect) is refused the same way: a usage-class exit code 2.
    const cli = await runCallCommand({ tool: "echo", root: agent.root, input: '{"message":"cli"}', run: runId, call: "cli-intruder", format: "json" });
    expect(cli.exitCode).toBe(2);
    expect(JSON.parse(cli.stdout)).toMatchObject({ status: "failed", diagnostics: [{ code: "AL8028" }] });
    expect(query("SELECT call_id FROM calls WHERE run_id = ? AND call_id IN ('intruder', 'cli-intruder')", runId)).toEqual([]);
    expect(query("SELECT seq FROM events WHERE run_id = ? AND call_id IN ('intruder', 'cli-intruder')", runId)).toEqual([]);

    // 4800 ms is more than three leases: without renewal the result commit would find the lease expired.
    const result = await long;
    expect(result).toMatchObject({ status: "ok", output: { slept: 4800 } });
    expect(first.callRecord(runId, "long")?.status).toBe("ok");
    // The first runtime keeps driving the run for its idle hold (its next call needs no write)…
    expect(leaseRow(runId)?.lease_owner).toEqual(expect.any(String));
    await expect(second.call({ tool: "echo", input: { message: "too soon" }, runId, callId: "soon" })).rejects.toMatchObject({ code: "AL8028" });
    // …and closing it frees the run at once, as a CLI process does when it exits.
    await first.close();
    expect(leaseRow(runId)).toMatchObject({ lease_owner: null, lease_expires_at: null });

    const next = await second.call({ tool: "echo", input: { message: "my turn" }, runId, callId: "after" });
    expect(next).toMatchObject({ status: "ok", output: { message: "my turn" } });
  });

  it("shares one lease between parallel calls of a run in one runtime, keeps it for the next call, and lets it go after an idle hold", async () => {
    // 3 s rather than 500 ms: three sandbox processes start at once here, and on a loaded machine
    // (load average 14+) a 500 ms lease could expire before its first renewal (a flake, not a bug).
    const runtime = await open({ leaseMs: 3_000 });
    const runId = "parallel-run";
    const results = await Promise.all([
      runtime.call({ tool: "sleep", input: { ms: 200 }, runId, callId: "a" }),
      runtime.call({ tool: "echo", input: { message: "b" }, runId, callId: "b" }),
      runtime.call({ tool: "echo", input: { message: "c" }, runId, callId: "c" }),
    ]);
    expect(results.map((result) => result.status)).toEqual(["ok", "ok", "ok"]);
    const held = leaseRow(runId);
    expect(held?.lease_owner).toEqual(expect.any(String));
    // A call during the idle hold joins the held lease: same holder, same epoch.
    expect((await runtime.call({ tool: "echo", input: { message: "d" }, runId, callId: "d" })).status).toBe("ok");
    expect(leaseRow(runId)).toMatchObject({ lease_owner: held?.lease_owner, lease_epoch: held?.lease_epoch });
    // leaseMs / 3 without a call: released by the runtime itself.
    await vi.waitFor(() => expect(leaseRow(runId)).toMatchObject({ lease_owner: null, lease_expires_at: null }), { timeout: 10_000, interval: 20 });
    // The next call takes it afresh (a new epoch).
    expect((await runtime.call({ tool: "echo", input: { message: "e" }, runId, callId: "e" })).status).toBe("ok");
    expect(leaseRow(runId)?.lease_epoch).toBe((held?.lease_epoch ?? 0) + 1);
  });

  it("takes the lease before approve executes the call: another runtime's live lease refuses the approval, which stays pending", async () => {
    // 3 s rather than 500 ms: the busy call outlived a 500 ms lease, so on a loaded machine (load
    // average 15+) a late renewal let the lease expire and the call fail (a flake, not a bug). The
    // approval is refused while the first runtime holds the lease: during the call and its idle hold.
    const first = await open({ leaseMs: 3_000 });
    const second = await open({ leaseMs: 3_000 });
    const runId = "approval-run";
    expect((await first.call({ tool: "gated", input: {}, runId, callId: "g" })).status).toBe("approval_required");
    const busy = first.call({ tool: "sleep", input: { ms: 700 }, runId, callId: "busy" });
    await waitForFile(pidFile(runId));
    await expect(second.approve({ runId, callId: "g" })).rejects.toMatchObject({ code: "AL8028" });
    expect(query("SELECT state FROM approvals WHERE run_id = ? AND call_id = 'g'", runId)).toEqual([{ state: "pending" }]);
    expect((await busy).status).toBe("ok");
    await first.close();
    expect(await second.approve({ runId, callId: "g" })).toMatchObject({ status: "ok", output: { done: true } });
  });

  it("takes over the run of a host that died holding the lease once that lease has expired", async () => {
    const earlier = await open({ leaseMs: 500 });
    const runId = "orphaned-run";
    expect((await earlier.call({ tool: "echo", input: { message: "before" }, runId })).status).toBe("ok");
    await earlier.close();
    const runtime = await open({ leaseMs: 500 });
    // A host that took the lease and died without releasing it leaves its row behind. Its lease
    // runs 3 s more: the refused call below must come before that even on a loaded machine (with
    // 400 ms it sometimes did not, helper-117's broad run).
    const expiresAt = Date.now() + 3000;
    write("UPDATE runs SET lease_owner = 'dead-host', lease_expires_at = ?, lease_epoch = lease_epoch + 1 WHERE run_id = ?", expiresAt, runId);
    await expect(runtime.call({ tool: "echo", input: { message: "too early" }, runId, callId: "early" })).rejects.toMatchObject({ code: "AL8028" });
    expect(runtime.callRecord(runId, "early")).toBeUndefined();
    await sleepMs(Math.max(0, expiresAt - Date.now()) + 50);
    const after = await runtime.call({ tool: "echo", input: { message: "taken over" }, runId, callId: "late" });
    expect(after).toMatchObject({ status: "ok", output: { message: "taken over" } });
    await runtime.close();
    expect(leaseRow(runId)?.lease_owner).toBeNull();
  });
});

describe("losing the lease", () => {
  it("a call that outlives its lease (the host's event loop blocked) fails as lease_expired, is not persisted as ok, and ends the run", async () => {
    const runtime = await open({ execution: "direct", leaseMs: 150 });
    const runId = "blocked-run";
    const result = await runtime.call({ tool: "block", input: { ms: 450 }, runId, callId: "blocked" });
    expect(result.status).toBe("failed");
    expect(result.failure).toEqual({ kind: "control_plane", reason: "lease_expired", runCanContinue: false });
    expect(result.error).toMatch(/^The run has ended: .*progress lease of run 'blocked-run'/);
    expect(result.events.map((event) => event.type)).toEqual(["tool.execution_started", "run.ended"]);
    expect(result.events.at(-1)).toMatchObject({ type: "run.ended", reason: "lease_expired", error: expect.stringContaining("blocked-run") });
    const record = runtime.callRecord(runId, "blocked");
    expect(record).toMatchObject({ status: "failed", failureKind: "control_plane" });
    expect(record?.output).toBeUndefined();
    expect(query("SELECT status, end_reason FROM runs WHERE run_id = ?", runId)).toEqual([{ status: "ended", end_reason: "lease_expired" }]);
    expect(runtime.events(runId).map((event) => event.type)).toEqual(["tool.execution_started", "run.ended"]);
    await expect(runtime.call({ tool: "echo", input: { message: "x" }, runId })).rejects.toMatchObject({ code: "AL8021" });
    expect(leaseRow(runId)?.lease_owner).toBeNull();
  });

  it("a runtime whose run another host took over fails its call as lease_expired, kills its sandbox and leaves the run to the new holder", async () => {
    const first = await open({ leaseMs: 600 });
    const second = await open({ leaseMs: 600 });
    const runId = "taken-run";
    const stalled = first.call({ tool: "sleep", input: { ms: 15_000 }, runId, callId: "stalled" });
    await waitForFile(pidFile(runId));
    // The tool's own pid is 1 (its PID namespace); the host finds the process by its cwd.
    const [pid] = sandboxPidsIn(path.dirname(pidFile(runId)));
    expect(pid).toBeDefined();
    // As if the first host had stalled past its lease: expire it, and let the second host take
    // the run (both happen before the first runtime's next renewal can run).
    write("UPDATE runs SET lease_expires_at = ? WHERE run_id = ?", Date.now() - 1, runId);
    const takeover = second.call({ tool: "echo", input: { message: "mine now" }, runId, callId: "takeover" });

    const result = await stalled;
    expect(result.status).toBe("failed");
    expect(result.failure).toEqual({ kind: "control_plane", reason: "lease_expired", runCanContinue: false });
    expect(result.error).toMatch(/^Another host has taken run 'taken-run' over/);
    expect(result.events.map((event) => event.type)).not.toContain("run.ended");
    expect(first.callRecord(runId, "stalled")?.status).not.toBe("ok");
    await vi.waitFor(() => expect(alive(pid!)).toBe(false), { timeout: 10_000 });
    expect(await takeover).toMatchObject({ status: "ok", output: { message: "mine now" } });
    // The run was not ended: it is the second host's; once that host lets go, the first can drive it again.
    expect(query("SELECT status FROM runs WHERE run_id = ?", runId)).toEqual([{ status: "active" }]);
    expect(query("SELECT type FROM events WHERE run_id = ? AND type = 'run.ended'", runId)).toEqual([]);
    await second.close();
    expect((await first.call({ tool: "echo", input: { message: "back" }, runId })).status).toBe("ok");
  });

  it("checks the lease in the commit of the result: a call that finishes after another host took the run over is not recorded as ok", async () => {
    // A long lease: the first renewal comes long after the call finished, so only the
    // result's commit can notice.
    const runtime = await open({ leaseMs: 9000 });
    const runId = "commit-check-run";
    const call = runtime.call({ tool: "sleep", input: { ms: 400 }, runId, callId: "late-result" });
    await waitForFile(pidFile(runId));
    write("UPDATE runs SET lease_owner = 'other-host', lease_expires_at = ?, lease_epoch = lease_epoch + 1 WHERE run_id = ?", Date.now() + 60_000, runId);
    const result = await call;
    expect(result.failure).toEqual({ kind: "control_plane", reason: "lease_expired", runCanContinue: false });
    expect(result.error).toMatch(/^Another host has taken run 'commit-check-run' over/);
    expect(runtime.callRecord(runId, "late-result")).toBeUndefined();
    expect(query("SELECT status FROM runs WHERE run_id = ?", runId)).toEqual([{ status: "active" }]);
    // The other host's lease is left alone.
    expect(leaseRow(runId)).toMatchObject({ lease_owner: "other-host" });
  });
});

describe("the run's row while the lease is held", () => {
  it("is read when the lease is taken and not again per call (issue 14 item 2); a run this runtime ended is read again and refused (AL8021)", async () => {
    const runtime = await open({ execution: "direct" });
    const runId = "cached-run";
    expect((await runtime.call({ tool: "echo", input: { message: "first" }, runId })).status).toBe("ok");
    const reads = vi.spyOn(StateStore.prototype, "getRun");
    try {
      for (let i = 0; i < 5; i++) expect((await runtime.call({ tool: "echo", input: { message: `m${i}` }, runId })).status).toBe("ok");
      expect(reads).not.toHaveBeenCalled();
      // Ended by this runtime (an exhausted deadline): the lease's copy of the row is dropped.
      const ended = await runtime.call({ tool: "idle", input: { ms: 5_000 }, runId, deadlineMs: 50 });
      expect(ended.failure).toMatchObject({ reason: "deadline_exceeded", runCanContinue: false });
      await expect(runtime.call({ tool: "echo", input: { message: "after" }, runId })).rejects.toMatchObject({ code: "AL8021" });
      expect(reads).toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
  });
});

describe("the lease check in each commit", () => {
  it("reads the lease's row only when runs may have changed since its last read (issue 14 item 2): another connection's commit, this runtime's own renewal", async () => {
    const runtime = await open({ execution: "direct" });
    const runId = "marked-run";
    const echo = async (message: string) => expect((await runtime.call({ tool: "echo", input: { message }, runId })).status).toBe("ok");
    await echo("first");
    const reads = vi.spyOn(StateStore.prototype, "leaseExpiry");
    try {
      for (let i = 0; i < 5; i++) await echo(`m${i}`);
      expect(reads).not.toHaveBeenCalled();
      // Another connection commits something unrelated to this run: the row is read again, once.
      write("INSERT INTO runs (run_id, status, created_at, updated_at) VALUES ('someone-else', 'active', 'x', 'x')");
      await echo("after another commit");
      expect(reads).toHaveBeenCalledTimes(1);
      await echo("and then");
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });

  it("reads the row again after this runtime wrote runs itself (a renewal of the lease)", async () => {
    const runtime = await open({ execution: "direct", leaseMs: 1500 });
    const runId = "renewed-run";
    expect((await runtime.call({ tool: "echo", input: { message: "x" }, runId })).status).toBe("ok");
    const reads = vi.spyOn(StateStore.prototype, "leaseExpiry");
    const renewals = vi.spyOn(StateStore.prototype, "renewLease");
    try {
      // A call in flight keeps the lease renewed (every leaseMs / 3); nobody else writes state.db.
      const idle = runtime.call({ tool: "idle", input: { ms: 800 }, runId });
      await vi.waitFor(() => expect(renewals).toHaveBeenCalled(), { timeout: 10_000, interval: 10 });
      expect((await idle).status).toBe("ok");
      expect((await runtime.call({ tool: "echo", input: { message: "y" }, runId })).status).toBe("ok");
      // The commit after the renewal read the row again.
      expect(reads).toHaveBeenCalled();
    } finally {
      reads.mockRestore();
      renewals.mockRestore();
    }
  });

  it("a store's runs mark goes stale on another connection's commit and on its own writes to runs, not on its own other writes", () => {
    const store = StateStore.open(stateDb());
    try {
      store.ensureRun("mark-run");
      const mark = store.runsMark();
      expect(store.runsUnchangedSince(mark)).toBe(true);
      store.appendEvent("mark-run", null, "own.event", {});
      expect(store.runsUnchangedSince(mark)).toBe(true);
      write("INSERT INTO events (run_id, seq, call_id, type, data_json, created_at) VALUES ('mark-run', 1000, NULL, 'other.event', '{}', 'x')");
      expect(store.runsUnchangedSince(mark)).toBe(false);
      const next = store.runsMark();
      store.endRun("mark-run", "test", "ended by the test");
      expect(store.runsUnchangedSince(next)).toBe(false);
    } finally {
      store.close();
    }
  });
});

describe("options and closing", () => {
  it("refuses an invalid leaseMs (AL8029)", async () => {
    for (const leaseMs of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "1000" as unknown as number]) {
      await expect(openRuntime({ root: agent.root, leaseMs })).rejects.toMatchObject({ name: "RuntimeError", code: "AL8029" });
    }
    await expect(openRuntime({ root: agent.root, leaseMs: 0 })).rejects.toThrow("leaseMs 0 is not valid: the run progress lease lasts a positive whole number of milliseconds.");
  });

  it("close() releases the leases of calls still in flight", async () => {
    const runtime = await openRuntime({ root: agent.root, execution: "direct", leaseMs: 5000 });
    const runId = "closing-run";
    const pending = runtime.call({ tool: "idle", input: { ms: 300 }, runId }).catch((error: unknown) => error);
    expect(leaseRow(runId)?.lease_owner).toEqual(expect.any(String));
    await runtime.close();
    expect(leaseRow(runId)?.lease_owner).toBeNull();
    await pending;
  });
});

describe("state.db schema migration", () => {
  it("opens a version-1 state.db, adds the lease columns, and keeps its runs working", async () => {
    const fixture = await createAgent([{ name: "echo", file: seedTools.echo }]);
    try {
      const file = path.join(fixture.root, ".assemblyline/state.db");
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const old = new Database(file);
      old.pragma("journal_mode = WAL");
      old.exec(VERSION_1_SCHEMA);
      old.prepare("INSERT INTO runs (run_id, status, created_at, updated_at) VALUES ('old-run', 'active', 't', 't')").run();
      old.prepare("INSERT INTO calls (run_id, call_id, surface, tool, input_json, status, attempts, created_at, updated_at) VALUES ('old-run', 'c0', '.', 'echo', '{\"message\":\"old\"}', 'running', 1, 't', 't')").run();
      old.prepare("INSERT INTO events (run_id, seq, call_id, type, data_json, created_at) VALUES ('old-run', 1, 'c0', 'tool.execution_started', '{}', 't')").run();
      old.pragma("user_version = 1");
      old.close();

      const runtime = await openRuntime({ root: fixture.root });
      try {
        const result = await runtime.call({ tool: "echo", input: { message: "still works" }, runId: "old-run", callId: "c1" });
        expect(result).toMatchObject({ status: "ok", output: { message: "still works" } });
        expect(runtime.events("old-run").map((event) => event.type)).toEqual(["tool.execution_started", "tool.execution_started", "tool.execution_completed"]);
        // A retry of the call the old version left running is its next attempt.
        expect(await runtime.call({ tool: "echo", input: { message: "old" }, runId: "old-run", callId: "c0" })).toMatchObject({ status: "ok" });
        expect(runtime.callRecord("old-run", "c0")).toMatchObject({ status: "ok", attempts: 2 });
      } finally {
        await runtime.close();
      }
      const db = new Database(file, { readonly: true });
      try {
        expect(db.pragma("user_version", { simple: true })).toBe(STATE_SCHEMA_VERSION);
        expect(STATE_SCHEMA_VERSION).toBe(4);
        const columns = (db.prepare("PRAGMA table_info(runs)").all() as { name: string }[]).map((column) => column.name);
        expect(columns).toEqual(expect.arrayContaining(["lease_owner", "lease_expires_at", "lease_epoch"]));
        // Taken once, held across both calls (the idle hold), released by close().
        expect(db.prepare("SELECT lease_owner, lease_expires_at, lease_epoch FROM runs WHERE run_id = 'old-run'").get()).toEqual({ lease_owner: null, lease_expires_at: null, lease_epoch: 1 });
      } finally {
        db.close();
      }
    } finally {
      fixture.cleanup();
    }
  });

  it("opens a version-3 state.db (no call journal), migrates it to version 4 and keeps its runs, calls, events and steps intact", async () => {
    const fixture = await createAgent([{ name: "echo", file: seedTools.echo }]);
    try {
      const file = path.join(fixture.root, ".assemblyline/state.db");
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const old = new Database(file);
      old.pragma("journal_mode = WAL");
      old.exec(VERSION_3_SCHEMA);
      old.prepare("INSERT INTO runs (run_id, status, created_at, updated_at, lease_epoch) VALUES ('v3-run', 'active', 't', 't', 2)").run();
      old.prepare("INSERT INTO calls (run_id, call_id, surface, tool, input_json, status, attempts, runtime_boundary, output_json, model_output_json, created_at, updated_at) VALUES ('v3-run', 'c0', '.', 'echo', '{\"message\":\"old\"}', 'ok', 1, 'sandbox', '{\"message\":\"old\"}', '{\"message\":\"old\"}', 't', 't')").run();
      old.prepare("INSERT INTO events (run_id, seq, call_id, type, data_json, created_at) VALUES ('v3-run', 1, 'c0', 'tool.execution_started', '{\"tool\":\"echo\",\"callId\":\"c0\"}', 't'), ('v3-run', 2, 'c0', 'tool.execution_completed', '{\"tool\":\"echo\",\"callId\":\"c0\"}', 't')").run();
      old.prepare("INSERT INTO steps (run_id, scope, step_key, value_json, call_id, tool, created_at) VALUES ('v3-run', '[\".\",\"echo\"]', 'k', '1', 'c0', 'echo', 't')").run();
      old.pragma("user_version = 3");
      old.close();

      const runtime = await openRuntime({ root: fixture.root });
      try {
        // The version-3 records read as they were, and the run continues (a new call, and the old one retried).
        expect(runtime.callRecord("v3-run", "c0")).toMatchObject({ status: "ok", attempts: 1, output: { message: "old" } });
        expect(await runtime.call({ tool: "echo", input: { message: "new" }, runId: "v3-run", callId: "c1" })).toMatchObject({ status: "ok", output: { message: "new" } });
        expect(await runtime.call({ tool: "echo", input: { message: "old" }, runId: "v3-run", callId: "c0" })).toMatchObject({ status: "ok" });
        expect(runtime.events("v3-run").map((event) => `${event.callId as string} ${event.type}`)).toEqual([
          "c0 tool.execution_started",
          "c0 tool.execution_completed",
          "c1 tool.execution_started",
          "c1 tool.execution_completed",
          "c0 tool.execution_started",
          "c0 tool.execution_completed",
        ]);
      } finally {
        await runtime.close();
      }
      const db = new Database(file, { readonly: true });
      try {
        expect(db.pragma("user_version", { simple: true })).toBe(4);
        expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
        const columns = (db.prepare("PRAGMA table_info(runs)").all() as { name: string }[]).map((column) => column.name);
        expect(columns).toEqual(expect.arrayContaining(["lease_owner", "lease_expires_at", "lease_epoch", "journal_folded"]));
        expect(db.prepare("SELECT call_id, status, attempts, output_json FROM calls WHERE run_id = 'v3-run' ORDER BY call_id").all()).toEqual([
          { call_id: "c0", status: "ok", attempts: 2, output_json: '{"message":"old"}' },
          { call_id: "c1", status: "ok", attempts: 1, output_json: '{"message":"new"}' },
        ]);
        expect((db.prepare("SELECT seq FROM events WHERE run_id = 'v3-run' ORDER BY seq").all() as { seq: number }[]).map((row) => row.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(db.prepare("SELECT scope, step_key, value_json FROM steps WHERE run_id = 'v3-run'").all()).toEqual([{ scope: '[".","echo"]', step_key: "k", value_json: "1" }]);
        // The old epoch was kept: the new host's take counted from it.
        expect(db.prepare("SELECT lease_owner, lease_epoch FROM runs WHERE run_id = 'v3-run'").get()).toEqual({ lease_owner: null, lease_epoch: 3 });
      } finally {
        db.close();
      }
    } finally {
      fixture.cleanup();
    }
  });

  it("still refuses a state.db of a newer version", async () => {
    const fixture = await createAgent([{ name: "echo", file: seedTools.echo }]);
    try {
      const file = path.join(fixture.root, ".assemblyline/state.db");
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const newer = new Database(file);
      newer.pragma(`user_version = ${STATE_SCHEMA_VERSION + 1}`);
      expect(STATE_SCHEMA_VERSION + 1).toBe(5);
      newer.close();
      await expect(openRuntime({ root: fixture.root })).rejects.toMatchObject({ name: "ControlPlaneError", reason: "state_store_failure" });
    } finally {
      fixture.cleanup();
    }
  });
});

/** The state.db schema version 1 created (runtime-min before the run progress lease). */
const VERSION_1_SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  run_id       TEXT PRIMARY KEY,
  status       TEXT NOT NULL CHECK (status IN ('active', 'ended')),
  end_reason   TEXT,
  end_message  TEXT,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
  run_id            TEXT NOT NULL REFERENCES runs (run_id),
  call_id           TEXT NOT NULL,
  surface           TEXT NOT NULL,
  tool              TEXT NOT NULL,
  input_json        TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'approval_required', 'denied')),
  attempts          INTEGER NOT NULL DEFAULT 0,
  runtime_boundary  TEXT,
  output_json       TEXT,
  model_output_json TEXT,
  error             TEXT,
  failure_kind      TEXT,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS approvals (
  run_id       TEXT NOT NULL REFERENCES runs (run_id),
  call_id      TEXT NOT NULL,
  surface      TEXT NOT NULL,
  tool         TEXT NOT NULL,
  input_json   TEXT NOT NULL,
  reason       TEXT NOT NULL,
  side_effect  TEXT NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied')),
  requested_at TEXT NOT NULL,
  decided_at   TEXT,
  PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS steps (
  run_id        TEXT NOT NULL REFERENCES runs (run_id),
  step_key      TEXT NOT NULL,
  value_json    TEXT,
  metadata_json TEXT,
  call_id       TEXT NOT NULL,
  tool          TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (run_id, step_key)
);
CREATE TABLE IF NOT EXISTS activations (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  surface    TEXT NOT NULL,
  tool       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, surface, tool)
);
CREATE TABLE IF NOT EXISTS events (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  seq        INTEGER NOT NULL,
  call_id    TEXT,
  type       TEXT NOT NULL,
  data_json  TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`;

/** The state.db schema version 3 created (runtime-min before the call journal, 85b67bf). */
const VERSION_3_SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  run_id           TEXT PRIMARY KEY,
  status           TEXT NOT NULL CHECK (status IN ('active', 'ended')),
  end_reason       TEXT,
  end_message      TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  lease_owner      TEXT,
  lease_expires_at INTEGER,
  lease_epoch      INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS calls (
  run_id            TEXT NOT NULL REFERENCES runs (run_id),
  call_id           TEXT NOT NULL,
  surface           TEXT NOT NULL,
  tool              TEXT NOT NULL,
  input_json        TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'approval_required', 'denied')),
  attempts          INTEGER NOT NULL DEFAULT 0,
  runtime_boundary  TEXT,
  output_json       TEXT,
  model_output_json TEXT,
  error             TEXT,
  failure_kind      TEXT,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS approvals (
  run_id       TEXT NOT NULL REFERENCES runs (run_id),
  call_id      TEXT NOT NULL,
  surface      TEXT NOT NULL,
  tool         TEXT NOT NULL,
  input_json   TEXT NOT NULL,
  reason       TEXT NOT NULL,
  side_effect  TEXT NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied')),
  requested_at TEXT NOT NULL,
  decided_at   TEXT,
  PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS steps (
  run_id        TEXT NOT NULL REFERENCES runs (run_id),
  scope         TEXT NOT NULL DEFAULT '',
  step_key      TEXT NOT NULL,
  value_json    TEXT,
  metadata_json TEXT,
  call_id       TEXT NOT NULL,
  tool          TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (run_id, scope, step_key)
);
CREATE TABLE IF NOT EXISTS activations (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  surface    TEXT NOT NULL,
  tool       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, surface, tool)
);
CREATE TABLE IF NOT EXISTS events (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  seq        INTEGER NOT NULL,
  call_id    TEXT,
  type       TEXT NOT NULL,
  data_json  TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`;
