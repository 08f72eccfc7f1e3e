/**
 * Test helper process (helper-122's review of the call journal): journals calls `c1`, `c2`, … of
 * 300 KB each through a `StateStore` until one fails, under a file-size limit the parent sets
 * (`ulimit -f`: the `write` that crosses it is short, the next one fails with EFBIG — the
 * kernel's answer a full disk also gives, ENOSPC, after a short write). Prints `ok cN` per
 * journaled call and `failed cN <reason>` for the one that failed, then closes the store
 * without folding (the journal stays for the parent).
 *
 *     ulimit -f <blocks>; node --import ./ts-loader.mjs journal-file-limit-host.ts <state.db> <runId>
 */
import * as fs from "node:fs";
import { ControlPlaneError } from "../../../runtime-min/failures.js";
import { StateStore } from "../../../runtime-min/state/state-store.js";

const [file, runId] = process.argv.slice(2) as [string, string];
const message = "m".repeat(150 * 1024);
const store = StateStore.open(file, { callJournal: true });
const take = store.takeLease(runId, "limited", Date.now(), 60_000);
if (take.outcome !== "taken") throw new Error(`lease: ${take.outcome}`);
store.openRun(runId, "limited", take.epoch);
for (let i = 1; i <= 50; i++) {
  const callId = `c${i}`;
  try {
    store.journalCall(runId, {
      callId,
      surface: ".",
      tool: "echo",
      inputJson: JSON.stringify({ message }),
      status: "ok",
      runtimeBoundary: "sandbox",
      output: { message },
      events: [
        { type: "tool.execution_started", data: { tool: "echo", callId } },
        { type: "tool.execution_completed", data: { tool: "echo", callId } },
      ],
    });
    fs.writeSync(1, `ok ${callId}\n`);
  } catch (error) {
    fs.writeSync(1, `failed ${callId} ${error instanceof ControlPlaneError ? error.reason : String(error)}\n`);
    break;
  }
}
store.close();
