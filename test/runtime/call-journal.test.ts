/**
 * The per-run call journal (issue 14 item 2; docs/runtime.md, tenth round): a call that ends
 * `ok` without a `ctx` request is recorded as one checksummed append to
 * `runs/<run>/journal-<epoch>.bin` (`RuntimeOptions.callJournal`), folded into state.db exactly
 * once — before any other commit of the run, when the lease is let go, by whoever takes it
 * next — and seen by every reader of run state before it is folded. A record cut at every
 * byte offset, the takeover race with a paused writer, and readers in another process. The
 * journal's kill points (before the `write`, after it, between a fold's COMMIT and the
 * truncation, mid-stream) are in commit-crash.test.ts, beside the SQLite path's.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { decodeRecords, encodeRecord, JournalWriter, type JournaledCall } from "../../runtime-min/state/run-journal.js";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { pollFor } from "./helpers/sandbox-processes.js";
import { echoRecord } from "./helpers/echo-record.js";

const loader = path.join(import.meta.dirname, "helpers", "ts-loader.mjs");
const host = path.join(import.meta.dirname, "helpers", "journal-host.ts");
let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
});

afterAll(() => agent?.cleanup());

const stateDb = () => path.join(agent.root, ".assemblyline/state.db");
const runDir = (runId: string) => path.join(agent.root, ".assemblyline/runs", runId);
const journals = (runId: string) => (fs.existsSync(runDir(runId)) ? fs.readdirSync(runDir(runId)).filter((name) => name.startsWith("journal-")) : []);

/** What state.db itself holds for `runId` (no journal): calls, and each call's event types; integrity checked. */
function inStateDb(runId: string): { calls: Map<string, { status: string; output: string | null; attempts: number }>; events: Map<string, string[]>; seqs: number[] } {
  const db = new Database(stateDb(), { readonly: true });
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const calls = db.prepare("SELECT call_id, status, output_json, attempts FROM calls WHERE run_id = ?").all(runId) as { call_id: string; status: string; output_json: string | null; attempts: number }[];
    const rows = db.prepare("SELECT seq, call_id, type FROM events WHERE run_id = ? ORDER BY seq").all(runId) as { seq: number; call_id: string; type: string }[];
    const events = new Map<string, string[]>();
    for (const row of rows) events.set(row.call_id, [...(events.get(row.call_id) ?? []), row.type]);
    return { calls: new Map(calls.map((call) => [call.call_id, { status: call.status, output: call.output_json, attempts: call.attempts }])), events, seqs: rows.map((row) => row.seq) };
  } finally {
    db.close();
  }
}

const BOTH = ["tool.execution_started", "tool.execution_completed"];

/** Every call in state.db is `ok` with exactly its two events, seqs 1..n without gaps; returns the call ids. */
function recordedWhole(runId: string): string[] {
  const { calls, events, seqs } = inStateDb(runId);
  for (const [callId, call] of calls) {
    expect(call.status).toBe("ok");
    expect(events.get(callId)).toEqual(BOTH);
  }
  expect(new Set(events.keys())).toEqual(new Set(calls.keys()));
  expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  return [...calls.keys()].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
}

function journaled(seq: number, callId: string): JournaledCall {
  return {
    seq,
    ...echoRecord(callId),
    // The started event as the runtime records it (surface and boundary too).
    events: [
      { type: "tool.execution_started", data: { tool: "echo", callId, surface: ".", runtimeBoundary: "sandbox" } },
      { type: "tool.execution_completed", data: { tool: "echo", callId } },
    ],
  };
}

describe("the call journal's records", () => {
  it("reads back whole records only: a journal cut at every byte offset of its last record yields the records before it", () => {
    const whole = [1, 2, 3].map((seq) => encodeRecord(journaled(seq, `c${seq}`)));
    const bytes = Buffer.concat(whole);
    const last = whole[2]!.length;
    for (let cut = 0; cut <= last; cut++) {
      const { records, validBytes } = decodeRecords(bytes.subarray(0, bytes.length - last + cut));
      expect(records.map((record) => record.callId)).toEqual(cut === last ? ["c1", "c2", "c3"] : ["c1", "c2"]);
      expect(validBytes).toBe(cut === last ? bytes.length : bytes.length - last);
    }
    // A flipped byte anywhere in a record stops the read there.
    for (let at = 0; at < whole[1]!.length; at++) {
      const damaged = Buffer.from(bytes);
      damaged[whole[0]!.length + at]! ^= 0x01;
      expect(decodeRecords(damaged).records.map((record) => record.callId)).toEqual(["c1"]);
    }
  });

  it("a host taking the run folds a journal cut at every byte offset of its last record: the whole records once, never half a call", () => {
    const whole = [1, 2, 3, 4, 5].map((seq) => encodeRecord(journaled(seq, `c${seq}`)));
    const last = whole[4]!.length;
    const step = Math.max(1, Math.floor(last / 60));
    const cuts = [...new Set([...Array.from({ length: last + 1 }, (_, cut) => cut).filter((cut) => cut % step === 0 || cut < 12 || cut > last - 12), last])];
    for (const cut of cuts) {
      const runId = `cut-${cut}`;
      fs.mkdirSync(runDir(runId), { recursive: true });
      fs.writeFileSync(path.join(runDir(runId), "journal-1.bin"), Buffer.concat([...whole.slice(0, 4), whole[4]!.subarray(0, cut)]));
      const store = StateStore.open(stateDb());
      try {
        const take = store.takeLease(runId, "taker", Date.now(), 60_000);
        expect(take.outcome).toBe("taken");
        store.openRun(runId, "taker", (take as { epoch: number }).epoch);
        store.closeRun(runId);
      } finally {
        store.close();
      }
      expect(recordedWhole(runId)).toEqual(cut === last ? ["c1", "c2", "c3", "c4", "c5"] : ["c1", "c2", "c3", "c4"]);
      expect(journals(runId)).toEqual([]);
    }
  });
});

describe("the callJournal option", () => {
  it("refuses anything but a boolean (AL8067)", async () => {
    for (const callJournal of ["yes", 1, null, {}]) {
      await expect(openRuntime({ root: agent.root, callJournal: callJournal as unknown as boolean })).rejects.toMatchObject({ name: "RuntimeError", code: "AL8067" });
    }
  });

  it("on by default: the common call is appended to the run's journal, not committed to state.db, until the lease is let go", async () => {
    const runtime = await openRuntime({ root: agent.root });
    try {
      await runtime.call({ tool: "echo", input: { message: "m1" }, runId: "journal-by-default", callId: "c1" });
      expect(inStateDb("journal-by-default").calls.size).toBe(0);
      expect(journals("journal-by-default")).toEqual([expect.stringMatching(/^journal-\d+\.bin$/)]);
    } finally {
      await runtime.close();
    }
    expect(inStateDb("journal-by-default").calls.size).toBe(1);
    expect(journals("journal-by-default")).toEqual([]);
  });

  it("off (callJournal: false), the common call is committed to state.db and no journal is made", async () => {
    const runtime = await openRuntime({ root: agent.root, callJournal: false });
    try {
      await runtime.call({ tool: "echo", input: { message: "m1" }, runId: "no-journal", callId: "c1" });
      expect(inStateDb("no-journal").calls.size).toBe(1);
      expect(journals("no-journal")).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});

describe("journaled calls in one host", () => {
  it("are appended, not committed, and every reader of the host sees them; letting the lease go folds them once and removes the journal", async () => {
    const runtime = await openRuntime({ root: agent.root, callJournal: true });
    const runId = "one-host";
    try {
      for (const i of [1, 2, 3]) expect(await runtime.call({ tool: "echo", input: { message: `m${i}` }, runId, callId: `c${i}` })).toMatchObject({ status: "ok", output: { message: `m${i}` } });
      // Nothing in state.db's calls: the three records are in the journal of the lease's epoch.
      expect(inStateDb(runId).calls.size).toBe(0);
      expect(journals(runId)).toEqual([expect.stringMatching(/^journal-\d+\.bin$/)]);
      expect(decodeRecords(fs.readFileSync(path.join(runDir(runId), journals(runId)[0]!))).records.map((record) => record.callId)).toEqual(["c1", "c2", "c3"]);
      expect(runtime.events(runId).map((event) => `${event.callId as string} ${event.type}`)).toEqual(["c1", "c2", "c3"].flatMap((id) => BOTH.map((type) => `${id} ${type}`)));
      expect(runtime.callRecord(runId, "c2")).toMatchObject({ status: "ok", attempts: 1, output: { message: "m2" }, modelOutput: { message: "m2" }, runtimeBoundary: "sandbox" });
      // A repeated call id is found in the journal: reused for another input, it is refused.
      await expect(runtime.call({ tool: "echo", input: { message: "other" }, runId, callId: "c2" })).rejects.toMatchObject({ code: "AL8024" });
      // The same call again is its second attempt (as with state.db).
      await runtime.call({ tool: "echo", input: { message: "m2" }, runId, callId: "c2" });
      expect(runtime.callRecord(runId, "c2")).toMatchObject({ status: "ok", attempts: 2 });
      // Any other commit of the run (here a failed call's) folds the journal first: events keep their order.
      expect(await runtime.call({ tool: "echo", input: { message: 5 }, runId, callId: "bad" })).toMatchObject({ status: "failed" });
      expect(inStateDb(runId).calls.size).toBe(4);
      expect(runtime.events(runId).map((event) => event.callId)).toEqual(["c1", "c1", "c2", "c2", "c3", "c3", "c2", "c2", "bad"]);
      expect(runtime.events(runId).at(-1)).toMatchObject({ type: "tool.execution_failed", callId: "bad" });
      await runtime.call({ tool: "echo", input: { message: "m4" }, runId, callId: "c4" });
    } finally {
      await runtime.close();
    }
    const { calls, seqs } = inStateDb(runId);
    expect([...calls.keys()].sort()).toEqual(["bad", "c1", "c2", "c3", "c4"]);
    expect(calls.get("c2")).toEqual({ status: "ok", output: '{"message":"m2"}', attempts: 2 });
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(journals(runId)).toEqual([]);
  });

  it("keeps what was recorded, not the returned objects a host changes afterwards", async () => {
    const runtime = await openRuntime({ root: agent.root, callJournal: true });
    try {
      const result = await runtime.call({ tool: "echo", input: { message: "m1" }, runId: "changed-after", callId: "c1" });
      (result.output as { message: string }).message = "changed";
      expect(runtime.callRecord("changed-after", "c1")).toMatchObject({ output: { message: "m1" }, modelOutput: { message: "m1" } });
    } finally {
      await runtime.close();
    }
    expect(inStateDb("changed-after").calls.get("c1")?.output).toBe('{"message":"m1"}');
  });

  it("counts journaled events in the run's stored size (maxRunStateBytes)", async () => {
    const runtime = await openRuntime({ root: agent.root, callJournal: true });
    const runId = "state-bytes";
    const store = StateStore.open(stateDb());
    let one = 0;
    try {
      await runtime.call({ tool: "echo", input: { message: "m1" }, runId, callId: "c1" });
      one = store.runStateBytes(runId);
      expect(one).toBeGreaterThan(0);
      expect(inStateDb(runId).calls.size).toBe(0);
      await runtime.call({ tool: "echo", input: { message: "m2" }, runId, callId: "c2" });
      // Another store (no lease) reads the journal file; its answer is not kept while the journal can grow.
      expect(store.runStateBytes(runId)).toBe(2 * one);
    } finally {
      store.close();
      await runtime.close();
    }
    const after = StateStore.open(stateDb());
    try {
      expect(after.runStateBytes(runId)).toBe(2 * one);
    } finally {
      after.close();
    }
  });
});

describe("the takeover race with a paused writer", () => {
  /** A second host taking the run over while `runtime`'s lease is still written as live (a paused writer whose lease lapsed). */
  function takeOver(runId: string): void {
    const taker = StateStore.open(stateDb());
    try {
      const take = taker.takeLease(runId, "taker", Date.now() + 3_600_000, 60_000);
      expect(take.outcome).toBe("taken");
      taker.openRun(runId, "taker", (take as { epoch: number }).epoch);
      taker.closeRun(runId);
      taker.releaseLease(runId, "taker", (take as { epoch: number }).epoch);
    } finally {
      taker.close();
    }
  }

  async function race(runId: string, when: "before the lease check" | "between the lease check and the write" | "between the write and the identity check") {
    const runtime: Runtime = await openRuntime({ root: agent.root, callJournal: true });
    const append = JournalWriter.prototype.append;
    const assertStillOurs = JournalWriter.prototype.assertStillOurs;
    try {
      expect(await runtime.call({ tool: "echo", input: { message: "m1" }, runId, callId: "c1" })).toMatchObject({ status: "ok" });
      let armed = true;
      if (when === "between the lease check and the write") {
        JournalWriter.prototype.append = function (this: JournalWriter, record: Buffer) {
          if (armed) (armed = false), takeOver(runId);
          append.call(this, record);
        };
      } else if (when === "between the write and the identity check") {
        JournalWriter.prototype.assertStillOurs = function (this: JournalWriter) {
          if (armed) (armed = false), takeOver(runId);
          assertStillOurs.call(this);
        };
      } else takeOver(runId);
      const second = await runtime.call({ tool: "echo", input: { message: "m2" }, runId, callId: "c2" });
      return second;
    } finally {
      JournalWriter.prototype.append = append;
      JournalWriter.prototype.assertStillOurs = assertStillOurs;
      await runtime.close();
    }
  }

  for (const when of ["before the lease check", "between the lease check and the write", "between the write and the identity check"] as const) {
    it(`a takeover ${when}: the writer's call fails as a lost lease, never ok; what the taker folded is recorded once`, async () => {
      const runId = `race-${when.replace(/ /g, "-")}`;
      const second = await race(runId, when);
      expect(second).toMatchObject({ status: "failed", failure: { kind: "control_plane", runCanContinue: false } });
      expect(second.status === "failed" && second.error).toMatch(/lease|claimed/);
      const calls = recordedWhole(runId);
      // c1 was journaled under the writer's lease and folded by the taker; c2's record, when it
      // landed in the claimed journal before the taker read it, is folded too (like a commit whose
      // result was never returned), and never twice.
      expect(calls).toEqual(when === "between the write and the identity check" ? ["c1", "c2"] : ["c1"]);
      expect(inStateDb(runId).calls.get("c1")).toEqual({ status: "ok", output: '{"message":"m1"}', attempts: 1 });
      expect(journals(runId)).toEqual([]);
    });
  }
});

describe("readers in another process", () => {
  it("see calls another host journaled and has not folded: events, the call record, a repeated call id, the run's stored size", async () => {
    const runId = "held-elsewhere";
    const child = spawn(process.execPath, ["--import", loader, host, agent.root, runId, "hold", "3"], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      await pollFor(() => (/^ready$/m.test(stdout) ? true : undefined), 60_000);
      expect(inStateDb(runId).calls.size).toBe(0);
      const reader = await openRuntime({ root: agent.root });
      const store = StateStore.open(stateDb());
      try {
        expect(reader.events(runId).map((event) => `${event.callId as string} ${event.type}`)).toEqual(["c1", "c2", "c3"].flatMap((id) => BOTH.map((type) => `${id} ${type}`)));
        expect(reader.events(runId).map((event) => event.type)).toHaveLength(6);
        expect(store.listEvents(runId).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(store.listEvents(runId, "c2").map((event) => event.seq)).toEqual([3, 4]);
        expect(reader.callRecord(runId, "c3")).toMatchObject({ status: "ok", output: { message: "m3" }, attempts: 1 });
        expect(store.hasCallOrApproval(runId, "c2")).toBe(true);
        expect(store.hasCallOrApproval(runId, "c9")).toBe(false);
        expect(store.runStateBytes(runId)).toBe(store.listEvents(runId).reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event.data)), 0));
        // The holder's lease is live: the run is refused here, nothing recorded.
        await expect(reader.call({ tool: "echo", input: { message: "m4" }, runId, callId: "c4" })).rejects.toMatchObject({ code: "AL8028" });
      } finally {
        store.close();
        await reader.close();
      }
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    // Once the lease lapsed, a new host folds the journal and finds the repeated call id in it.
    const next = await openRuntime({ root: agent.root });
    try {
      for (;;) {
        try {
          await next.call({ tool: "echo", input: { message: "other" }, runId, callId: "c2" });
          throw new Error("c2 reused for another input was not refused");
        } catch (error) {
          if ((error as { code?: string }).code === "AL8028") {
            await new Promise((resolve) => setTimeout(resolve, 50));
            continue;
          }
          expect(error).toMatchObject({ code: "AL8024" });
          break;
        }
      }
    } finally {
      await next.close();
    }
    expect(recordedWhole(runId)).toEqual(["c1", "c2", "c3"]);
    expect(journals(runId)).toEqual([]);
  });
});
