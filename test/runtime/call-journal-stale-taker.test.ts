/**
 * A fresh review of the per-run call journal (helper-122, docs/runtime.md "Tenth round"): a host
 * that took the run's lease and then paused before `openRun` (longer than its lease) is a stale
 * taker. By then another host has taken the run in a newer epoch and is journaling calls. The
 * stale taker's `openRun` must not claim (rename) nor fold the newer holder's live journal: that
 * fails the holder's next call as a lost lease although it holds the lease, and — when the holder
 * then folds what it holds in memory — records its calls twice (attempts 2, events doubled).
 * Made with two StateStores on one state.db, in one process (no clock games: the stale taker's
 * lease is simply written as already expired when the newer host takes the run).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JournaledCall } from "../../runtime-min/state/run-journal.js";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { echoRecord } from "./helpers/echo-record.js";

let root: string;
const stateDb = () => path.join(root, ".assemblyline", "state.db");
const runId = "run-stale-taker";

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "al-journal-stale-"));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const call = (callId: string): Omit<JournaledCall, "seq"> => echoRecord(callId);

/** state.db's own rows for the run (no journal): attempts per call and event types per call. */
function inStateDb(): { attempts: Map<string, number>; events: Map<string, string[]> } {
  const db = new Database(stateDb(), { readonly: true });
  try {
    const calls = db.prepare("SELECT call_id, attempts FROM calls WHERE run_id = ?").all(runId) as { call_id: string; attempts: number }[];
    const rows = db.prepare("SELECT call_id, type FROM events WHERE run_id = ? ORDER BY seq").all(runId) as { call_id: string; type: string }[];
    const events = new Map<string, string[]>();
    for (const row of rows) events.set(row.call_id, [...(events.get(row.call_id) ?? []), row.type]);
    return { attempts: new Map(calls.map((row) => [row.call_id, row.attempts])), events };
  } finally {
    db.close();
  }
}

/**
 * The stale taker `stale` took the lease (epoch 1, 1 s) and paused; `holder` took the run over
 * once that lease had lapsed (epoch 2), opened it and journaled c1 and c2. Returns both stores
 * (the stale taker not yet resumed) and the holder's epoch.
 */
function staleAndHolder(): { stale: StateStore; holder: StateStore; staleEpoch: number; holderEpoch: number } {
  const t0 = Date.now();
  const stale = StateStore.open(stateDb(), { callJournal: true });
  const holder = StateStore.open(stateDb(), { callJournal: true });
  const first = stale.takeLease(runId, "stale", t0, 1_000);
  expect(first.outcome).toBe("taken");
  // The stale taker pauses here (GC, SIGSTOP, a swapped-out VM) for longer than its lease.
  const second = holder.takeLease(runId, "holder", t0 + 2_000, 3_600_000);
  expect(second.outcome).toBe("taken");
  const staleEpoch = (first as { epoch: number }).epoch;
  const holderEpoch = (second as { epoch: number }).epoch;
  expect(holderEpoch).toBeGreaterThan(staleEpoch);
  holder.openRun(runId, "holder", holderEpoch);
  holder.journalCall(runId, call("c1"));
  holder.journalCall(runId, call("c2"));
  return { stale, holder, staleEpoch, holderEpoch };
}

describe("a stale taker (took the lease, paused past it, then opened the run)", () => {
  it("does not claim the newer holder's live journal: the holder's next journaled call is recorded, not failed as a lost lease", () => {
    const { stale, holder, staleEpoch } = staleAndHolder();
    try {
      // The stale taker resumes: openRun right after its (long lapsed) take.
      try {
        stale.openRun(runId, "stale", staleEpoch);
      } catch {
        // Refusing to open a run it no longer holds is fine too; what it must not do is below.
      }
      // The holder still holds the lease in its epoch: its call is recorded.
      expect(() => holder.journalCall(runId, call("c3"))).not.toThrow();
      holder.closeRun(runId);
    } finally {
      stale.close();
      holder.close();
    }
    const { attempts, events } = inStateDb();
    expect(Object.fromEntries(attempts)).toEqual({ c1: 1, c2: 1, c3: 1 });
    for (const callId of ["c1", "c2", "c3"]) expect(events.get(callId)).toEqual(["tool.execution_started", "tool.execution_completed"]);
  });

  it("does not fold the newer holder's journal: once the holder folds, each call is recorded once (attempts 1, two events), and the holder's readers never see it twice", () => {
    const { stale, holder, staleEpoch } = staleAndHolder();
    try {
      try {
        stale.openRun(runId, "stale", staleEpoch);
      } catch {
        // See the test above.
      }
      // Before the holder folds, its own readers see each call once.
      expect(holder.listEvents(runId).map((event) => event.callId)).toEqual(["c1", "c1", "c2", "c2"]);
      expect(holder.getCall(runId, "c1")).toMatchObject({ status: "ok", attempts: 1 });
      // The holder lets the run go idle: its journaled calls are folded.
      holder.closeRun(runId);
    } finally {
      stale.close();
      holder.close();
    }
    const { attempts, events } = inStateDb();
    expect(Object.fromEntries(attempts)).toEqual({ c1: 1, c2: 1 });
    for (const callId of ["c1", "c2"]) expect(events.get(callId)).toEqual(["tool.execution_started", "tool.execution_completed"]);
  });
});
