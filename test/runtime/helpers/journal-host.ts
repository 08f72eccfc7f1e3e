/**
 * Test helper process (docs/runtime.md, tenth round: the call journal's kill points): a host
 * with `callJournal: true` that runs `echo` calls with call ids `c1`, `c2`, … in one run and
 * reports each on stdout (a synchronous write) only after `runtime.call` returned it. Modes:
 * - `before-write <n>`: SIGKILLs itself right before the journal `write` of its n-th call (after
 *   the lease check);
 * - `after-fold-commit <n>`: makes n calls, then closes the runtime and SIGKILLs itself between
 *   the fold's COMMIT and the journal's truncation;
 * - `until-killed`: calls until the parent kills it, wherever that lands;
 * - `hold <n>`: makes n calls, prints `ready` and waits (holding the lease, nothing folded)
 *   until killed.
 *
 *     node --import ./ts-loader.mjs journal-host.ts <root> <runId> <mode> [n]
 */
import * as fs from "node:fs";
import { openRuntime } from "../../../runtime-min/index.js";
import { JournalWriter } from "../../../runtime-min/state/run-journal.js";

const [root, runId, mode, nText] = process.argv.slice(2) as [string, string, "before-write" | "after-fold-commit" | "until-killed" | "hold", string | undefined];
const n = Number(nText ?? 0);
if (mode === "before-write") {
  const append = JournalWriter.prototype.append;
  let appends = 0;
  JournalWriter.prototype.append = function (this: JournalWriter, record: Buffer): void {
    if (++appends === n) process.kill(process.pid, "SIGKILL");
    append.call(this, record);
  };
}
let closing = false;
if (mode === "after-fold-commit") {
  // Only the fold of `close()`: a lease renewal between two calls (a loaded machine) folds too.
  const truncate = JournalWriter.prototype.truncate;
  JournalWriter.prototype.truncate = function (this: JournalWriter): void {
    if (closing) process.kill(process.pid, "SIGKILL");
    truncate.call(this);
  };
}
// `hold` keeps its lease live while the parent reads (10 s: a loaded machine may delay a renewal).
const runtime = await openRuntime({ root, leaseMs: mode === "hold" ? 10_000 : 2000, callJournal: true });
for (let i = 1; mode === "until-killed" || i <= n; i++) {
  const result = await runtime.call({ tool: "echo", input: { message: `m${i}` }, runId, callId: `c${i}` });
  if (result.status !== "ok") throw new Error(JSON.stringify(result));
  fs.writeSync(1, `returned c${i}\n`);
}
if (mode === "hold") {
  fs.writeSync(1, "ready\n");
  setInterval(() => undefined, 1000);
} else {
  closing = true;
  await runtime.close();
}
