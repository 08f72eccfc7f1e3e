/**
 * A fresh review of the per-run call journal (helper-122, docs/runtime.md "Tenth round"): the
 * `write` of a record that does not fit (a full disk, a file-size limit) is short, then fails.
 * The call must fail as the state store's failure, never `ok`; the journal must be cut back to
 * its whole records (no torn record left in front of later ones); and the next host must fold
 * exactly the calls that were reported `ok`. Made with a real short write: a host process under
 * `ulimit -f` (Node ignores SIGXFSZ, so the kernel answers EFBIG).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeRecords } from "../../runtime-min/state/run-journal.js";
import { StateStore } from "../../runtime-min/state/state-store.js";

const loader = path.join(import.meta.dirname, "helpers", "ts-loader.mjs");
const host = path.join(import.meta.dirname, "helpers", "journal-file-limit-host.ts");
const runId = "run-file-limit";
let root: string;
const stateDb = () => path.join(root, ".assemblyline", "state.db");

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "al-journal-limit-"));
  // Made (and its schema written) without the limit: only the journal meets it.
  StateStore.open(stateDb()).close();
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe("a journal write that does not fit (short write, then EFBIG)", () => {
  it("fails the call as state_store_failure, cuts the journal back to whole records, and the next host folds exactly the calls reported ok", () => {
    // 1,024 blocks: 512 KiB under dash (POSIX 512-byte blocks), 1 MiB under bash; a record is 300 KB.
    const run = spawnSync("/bin/sh", ["-c", `ulimit -f 1024 && exec "$0" --import "$1" "$2" "$3" "$4"`, process.execPath, loader, host, stateDb(), runId], {
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.stderr).toBe("");
    const lines = run.stdout.trim().split("\n");
    const ok = lines.filter((line) => line.startsWith("ok ")).map((line) => line.slice(3));
    expect(ok.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toBe(`failed c${ok.length + 1} state_store_failure`);
    const dir = path.join(root, ".assemblyline", "runs", runId);
    const [journal, ...others] = fs.readdirSync(dir).filter((name) => name.startsWith("journal-"));
    expect(others).toEqual([]);
    const bytes = fs.readFileSync(path.join(dir, journal!));
    // The write that crossed the limit was short: what it wrote was cut back.
    const { records, validBytes } = decodeRecords(bytes);
    expect(validBytes).toBe(bytes.length);
    expect(records.map((record) => record.callId)).toEqual(ok);
    const store = StateStore.open(stateDb());
    try {
      const take = store.takeLease(runId, "next", Date.now() + 120_000, 60_000);
      expect(take.outcome).toBe("taken");
      store.openRun(runId, "next", (take as { epoch: number }).epoch);
      store.closeRun(runId);
    } finally {
      store.close();
    }
    const db = new Database(stateDb(), { readonly: true });
    try {
      const calls = db.prepare("SELECT call_id, attempts FROM calls WHERE run_id = ? ORDER BY rowid").all(runId) as { call_id: string; attempts: number }[];
      expect(calls).toEqual(ok.map((callId) => ({ call_id: callId, attempts: 1 })));
    } finally {
      db.close();
    }
  });
});
