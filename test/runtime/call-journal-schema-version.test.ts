/**
 * A fresh review of the per-run call journal (helper-122, docs/runtime.md "Tenth round"): once a
 * state.db's runs may have unfolded call journals beside them, a runtime that knows nothing of
 * journals must not open it. Such a runtime — every release before the journal, schema version
 * 3 — reads and writes `state.db` only: it takes a run over without claiming or folding the
 * journal, so calls another host journaled are invisible to it (a reused call id with another
 * input is not refused, a recorded call is run again as attempt 1), and a later fold by a
 * journal-aware host upserts over what it wrote. Runtimes refuse a state.db whose
 * `user_version` is newer than theirs (schema.ts `schemaVersion`), so the journal's format
 * has to carry a version above 3.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { STATE_SCHEMA_SQL } from "../../runtime-min/state/schema.js";
import { StateStore } from "../../runtime-min/state/state-store.js";

/** The last schema version whose runtimes know nothing of call journals (main before helper-117's branch). */
const LAST_VERSION_WITHOUT_JOURNALS = 3;

let root: string;
const stateDb = () => path.join(root, ".assemblyline", "state.db");

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "al-journal-version-"));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function userVersion(): number {
  const db = new Database(stateDb(), { readonly: true });
  try {
    return db.pragma("user_version", { simple: true }) as number;
  } finally {
    db.close();
  }
}

describe("the state.db schema version, with call journals", () => {
  it("a new state.db carries a version the runtimes without journals (version 3) refuse", () => {
    StateStore.open(stateDb(), { callJournal: true }).close();
    expect(userVersion()).toBeGreaterThan(LAST_VERSION_WITHOUT_JOURNALS);
  });

  it("a version-3 state.db is migrated on open (journal_folded added, the version raised), its runs kept", () => {
    fs.mkdirSync(path.dirname(stateDb()), { recursive: true });
    const old = new Database(stateDb());
    old.pragma("journal_mode = WAL");
    // Version 3's runs table had no journal_folded column: today's DDL without it.
    old.exec(STATE_SCHEMA_SQL.replace(/,\s*journal_folded\s+TEXT/, ""));
    expect((old.prepare("PRAGMA table_info(runs)").all() as { name: string }[]).map((column) => column.name)).not.toContain("journal_folded");
    old.prepare("INSERT INTO runs (run_id, status, created_at, updated_at) VALUES ('old-run', 'active', 't', 't')").run();
    old.pragma(`user_version = ${LAST_VERSION_WITHOUT_JOURNALS}`);
    old.close();
    const store = StateStore.open(stateDb(), { callJournal: true });
    try {
      expect(store.getRun("old-run")).toMatchObject({ runId: "old-run", status: "active" });
      const take = store.takeLease("old-run", "host", Date.now(), 60_000);
      expect(take.outcome).toBe("taken");
      store.openRun("old-run", "host", (take as { epoch: number }).epoch);
      store.closeRun("old-run");
    } finally {
      store.close();
    }
    expect(userVersion()).toBeGreaterThan(LAST_VERSION_WITHOUT_JOURNALS);
  });
});
