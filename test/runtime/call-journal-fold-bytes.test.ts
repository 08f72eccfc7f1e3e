/**
 * A fresh review of the per-run call journal (helper-122, docs/runtime.md "Tenth round"): the
 * holder keeps its unfolded records twice — in the journal file and as JSON text in memory —
 * until a fold, which was queued only after 1,000 records whatever their size. A tool's result
 * may be up to `maxResultBytes` (8 MiB by default), so a few hundred such calls held gigabytes
 * in the host's heap, and a journal past 2 GiB can no longer be read by the next host at all.
 * What the holder keeps unfolded must be bounded in bytes too: here 24 calls with 1 MiB results,
 * the event loop turned after each (when a queued fold runs), must not all stay unfolded.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { echoRecord } from "./helpers/echo-record.js";

let root: string;
const stateDb = () => path.join(root, ".assemblyline", "state.db");
const runId = "run-large-results";
const CALLS = 24;
const RESULT = "x".repeat(1024 * 1024);

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "al-journal-bytes-"));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function foldedCalls(): number {
  const db = new Database(stateDb(), { readonly: true });
  try {
    return db.prepare("SELECT COUNT(*) FROM calls WHERE run_id = ?").pluck().get(runId) as number;
  } finally {
    db.close();
  }
}

describe("the holder's unfolded journal", () => {
  it("is folded before it holds 24 MiB of results (a fold is queued by bytes, not only after 1,000 records)", async () => {
    const store = StateStore.open(stateDb(), { callJournal: true });
    try {
      const take = store.takeLease(runId, "holder", Date.now(), 3_600_000);
      expect(take.outcome).toBe("taken");
      store.openRun(runId, "holder", (take as { epoch: number }).epoch);
      for (let i = 1; i <= CALLS; i++) {
        const callId = `c${i}`;
        store.journalCall(runId, echoRecord(callId, { message: RESULT }));
        // A host returns the result and turns the event loop between calls (a queued fold runs then).
        await new Promise((resolve) => setImmediate(resolve));
      }
      const journal = path.join(root, ".assemblyline", "runs", runId, `journal-${(take as { epoch: number }).epoch}.bin`);
      expect(foldedCalls()).toBeGreaterThan(CALLS / 2);
      expect(fs.statSync(journal).size).toBeLessThan((CALLS / 2) * RESULT.length);
      // Every call is still seen once by the holder's readers.
      expect(store.getCall(runId, "c1")).toMatchObject({ status: "ok", attempts: 1 });
      expect(store.listEvents(runId)).toHaveLength(2 * CALLS);
      store.closeRun(runId);
    } finally {
      store.close();
    }
    expect(foldedCalls()).toBe(CALLS);
  });
});
