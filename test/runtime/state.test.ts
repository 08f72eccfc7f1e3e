/**
 * Run state in SQLite (issue 4 item 5) and control-plane failures: a failed write, a
 * cancellation or an exhausted deadline ends the run (and says so); later calls on it are
 * refused; other runs are unaffected. Also the host-level refusals of `call` and `approve`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { alive, sandboxPidsIn } from "./helpers/sandbox-processes.js";

let agent: AgentFixture;
let runtime: Runtime;
const probe = (name: string, factory = name, extra: object = {}) => ({ name, file: "probes.ts", factory, ...extra });

beforeAll(async () => {
  agent = await createAgent([{ name: "echo", file: seedTools.echo }, { name: "record_note", file: seedTools.recordNote }, probe("slow"), probe("wait_for_go", "waitForGo"), probe("wait_after_ctx", "waitForGoAfterCtx")]);
  runtime = await openRuntime({ root: agent.root, stateBusyTimeoutMs: 50 });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

const stateDb = () => path.join(agent.root, ".assemblyline/state.db");
const workspace = (runId: string) => path.join(agent.root, ".assemblyline/runs", runId, "workspace");

async function waitForFile(file: string): Promise<void> {
  const start = Date.now();
  while (!fs.existsSync(file)) {
    if (Date.now() - start > 20_000) throw new Error(`timed out waiting for ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("state database", () => {
  it("is SQLite in WAL mode with runs, calls, approvals, steps, events and activations", async () => {
    await runtime.call({ tool: "record_note", input: { note: "n" }, runId: "db-run", callId: "n1" });
    const db = new Database(stateDb(), { readonly: true });
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((row) => row.name);
      expect(tables).toEqual(["activations", "approvals", "calls", "events", "runs", "steps"]);
      expect(db.prepare("SELECT state, reason, side_effect FROM approvals WHERE run_id = 'db-run'").get()).toEqual({
        state: "pending",
        reason: "Recording a note is a durable side effect.",
        side_effect: "idempotent",
      });
      expect(db.prepare("SELECT status FROM calls WHERE run_id = 'db-run' AND call_id = 'n1'").get()).toEqual({ status: "approval_required" });
    } finally {
      db.close();
    }
  });
});

describe("what is a state-store failure", () => {
  it("an error the data handed to the store causes (a stack overflow in JSON.stringify) is rethrown as it is, not worded as a failing database (helper-89 finding 4)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-guard-"));
    const store = StateStore.open(path.join(dir, "state.db"));
    try {
      store.ensureRun("r");
      let deep: unknown = 1;
      for (let level = 0; level < 200_000; level++) deep = [deep];
      let thrown: unknown;
      try {
        store.appendEvent("r", null, "note.deep", { deep: deep as never });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RangeError);
      // The store itself still works.
      store.appendEvent("r", null, "note.ok", {});
      expect(store.listEvents("r").map((event) => event.type)).toEqual(["note.ok"]);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("WAL checkpoints", () => {
  it("run after every 100 write transactions, once the current callback is done, not inside a commit (issue 14 item 2)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-checkpoint-"));
    const store = StateStore.open(path.join(dir, "state.db"));
    const pragmas = vi.spyOn(Database.prototype, "pragma");
    const checkpoints = () => pragmas.mock.calls.filter(([text]) => /^wal_checkpoint/.test(String(text))).length;
    try {
      store.ensureRun("r");
      const commit = (i: number) =>
        store.transaction("record a call", () => {
          store.beginCall({ runId: "r", callId: `c${i}`, surface: ".", tool: "echo", inputJson: "{}" }, { status: "ok", output: {}, modelOutput: {} });
          store.appendEvent("r", `c${i}`, "tool.execution_completed", {});
        });
      // ensureRun's insert was the first write: 99 more transactions reach 100, synchronously.
      for (let i = 1; i < 100; i++) commit(i);
      expect(checkpoints()).toBe(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(checkpoints()).toBe(1);
      for (let i = 100; i < 199; i++) commit(i);
      await new Promise((resolve) => setImmediate(resolve));
      expect(checkpoints()).toBe(1);
      commit(199);
      await new Promise((resolve) => setImmediate(resolve));
      expect(checkpoints()).toBe(2);
      expect(store.listEvents("r")).toHaveLength(199);
    } finally {
      pragmas.mockRestore();
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("when a call's start is committed", () => {
  const rowsOf = (runId: string) => {
    const db = new Database(stateDb(), { readonly: true });
    try {
      return {
        call: db.prepare("SELECT status, runtime_boundary AS boundary FROM calls WHERE run_id = ? AND call_id = 'c1'").get(runId),
        events: db.prepare("SELECT type FROM events WHERE run_id = ? ORDER BY seq").pluck().all(runId),
      };
    } finally {
      db.close();
    }
  };

  it("a call that has made no ctx request yet has left no trace; its first request commits the start with it", async () => {
    const runId = "start-late";
    const pending = runtime.call({ tool: "wait_for_go", input: {}, runId, callId: "c1" });
    await waitForFile(path.join(workspace(runId), "ready.txt"));
    // The tool is running: nothing of the call is in state.db yet.
    expect(rowsOf(runId)).toEqual({ call: undefined, events: [] });
    fs.writeFileSync(path.join(workspace(runId), "go.txt"), "go");
    const result = await pending;
    expect(result.events.map((event) => event.type)).toEqual(["tool.execution_started", "probe.after_go", "tool.execution_completed"]);
    expect(rowsOf(runId)).toEqual({ call: { status: "ok", boundary: "sandbox" }, events: ["tool.execution_started", "probe.after_go", "tool.execution_completed"] });
  });

  it("a ctx request commits the start before the host performs it", async () => {
    const runId = "start-early";
    const pending = runtime.call({ tool: "wait_after_ctx", input: {}, runId, callId: "c1" });
    await waitForFile(path.join(workspace(runId), "ready.txt"));
    expect(rowsOf(runId)).toEqual({ call: { status: "running", boundary: "sandbox" }, events: ["tool.execution_started"] });
    fs.writeFileSync(path.join(workspace(runId), "go.txt"), "go");
    expect((await pending).status).toBe("ok");
    expect(rowsOf(runId)).toEqual({ call: { status: "ok", boundary: "sandbox" }, events: ["tool.execution_started", "tool.execution_completed"] });
  });
});

describe("control-plane failures end the run", () => {
  it("a state write that fails mid-call is a control-plane failure, not a silent loss", async () => {
    const runId = "store-fails";
    const pending = runtime.call({ tool: "wait_for_go", input: {}, runId, callId: "w1" });
    await waitForFile(path.join(workspace(runId), "ready.txt"));
    const blocker = new Database(stateDb());
    blocker.exec("BEGIN IMMEDIATE");
    fs.writeFileSync(path.join(workspace(runId), "go.txt"), "go");
    const result = await pending;
    blocker.exec("COMMIT");
    blocker.close();
    expect(result.status).toBe("failed");
    expect(result.failure).toEqual({ kind: "control_plane", reason: "state_store_failure", runCanContinue: false });
    expect(result.error).toMatch(/^The run has ended: The runtime could not record the event 'probe.after_go' in the state database: database is locked/);
    // The tool made no ctx request before its emit, so the emit was the call's first commit
    // (with its start): it was rolled back as a whole, and the result lists nothing it lost.
    expect(result.events.map((event) => event.type)).not.toContain("probe.after_go");
    expect(result.events.map((event) => event.type)).not.toContain("tool.execution_started");
    await expect(runtime.call({ tool: "echo", input: { message: "x" }, runId })).rejects.toMatchObject({ code: "AL8021" });
    const db = new Database(stateDb(), { readonly: true });
    expect(db.prepare("SELECT status, end_reason FROM runs WHERE run_id = ?").get(runId)).toEqual({ status: "ended", end_reason: "state_store_failure" });
    const persisted = db.prepare("SELECT type FROM events WHERE run_id = ? AND call_id = 'w1' ORDER BY seq").pluck().all(runId);
    // The end was written on the run's next access (the store was locked when it happened), with its event.
    expect(persisted).toEqual([...result.events.map((event) => event.type), "run.ended"]);
    db.close();
    expect((await runtime.call({ tool: "echo", input: { message: "other run" } })).status).toBe("ok");
  });

  it("a run end the store could not take is written when the store is back, at the latest by close(): the next process finds the run ended", async () => {
    const host = await openRuntime({ root: agent.root, stateBusyTimeoutMs: 50 });
    const runId = "store-down";
    const pending = host.call({ tool: "wait_for_go", input: {}, runId, callId: "d1" });
    await waitForFile(path.join(workspace(runId), "ready.txt"));
    const blocker = new Database(stateDb());
    blocker.exec("BEGIN IMMEDIATE");
    fs.writeFileSync(path.join(workspace(runId), "go.txt"), "go");
    const result = await pending;
    expect(result.failure).toEqual({ kind: "control_plane", reason: "state_store_failure", runCanContinue: false });
    // The end itself could not be written while the store was locked.
    const during = new Database(stateDb(), { readonly: true });
    expect(during.prepare("SELECT status FROM runs WHERE run_id = ?").get(runId)).toEqual({ status: "active" });
    during.close();
    blocker.exec("COMMIT");
    blocker.close();
    await host.close();
    const db = new Database(stateDb(), { readonly: true });
    expect(db.prepare("SELECT status, end_reason FROM runs WHERE run_id = ?").get(runId)).toEqual({ status: "ended", end_reason: "state_store_failure" });
    expect(db.prepare("SELECT type FROM events WHERE run_id = ? AND type = 'run.ended'").pluck().all(runId)).toEqual(["run.ended"]);
    db.close();
    const next = await openRuntime({ root: agent.root });
    try {
      await expect(next.call({ tool: "echo", input: { message: "x" }, runId })).rejects.toMatchObject({ code: "AL8021" });
    } finally {
      await next.close();
    }
  });

  it("a run end the store could not take is not written once another host has taken the run over (this host's lease lapsed meanwhile)", async () => {
    // 1.5 s rather than 300 ms: the call waits for its go file while the lease is renewed every
    // leaseMs / 3, and at a load average of 18–20 a 300 ms lease lapsed before a renewal ran (the
    // call then failed as lease_expired, not as the store's failure this test is about).
    const host = await openRuntime({ root: agent.root, stateBusyTimeoutMs: 50, leaseMs: 1_500 });
    let other: Runtime | undefined;
    const runId = "store-down-taken-over";
    const read = <T>(sql: string): T => {
      const db = new Database(stateDb(), { readonly: true });
      try {
        return db.prepare(sql).get(runId) as T;
      } finally {
        db.close();
      }
    };
    try {
      const pending = host.call({ tool: "wait_for_go", input: {}, runId, callId: "t1" });
      await waitForFile(path.join(workspace(runId), "ready.txt"));
      const blocker = new Database(stateDb());
      blocker.exec("BEGIN IMMEDIATE");
      fs.writeFileSync(path.join(workspace(runId), "go.txt"), "go");
      expect((await pending).failure).toEqual({ kind: "control_plane", reason: "state_store_failure", runCanContinue: false });
      // The locked store keeps the host from renewing its lease (nor writing the end): wait until the lease lapsed.
      const { lease_expires_at: expiresAt } = read<{ lease_expires_at: number }>("SELECT lease_expires_at FROM runs WHERE run_id = ?");
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 50));
      blocker.exec("COMMIT");
      blocker.close();
      other = await openRuntime({ root: agent.root });
      expect((await other.call({ tool: "echo", input: { message: "mine now" }, runId })).status).toBe("ok");
      // The first host's pending end would be written here; the run is the other host's now.
      await host.close();
      expect(read("SELECT status FROM runs WHERE run_id = ?")).toEqual({ status: "active" });
      expect(read("SELECT COUNT(*) AS ends FROM events WHERE run_id = ? AND type = 'run.ended'")).toEqual({ ends: 0 });
      expect((await other.call({ tool: "echo", input: { message: "still mine" }, runId })).status).toBe("ok");
    } finally {
      await host.close();
      await other?.close();
    }
  });

  it("a host that could not even take the run's lease (store locked) does not end a run another host drives", async () => {
    const driver = await openRuntime({ root: agent.root, leaseMs: 60_000 });
    const late = await openRuntime({ root: agent.root, stateBusyTimeoutMs: 50 });
    const runId = "driven-elsewhere";
    try {
      expect((await driver.call({ tool: "echo", input: { message: "mine" }, runId })).status).toBe("ok");
      const blocker = new Database(stateDb());
      blocker.exec("BEGIN IMMEDIATE");
      const refused = await late.call({ tool: "echo", input: { message: "theirs" }, runId });
      blocker.exec("COMMIT");
      blocker.close();
      expect(refused.failure).toEqual({ kind: "control_plane", reason: "state_store_failure", runCanContinue: false });
      // Its end was kept pending; writing it now would end the driver's run.
      await late.close();
      const db = new Database(stateDb(), { readonly: true });
      expect(db.prepare("SELECT status FROM runs WHERE run_id = ?").get(runId)).toEqual({ status: "active" });
      db.close();
      expect((await driver.call({ tool: "echo", input: { message: "still mine" }, runId })).status).toBe("ok");
    } finally {
      await late.close();
      await driver.close();
    }
  });

  it("cancellation kills the run's sandbox and ends the run", async () => {
    const runId = "cancelled-run";
    const controller = new AbortController();
    const pending = runtime.call({ tool: "slow", input: { ms: 120_000 }, runId, signal: controller.signal });
    const pidFile = path.join(workspace(runId), "pid.txt");
    await waitForFile(pidFile);
    // The tool's own pid is 1 (its PID namespace); the host finds the process by its cwd.
    const [pid] = sandboxPidsIn(workspace(runId));
    expect(pid).toBeDefined();
    controller.abort();
    const result = await pending;
    expect(result.failure).toEqual({ kind: "control_plane", reason: "cancelled", runCanContinue: false });
    expect(result.events.map((event) => event.type)).toEqual(["tool.execution_started", "run.ended"]);
    // The sandbox process running the call was killed.
    await vi.waitFor(() => expect(alive(pid!)).toBe(false), { timeout: 10_000 });
    const refused = runtime.call({ tool: "echo", input: { message: "x" }, runId });
    await expect(refused).rejects.toMatchObject({ code: "AL8021" });
    await expect(refused).rejects.toThrow("Run 'cancelled-run' has ended after a control-plane failure (cancelled): The host cancelled the call while it was running.");
  });

  it("an exhausted operation deadline ends the run", async () => {
    const result = await runtime.call({ tool: "slow", input: { ms: 120_000 }, runId: "deadline-run", deadlineMs: 200 });
    expect(result.failure).toEqual({ kind: "control_plane", reason: "deadline_exceeded", runCanContinue: false });
    expect(result.error).toMatch(/^The run has ended: The operation deadline of 200 ms passed before the call finished, so the call was stopped and the run ended\. .*--deadline MS/);
  });
});

describe("refusals", () => {
  it("a call id the run does not have names the calls waiting in it, the nearest first (new-user trial of 6 December)", async () => {
    expect(await runtime.call({ tool: "record_note", input: { note: "n" }, runId: "hint-run", callId: "call-1" })).toMatchObject({ status: "approval_required" });
    const refused = runtime.approve({ runId: "hint-run", callId: "call-2" });
    await expect(refused).rejects.toMatchObject({ code: "AL8023" });
    const error = (await refused.catch((caught: unknown) => caught)) as { diagnostics: { hint?: string }[] };
    expect(error.diagnostics[0]!.hint).toBe("Did you mean 'call-1'? Waiting for approval in this run: call-1 (record_note).");
    // A run id one typo off names that run, and that it holds the call's approval (new-user trial 125).
    const typo = (await runtime.approve({ runId: "hint-rum", callId: "call-1" }).catch((caught: unknown) => caught)) as { code: string; diagnostics: { hint?: string }[] };
    expect(typo.code).toBe("AL8045");
    expect(typo.diagnostics[0]!.hint).toBe("Did you mean 'hint-run', a run of this agent with call 'call-1' waiting for approval?");
    // Decided: the hint no longer says it is waiting (new-user trial 129).
    expect(await runtime.approve({ runId: "hint-run", callId: "call-1", deny: true })).toMatchObject({ status: "failed" });
    const decided = (await runtime.approve({ runId: "hint-rum", callId: "call-1" }).catch((caught: unknown) => caught)) as { diagnostics: { hint?: string }[] };
    expect(decided.diagnostics[0]!.hint).toBe("Did you mean 'hint-run', a run of this agent whose call 'call-1' was already denied?");
    const far = (await runtime.approve({ runId: "hint-rumba", callId: "call-1" }).catch((caught: unknown) => caught)) as { diagnostics: { hint?: string }[] };
    expect(far.diagnostics[0]!.hint).toMatch(/^Use the runId and callId printed by the `call`/);
  });

  it("refuses unknown surfaces, bad ids, unknown approvals, reused call ids and a closed runtime", async () => {
    await expect(runtime.call({ surface: "subagents/nope", tool: "echo", input: {} })).rejects.toMatchObject({ code: "AL8020" });
    await expect(runtime.call({ tool: "echo", input: {}, runId: "../escape" })).rejects.toMatchObject({ code: "AL8022" });
    await expect(runtime.approve({ runId: "db-run", callId: "nope" })).rejects.toMatchObject({ code: "AL8023" });
    // A run the state has no record of is said to be unknown, not to lack the call (helper-64 M25c).
    await expect(runtime.approve({ runId: "run_nope", callId: "c1" })).rejects.toMatchObject({
      code: "AL8045",
      message: "Run 'run_nope' has no record in this agent's state (.assemblyline/state.db), so it has no call 'c1' waiting for approval.",
    });
    expect(runtime.hasRun("run_nope")).toBe(false);
    await runtime.call({ tool: "echo", input: { message: "a" }, runId: "reuse-run", callId: "c1" });
    await expect(runtime.call({ tool: "echo", input: { message: "b" }, runId: "reuse-run", callId: "c1" })).rejects.toMatchObject({ code: "AL8024" });
    const retry = await runtime.call({ tool: "echo", input: { message: "a" }, runId: "reuse-run", callId: "c1" });
    expect(retry.status).toBe("ok");
    expect(runtime.callRecord("reuse-run", "c1")?.attempts).toBe(2);
    const other = await openRuntime({ root: agent.root });
    await other.close();
    await expect(other.call({ tool: "echo", input: {} })).rejects.toMatchObject({ code: "AL8025" });
  });
});
