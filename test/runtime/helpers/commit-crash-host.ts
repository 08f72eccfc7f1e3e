/**
 * Test helper process (issue 14 item 2, "a kill mid-commit"): a host that runs `echo` calls
 * with call ids `c1`, `c2`, … in one run and reports each on stdout (a synchronous write) only
 * after `runtime.call` returned it. Modes:
 * - `inside-commit <n>`: SIGKILLs itself inside the transaction that records the result of its
 *   n-th call — after that call's writes, before their COMMIT;
 * - `until-killed`: calls until the parent kills it, wherever that lands.
 *
 *     node --import ./ts-loader.mjs commit-crash-host.ts <root> <runId> <mode> [n]
 */
import * as fs from "node:fs";
import { openRuntime } from "../../../runtime-min/index.js";
import { StateStore } from "../../../runtime-min/state/state-store.js";

const [root, runId, mode, nText] = process.argv.slice(2) as [string, string, "inside-commit" | "until-killed", string | undefined];
const killAt = Number(nText ?? 0);
if (mode === "inside-commit") {
  const transaction = StateStore.prototype.transaction;
  let results = 0;
  StateStore.prototype.transaction = function <T>(this: StateStore, what: string, action: () => T): T {
    return transaction.call(this, what, () => {
      const value = action();
      if (what === "record the call result" && ++results === killAt) process.kill(process.pid, "SIGKILL");
      return value;
    }) as T;
  };
}
const runtime = await openRuntime({ root, leaseMs: 2000 });
for (let i = 1; ; i++) {
  const result = await runtime.call({ tool: "echo", input: { message: `m${i}` }, runId, callId: `c${i}` });
  if (result.status !== "ok") throw new Error(JSON.stringify(result));
  fs.writeSync(1, `returned c${i}\n`);
}
