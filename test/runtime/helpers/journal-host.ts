/**
 * Test helper process (docs/runtime.md, tenth round: readers of a journal another host holds):
 * a host with `callJournal: true` that runs `echo` calls with call ids `c1`, `c2`, … in one
 * run, reports each on stdout (a synchronous write) only after `runtime.call` returned it, then
 * prints `ready` and waits (holding the lease, nothing folded) until killed. The journal's kill
 * points are commit-crash-host.ts's.
 *
 *     node --import ./ts-loader.mjs journal-host.ts <root> <runId> hold <n>
 */
import * as fs from "node:fs";
import { openRuntime } from "../../../runtime-min/index.js";

const [root, runId, mode, nText] = process.argv.slice(2) as [string, string, "hold", string | undefined];
if (mode !== "hold") throw new Error(`unknown mode ${String(mode)}`);
const n = Number(nText ?? 0);
// The lease is kept live while the parent reads (10 s: a loaded machine may delay a renewal).
const runtime = await openRuntime({ root, leaseMs: 10_000, callJournal: true });
for (let i = 1; i <= n; i++) {
  const result = await runtime.call({ tool: "echo", input: { message: `m${i}` }, runId, callId: `c${i}` });
  if (result.status !== "ok") throw new Error(JSON.stringify(result));
  fs.writeSync(1, `returned c${i}\n`);
}
fs.writeSync(1, "ready\n");
setInterval(() => undefined, 1000);
