/**
 * A fold's COMMIT is on disk before its journal is truncated or removed (helper-122's review,
 * finding 6). `state.db` runs with `synchronous = NORMAL`: a WAL commit survives a process crash
 * but may be lost to an OS crash or power cut, while the journal's truncation (file-system
 * metadata) may survive it — calls from the middle of a run would be lost while later ones were
 * kept. The store must `fsync` the WAL between the fold's COMMIT and the journal's truncation
 * (the holder's fold) or removal (a taker's fold). Observed by wrapping node:fs's `fsyncSync`,
 * `ftruncateSync` and `rmSync` (process-wide: an own-process file).
 */
import * as fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { echoRecord } from "./helpers/echo-record.js";

const cjsFs = createRequire(import.meta.url)("node:fs") as typeof fs;
const original = { fsyncSync: cjsFs.fsyncSync, ftruncateSync: cjsFs.ftruncateSync, rmSync: cjsFs.rmSync, openSync: cjsFs.openSync };
let root: string;
let log: string[];
const runId = "run-durable-fold";

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "al-journal-durable-"));
  log = [];
  const names = new Map<number, string>();
  cjsFs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    const fd = (original.openSync as (...args: unknown[]) => number)(file, ...rest);
    names.set(fd, path.basename(String(file)));
    return fd;
  }) as typeof fs.openSync;
  cjsFs.fsyncSync = ((fd: number) => {
    log.push(`fsync ${names.get(fd) ?? "?"}`);
    return original.fsyncSync(fd);
  }) as typeof fs.fsyncSync;
  cjsFs.ftruncateSync = ((fd: number, length?: number) => {
    log.push(`truncate ${names.get(fd) ?? "?"} to ${length ?? 0}`);
    return original.ftruncateSync(fd, length);
  }) as typeof fs.ftruncateSync;
  cjsFs.rmSync = ((file: fs.PathLike, options?: fs.RmOptions) => {
    if (String(file).includes(".folding")) log.push("remove claimed journal");
    return original.rmSync(file, options);
  }) as typeof fs.rmSync;
  syncBuiltinESMExports();
});

afterEach(() => {
  Object.assign(cjsFs, original);
  syncBuiltinESMExports();
  fs.rmSync(root, { recursive: true, force: true });
});

function journal(store: StateStore, callId: string): void {
  store.journalCall(runId, echoRecord(callId));
}

describe("a fold of the call journal", () => {
  it("syncs the WAL after its COMMIT and before the holder truncates its journal", () => {
    const stateDb = path.join(root, ".assemblyline", "state.db");
    const store = StateStore.open(stateDb, { callJournal: true });
    try {
      const take = store.takeLease(runId, "holder", Date.now(), 3_600_000) as { outcome: string; epoch: number };
      expect(take.outcome).toBe("taken");
      store.openRun(runId, "holder", take.epoch);
      journal(store, "c1");
      journal(store, "c2");
      log.length = 0;
      store.closeRun(runId);
      const truncation = log.findIndex((entry) => entry.startsWith(`truncate journal-${take.epoch}.bin to 0`));
      expect(truncation).toBeGreaterThan(-1);
      expect(log.slice(0, truncation)).toContain("fsync state.db-wal");
    } finally {
      store.close();
    }
  });

  it("syncs the WAL after its COMMIT and before a taker removes the journals it claimed and folded", () => {
    const stateDb = path.join(root, ".assemblyline", "state.db");
    // A holder that journals two calls and dies without folding (its lease lapses).
    const holder = StateStore.open(stateDb, { callJournal: true });
    const first = holder.takeLease(runId, "holder", Date.now() - 10_000, 1_000) as { outcome: string; epoch: number };
    holder.openRun(runId, "holder", first.epoch);
    journal(holder, "c1");
    journal(holder, "c2");
    const taker = StateStore.open(stateDb, { callJournal: true });
    try {
      const take = taker.takeLease(runId, "taker", Date.now(), 3_600_000) as { outcome: string; epoch: number };
      expect(take.outcome).toBe("taken");
      log.length = 0;
      taker.openRun(runId, "taker", take.epoch);
      const removal = log.indexOf("remove claimed journal");
      expect(removal).toBeGreaterThan(-1);
      expect(log.slice(0, removal)).toContain("fsync state.db-wal");
      expect(taker.getCall(runId, "c2")).toMatchObject({ status: "ok", attempts: 1 });
    } finally {
      taker.close();
    }
  });
});
