/**
 * Test helper process (issue 14 item 2, "a kill mid-commit"; docs/runtime.md, tenth round: the
 * call journal's kill points): a host that runs `echo` calls with call ids `c1`, `c2`, … in one
 * run and reports each on stdout (a synchronous write) only after `runtime.call` returned it.
 * `<path>` is `sqlite` (`callJournal: false`: every result committed to state.db) or `journal`
 * (`callJournal: true`, the default: the common call appended to the run's call journal). Modes:
 * - `inside-commit <n>` (sqlite): SIGKILLs itself inside the transaction that records the result
 *   of its n-th call — after that call's writes, before their COMMIT;
 * - `before-write <n>` (journal): SIGKILLs itself right before the journal `write` of its n-th
 *   call (after the lease check);
 * - `after-write <n>` (journal): SIGKILLs itself right after the n-th call's record was written
 *   and found still in this host's journal (committed), before `runtime.call` returns it;
 * - `after-fold-commit <n>` (journal): makes n calls, then closes the runtime and SIGKILLs
 *   itself between the fold's COMMIT and the journal's truncation;
 * - `until-killed`: calls until the parent kills it, wherever that lands.
 *
 * The lease is 5 s: long enough that a loaded machine (load 15 on two cores) does not delay
 * its renewal (every 5/3 s) past its expiry, short enough for the next host's wait.
 *
 *     node --import ./ts-loader.mjs commit-crash-host.ts <root> <runId> <path> <mode> [n]
 */
import * as fs from "node:fs";
import { openRuntime } from "../../../runtime-min/index.js";
import { JournalWriter } from "../../../runtime-min/state/run-journal.js";
import { StateStore } from "../../../runtime-min/state/state-store.js";

type Mode = "inside-commit" | "before-write" | "after-write" | "after-fold-commit" | "until-killed";
const [root, runId, store, mode, nText] = process.argv.slice(2) as [string, string, "sqlite" | "journal", Mode, string | undefined];
if (store !== "sqlite" && store !== "journal") throw new Error(`path must be sqlite or journal, not ${String(store)}`);
const n = Number(nText ?? 0);
if (mode === "inside-commit") {
  const transaction = StateStore.prototype.transaction;
  let results = 0;
  StateStore.prototype.transaction = function <T>(this: StateStore, what: string, action: () => T): T {
    return transaction.call(this, what, () => {
      const value = action();
      if (what === "record the call result" && ++results === n) process.kill(process.pid, "SIGKILL");
      return value;
    }) as T;
  };
}
if (mode === "before-write") {
  const append = JournalWriter.prototype.append;
  let appends = 0;
  JournalWriter.prototype.append = function (this: JournalWriter, record: Buffer): void {
    if (++appends === n) process.kill(process.pid, "SIGKILL");
    append.call(this, record);
  };
}
if (mode === "after-write") {
  const journalCall = StateStore.prototype.journalCall;
  let journaled = 0;
  StateStore.prototype.journalCall = function (this: StateStore, ...args: Parameters<StateStore["journalCall"]>) {
    const value = journalCall.apply(this, args);
    if (++journaled === n) process.kill(process.pid, "SIGKILL");
    return value;
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
const runtime = await openRuntime({ root, leaseMs: 5000, callJournal: store === "journal" });
for (let i = 1; mode !== "after-fold-commit" || i <= n; i++) {
  const result = await runtime.call({ tool: "echo", input: { message: `m${i}` }, runId, callId: `c${i}` });
  if (result.status !== "ok") throw new Error(JSON.stringify(result));
  fs.writeSync(1, `returned c${i}\n`);
}
closing = true;
await runtime.close();
