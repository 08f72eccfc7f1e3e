/**
 * A fresh review of the per-run call journal (helper-122, docs/runtime.md "Tenth round"): a host
 * that journaled calls and then lost the run (paused past its lease; another host took the run
 * over, claimed its journal and folded it) still holds those records in memory until its next
 * write notices. Its readers must not answer from that memory once the records are in state.db:
 * each call's events once, and the call record's `attempts` as recorded (1), not twice over.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JournaledCall } from "../../runtime-min/state/run-journal.js";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { echoRecord } from "./helpers/echo-record.js";

let root: string;
const stateDb = () => path.join(root, ".assemblyline", "state.db");
const runId = "run-lost-lease-readers";

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "al-journal-lost-"));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const call = (callId: string): Omit<JournaledCall, "seq"> => echoRecord(callId);

describe("the readers of a host whose run was taken over", () => {
  it("see each journaled call once after the new holder folded it: events once, attempts 1", () => {
    const t0 = Date.now();
    const holder = StateStore.open(stateDb(), { callJournal: true });
    const taker = StateStore.open(stateDb(), { callJournal: true });
    try {
      const first = holder.takeLease(runId, "holder", t0, 1_000);
      expect(first.outcome).toBe("taken");
      holder.openRun(runId, "holder", (first as { epoch: number }).epoch);
      holder.journalCall(runId, call("c1"));
      holder.journalCall(runId, call("c2"));
      // The holder pauses past its lease; another host takes the run over and folds its journal.
      const second = taker.takeLease(runId, "taker", t0 + 2_000, 60_000);
      expect(second.outcome).toBe("taken");
      taker.openRun(runId, "taker", (second as { epoch: number }).epoch);
      expect(taker.listEvents(runId).map((event) => event.callId)).toEqual(["c1", "c1", "c2", "c2"]);
      // The paused holder resumes and reads the run (runtime.events, runtime.callRecord).
      expect(holder.listEvents(runId).map((event) => event.callId)).toEqual(["c1", "c1", "c2", "c2"]);
      expect(holder.getCall(runId, "c1")).toMatchObject({ status: "ok", attempts: 1 });
    } finally {
      holder.close();
      taker.close();
    }
  });
});
