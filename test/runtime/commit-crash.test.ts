/**
 * Issue 14 item 2 ("No contract test weakened"): run state survives a crash of the host, on
 * both paths a result is recorded by.
 * - SQLite (`callJournal: false`): the host is SIGKILLed inside the commit of a call's result,
 *   and at arbitrary moments of a stream of calls; afterwards state.db is intact, every call the
 *   host returned is recorded with its result and both of its events (a result is committed
 *   before it is returned: no batching or deferred commit can lose it), nothing is recorded
 *   half, and a new host continues the run.
 * - The call journal (the default; docs/runtime.md, tenth round): the same claims at the
 *   journal's kill points — before the `write` (no trace), after it and before the reply (the
 *   call recorded once; its retry finds the recorded call), between a fold's COMMIT and the
 *   truncation (folded exactly once), and at arbitrary moments of a stream. Before any host
 *   folded, a reader in another process sees the journaled calls; once the next host took the
 *   run, state.db holds them.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime } from "../../runtime-min/index.js";
import { decodeRecords, journalEpoch } from "../../runtime-min/state/run-journal.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { pollFor } from "./helpers/sandbox-processes.js";

const loader = path.join(import.meta.dirname, "helpers", "ts-loader.mjs");
const host = path.join(import.meta.dirname, "helpers", "commit-crash-host.ts");
let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
});

afterAll(() => agent?.cleanup());

type StorePath = "sqlite" | "journal";
type Recorded = Map<string, { status: string; output: string | null; attempts: number }>;
const BOTH = ["tool.execution_started", "tool.execution_completed"];
const returnedIn = (stdout: string) => [...stdout.matchAll(/^returned (c\d+)$/gm)].map((match) => match[1]!);
const runDir = (runId: string) => path.join(agent.root, ".assemblyline/runs", runId);
const journals = (runId: string) => (fs.existsSync(runDir(runId)) ? fs.readdirSync(runDir(runId)).filter((name) => journalEpoch(name) !== undefined) : []);

/** Runs the host helper to its end (a SIGKILL of its own); returns its result. */
function runHost(runId: string, store: StorePath, mode: string, n: number) {
  return spawnSync(process.execPath, ["--import", loader, host, agent.root, runId, store, mode, String(n)], { encoding: "utf8", timeout: 120_000 });
}

/**
 * What state.db itself holds for `runId` (raw SQLite: no journal), checked for integrity and for
 * calls recorded half: every call is `ok` with its two events once per attempt, and no event
 * belongs to a call that is not recorded.
 */
function recorded(runId: string): Recorded {
  const db = new Database(path.join(agent.root, ".assemblyline/state.db"), { readonly: true });
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const calls = db.prepare("SELECT call_id, status, output_json, attempts FROM calls WHERE run_id = ?").all(runId) as { call_id: string; status: string; output_json: string | null; attempts: number }[];
    const events = db.prepare("SELECT call_id, type FROM events WHERE run_id = ? ORDER BY seq").all(runId) as { call_id: string; type: string }[];
    for (const call of calls) {
      // A recorded call has its result and exactly its two events per attempt: the commit was all or nothing.
      expect(call.status).toBe("ok");
      expect(events.filter((event) => event.call_id === call.call_id).map((event) => event.type)).toEqual(Array.from({ length: call.attempts }, () => BOTH).flat());
    }
    expect(new Set(events.map((event) => event.call_id))).toEqual(new Set(calls.map((call) => call.call_id)));
    return new Map(calls.map((call) => [call.call_id, { status: call.status, output: call.output_json, attempts: call.attempts }]));
  } finally {
    db.close();
  }
}

/**
 * What a reader in another process (a runtime that does not take the run) sees of `runId`'s
 * calls — state.db and the run's journals, nothing folded — checked as {@link recorded} is;
 * each call of `absent` must have no record at all.
 */
async function seenByReader(runId: string, absent: readonly string[]): Promise<Recorded> {
  const reader = await openRuntime({ root: agent.root });
  try {
    const events = reader.events(runId);
    const seen: Recorded = new Map();
    for (const callId of new Set(events.map((event) => event.callId as string))) {
      const record = reader.callRecord(runId, callId)!;
      expect(record.status).toBe("ok");
      expect(events.filter((event) => event.callId === callId).map((event) => event.type)).toEqual(Array.from({ length: record.attempts }, () => BOTH).flat());
      seen.set(callId, { status: record.status, output: JSON.stringify(record.output), attempts: record.attempts });
    }
    for (const callId of absent) expect(reader.callRecord(runId, callId)).toBeUndefined();
    return seen;
  } finally {
    await reader.close();
  }
}

/**
 * Calls `echo` as `callId` in a new host on `store`'s path, once the dead host's lease (5 s)
 * expired (AL8028 until then: polled, no fixed sleep); returns its result. The host closes
 * afterwards, so whatever it journaled is folded into state.db.
 */
async function retry(runId: string, callId: string, message: string, store: StorePath) {
  const runtime = await openRuntime({ root: agent.root, callJournal: store === "journal" });
  try {
    for (;;) {
      try {
        return await runtime.call({ tool: "echo", input: { message }, runId, callId });
      } catch (error) {
        if ((error as { code?: string }).code !== "AL8028") throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    await runtime.close();
  }
}

/** Starts the host in `until-killed` mode, kills it `delayMs` after its first returned call; returns the calls it returned. */
async function killMidStream(runId: string, store: StorePath, delayMs: number): Promise<string[]> {
  const child = spawn(process.execPath, ["--import", loader, host, agent.root, runId, store, "until-killed"], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  // Wait for the first returned call (start-up is not what is measured), then kill after `delayMs`.
  await pollFor(() => (returnedIn(stdout).length > 0 ? true : undefined), 60_000);
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
  return returnedIn(stdout);
}

const one = (i: number, attempts = 1) => ({ status: "ok", output: JSON.stringify({ message: `m${i}` }), attempts });

describe("a host killed mid-commit (the SQLite path: callJournal false)", () => {
  it("killed inside the commit of its 5th result: calls 1–4 are recorded whole, call 5 not at all, and its retry is its first attempt", async () => {
    const runId = "inside-commit";
    const run = runHost(runId, "sqlite", "inside-commit", 5);
    expect(run.signal).toBe("SIGKILL");
    expect(returnedIn(run.stdout)).toEqual(["c1", "c2", "c3", "c4"]);
    const calls = recorded(runId);
    expect([...calls.keys()].sort()).toEqual(["c1", "c2", "c3", "c4"]);
    expect(calls.get("c4")).toEqual({ status: "ok", output: '{"message":"m4"}', attempts: 1 });
    const again = await retry(runId, "c5", "m5", "sqlite");
    expect(again).toMatchObject({ status: "ok", output: { message: "m5" } });
    expect(recorded(runId).get("c5")).toEqual({ status: "ok", output: '{"message":"m5"}', attempts: 1 });
    expect(journals(runId)).toEqual([]);
  });

  it("killed at arbitrary moments of a stream of calls: every call it returned is recorded, with its result", async () => {
    for (const [round, delayMs] of [100, 350, 800].entries()) {
      const runId = `until-killed-${round}`;
      const returned = await killMidStream(runId, "sqlite", delayMs);
      const calls = recorded(runId);
      for (const callId of returned) expect(calls.get(callId)).toEqual(one(Number(callId.slice(1))));
      // At most the call in flight was committed without being reported.
      expect(calls.size - returned.length).toBeGreaterThanOrEqual(0);
      expect(calls.size - returned.length).toBeLessThanOrEqual(1);
      // The run continues in a new host.
      const next = `c${calls.size + 1}`;
      expect(await retry(runId, next, `m${calls.size + 1}`, "sqlite")).toMatchObject({ status: "ok" });
    }
  });
});

describe("a host killed around the call journal's write (the default path)", () => {
  it("killed right before the write of its 5th record: calls 1–4 are recorded whole (seen before any fold, in state.db once the next host took the run), call 5 not at all, and its retry is its first attempt", async () => {
    const runId = "journal-before-write";
    const run = runHost(runId, "journal", "before-write", 5);
    expect(run.signal).toBe("SIGKILL");
    expect(returnedIn(run.stdout)).toEqual(["c1", "c2", "c3", "c4"]);
    // Nothing was committed to state.db: the four records are in the journal of the dead host's epoch.
    expect(recorded(runId).size).toBe(0);
    const seen = await seenByReader(runId, ["c5"]);
    expect([...seen.keys()].sort()).toEqual(["c1", "c2", "c3", "c4"]);
    expect(seen.get("c4")).toEqual(one(4));
    const again = await retry(runId, "c5", "m5", "journal");
    expect(again).toMatchObject({ status: "ok", output: { message: "m5" } });
    const calls = recorded(runId);
    expect([...calls.keys()].sort()).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    for (const i of [1, 2, 3, 4, 5]) expect(calls.get(`c${i}`)).toEqual(one(i));
    expect(journals(runId)).toEqual([]);
  });

  it("killed after the write of its 5th record, before the reply: the call is recorded once, and its retry with the same call id finds the recorded call (its next attempt; another input is AL8024)", async () => {
    const runId = "journal-after-write";
    const run = runHost(runId, "journal", "after-write", 5);
    expect(run.signal).toBe("SIGKILL");
    // c5's record was committed (written, and still in this host's journal), but never returned.
    expect(returnedIn(run.stdout)).toEqual(["c1", "c2", "c3", "c4"]);
    expect(recorded(runId).size).toBe(0);
    const seen = await seenByReader(runId, []);
    expect([...seen.keys()].sort()).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    expect(seen.get("c5")).toEqual(one(5));
    // The next host folds the journal when it takes the run, so it finds c5 recorded: reused for
    // another input the id is refused, and the same call again is its second attempt (as when a
    // SQLite commit landed and the host died before returning it).
    await expect(retry(runId, "c5", "other", "journal")).rejects.toMatchObject({ code: "AL8024" });
    expect(await retry(runId, "c5", "m5", "journal")).toMatchObject({ status: "ok", output: { message: "m5" } });
    const calls = recorded(runId);
    expect([...calls.keys()].sort()).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    for (const i of [1, 2, 3, 4]) expect(calls.get(`c${i}`)).toEqual(one(i));
    expect(calls.get("c5")).toEqual(one(5, 2));
    expect(journals(runId)).toEqual([]);
  });

  it("killed between a fold's COMMIT and the journal's truncation: folded exactly once — a reader meanwhile sees each call once, the next host folds nothing twice", async () => {
    const runId = "journal-after-fold-commit";
    const run = runHost(runId, "journal", "after-fold-commit", 3);
    expect(run.signal).toBe("SIGKILL");
    expect(returnedIn(run.stdout)).toEqual(["c1", "c2", "c3"]);
    // Folded and committed, the journal not truncated (what a lease renewal folded earlier was).
    const folded = recorded(runId);
    expect([...folded.keys()].sort()).toEqual(["c1", "c2", "c3"]);
    expect(journals(runId)).toHaveLength(1);
    const left = decodeRecords(fs.readFileSync(path.join(runDir(runId), journals(runId)[0]!))).records.map((record) => record.callId);
    expect(left.length).toBeGreaterThan(0);
    expect(left).toEqual(["c1", "c2", "c3"].slice(3 - left.length));
    // A reader meanwhile sees each call once (state.db's rows, not the journal's copies again).
    const seen = await seenByReader(runId, []);
    expect([...seen.keys()].sort()).toEqual(["c1", "c2", "c3"]);
    for (const i of [1, 2, 3]) expect(seen.get(`c${i}`)).toEqual(one(i));
    expect(await retry(runId, "c4", "m4", "journal")).toMatchObject({ status: "ok" });
    const calls = recorded(runId);
    for (const i of [1, 2, 3, 4]) expect(calls.get(`c${i}`)).toEqual(one(i));
    expect(calls.size).toBe(4);
    expect(journals(runId)).toEqual([]);
  });

  it("killed at arbitrary moments of a stream of journaled calls: every call it returned is seen by a reader before any fold, and recorded with its result once the next host took the run", async () => {
    for (const [round, delayMs] of [100, 350, 800].entries()) {
      const runId = `journal-until-killed-${round}`;
      const returned = await killMidStream(runId, "journal", delayMs);
      const seen = await seenByReader(runId, []);
      for (const callId of returned) expect(seen.get(callId)).toEqual(one(Number(callId.slice(1))));
      // At most the call in flight was recorded without being reported.
      expect(seen.size - returned.length).toBeGreaterThanOrEqual(0);
      expect(seen.size - returned.length).toBeLessThanOrEqual(1);
      // The run continues in a new host, which folds the journal first.
      expect(await retry(runId, `c${seen.size + 1}`, `m${seen.size + 1}`, "journal")).toMatchObject({ status: "ok" });
      const calls = recorded(runId);
      expect(calls.size).toBe(seen.size + 1);
      for (const [callId, call] of seen) expect(calls.get(callId)).toEqual(call);
      expect(journals(runId)).toEqual([]);
    }
  });
});
