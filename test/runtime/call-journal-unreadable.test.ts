/**
 * A fresh review of the per-run call journal (helper-122, docs/runtime.md "Tenth round"): a
 * journal the host cannot read whole — here one larger than Node reads into one buffer (2 GiB,
 * `ERR_FS_FILE_TOO_LARGE`; made sparse, so it costs no disk) — must fail as the state store's
 * failure, with its stable reason, like every other unreadable journal (`journalFailure`), never
 * as a raw `RangeError` out of a reader or out of the next host's take of the run.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ControlPlaneError } from "../../runtime-min/failures.js";
import { StateStore } from "../../runtime-min/state/state-store.js";

let root: string;
const stateDb = () => path.join(root, ".assemblyline", "state.db");
const runId = "run-huge-journal";

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "al-journal-huge-"));
  const runDir = path.join(root, ".assemblyline", "runs", runId);
  fs.mkdirSync(runDir, { recursive: true });
  const fd = fs.openSync(path.join(runDir, "journal-1.bin"), "w", 0o600);
  try {
    fs.ftruncateSync(fd, 3 * 1024 ** 3);
  } finally {
    fs.closeSync(fd);
  }
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** What `action` throws (failing the test when it throws nothing). */
function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("nothing was thrown");
}

describe("a call journal too large to read whole", () => {
  it("fails a reader in another process as the state store's failure (state_store_failure), not a raw RangeError", () => {
    const store = StateStore.open(stateDb());
    try {
      const error = thrownBy(() => store.listEvents(runId));
      expect(error).toBeInstanceOf(ControlPlaneError);
      expect(error).toMatchObject({ reason: "state_store_failure" });
    } finally {
      store.close();
    }
  });

  it("fails the next host's take of the run (openRun) as the state store's failure, not a raw RangeError", () => {
    const store = StateStore.open(stateDb(), { callJournal: true });
    try {
      const take = store.takeLease(runId, "taker", Date.now(), 60_000);
      expect(take.outcome).toBe("taken");
      const error = thrownBy(() => store.openRun(runId, "taker", (take as { epoch: number }).epoch));
      expect(error).toBeInstanceOf(ControlPlaneError);
      expect(error).toMatchObject({ reason: "state_store_failure" });
    } finally {
      store.close();
    }
  });
});
