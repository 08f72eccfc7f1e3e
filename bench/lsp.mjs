/**
 * Issue 9 measurement: the language server's time from `textDocument/didChange` to the
 * `textDocument/publishDiagnostics` that answers it, for edits of one entry file of a generated
 * 50-plugin × 10-tool agent (target: p95 under 100 ms). The server is the built CLI
 * (`node dist/bin/assembly-line.js lsp --stdio`) in a child process, spoken to over stdio as an
 * editor does. Edits alternate a misspelt descriptor key (one diagnostic) and its fix (none),
 * so every edit changes what is published. Two rounds:
 *  - typing: the next edit follows the answer at once (the whole-agent analysis never starts);
 *  - pauses: 400 ms between edits, so the whole-agent analysis (plugins.lock, files not open)
 *    runs between them on its worker thread and competes for the CPU.
 * Warm: the first 10 edits of each round are not counted. On Linux it also reads the server's
 * main thread from /proc/<pid>/schedstat around each edit: the CPU time it spent on the edit
 * and the time it waited for a CPU, which separates the server's own work from a busy machine.
 * Usage: node bench/lsp.mjs [--quick] [--json] [edits=200] [plugins=50]
 *   --quick  60 timed edits per round (instead of 200)
 *   --json   one JSON object per line and figure: { name, target, value, unit, ... }
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { generateAgent } from "./generate-agent.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "..", "dist", "bin", "assembly-line.js");
const flags = process.argv.slice(2).filter((arg) => arg.startsWith("--"));
const positional = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const QUICK = flags.includes("--quick");
const JSON_OUTPUT = flags.includes("--json");
const edits = Number(positional[0] ?? (QUICK ? 60 : 200));
const plugins = Number(positional[1] ?? 50);
const warmup = 10;

const agent = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-lsp-"));
generateAgent(agent, { plugins, tools: 10 });
const compiled = spawnSync(process.execPath, [cli, "compile", agent, "--no-package"], { encoding: "utf8" });
if (compiled.status !== 0) throw new Error(`compile failed:\n${compiled.stdout}\n${compiled.stderr}`);

const entry = path.join(agent, "plugins", "plugin-0000", "ai.assemblyline", "index.ts");
const text = fs.readFileSync(entry, "utf8");
const typo = text.replace("description:", "descripton:");
if (typo === text) throw new Error("the generated entry has no 'description:' to misspell");
const uri = pathToFileURL(entry).href;

const child = spawn(process.execPath, [cli, "lsp", "--stdio"], { cwd: agent, stdio: ["pipe", "pipe", "inherit"] });
const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
let waiting;
connection.onNotification("textDocument/publishDiagnostics", (params) => {
  if (params.uri !== uri || !waiting || !waiting.test(params.diagnostics)) return;
  const done = waiting;
  waiting = undefined;
  done.resolve(performance.now());
});
connection.listen();
await connection.sendRequest("initialize", { processId: process.pid, rootUri: pathToFileURL(agent).href, capabilities: {} });
await connection.sendNotification("initialized", {});

const publishedWhen = (test) => new Promise((resolve) => (waiting = { test, resolve }));
const opened = publishedWhen(() => true);
await connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: 1, text } });
await opened;

/** Main-thread [cpu ns, run-queue wait ns] of the server, or undefined off Linux. */
const schedstat = () => {
  try {
    const [cpu, wait] = fs.readFileSync(`/proc/${child.pid}/schedstat`, "utf8").trim().split(/\s+/).map(Number);
    return [cpu, wait];
  } catch {
    return undefined;
  }
};

let version = 1;
async function round(pauseMs) {
  const times = [];
  const cpu = [];
  const waits = [];
  for (let i = 0; i < edits + warmup; i++) {
    if (pauseMs > 0) await sleep(pauseMs);
    const broken = version % 2 === 1;
    const answered = publishedWhen((diagnostics) => (broken ? diagnostics.length > 0 : diagnostics.length === 0));
    const before = schedstat();
    const start = performance.now();
    version++;
    await connection.sendNotification("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text: broken ? typo : text }] });
    const end = await answered;
    const after = schedstat();
    if (i < warmup) continue;
    times.push(end - start);
    if (before && after) {
      cpu.push((after[0] - before[0]) / 1e6);
      waits.push((after[1] - before[1]) / 1e6);
    }
  }
  return { times, cpu, waits };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};
const TARGET_MS = 100;
const report = (key, label, { times, cpu, waits }) => {
  const p95 = quantile(times, 0.95);
  if (JSON_OUTPUT) {
    const load = os.loadavg()[0];
    console.log(JSON.stringify({ name: `lsp.${key}.p95`, target: TARGET_MS, value: p95, unit: "ms", median: quantile(times, 0.5), max: Math.max(...times), edits: times.length, plugins, load }));
    if (cpu.length > 0) {
      console.log(JSON.stringify({ name: `lsp.${key}.cpu_p95`, target: TARGET_MS, value: quantile(cpu, 0.95), unit: "ms", median: quantile(cpu, 0.5), waitMedian: quantile(waits, 0.5), waitP95: quantile(waits, 0.95), edits: cpu.length, plugins, load }));
    }
    return p95;
  }
  console.log(`  ${label}: median ${quantile(times, 0.5).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms over ${times.length} edits`);
  if (cpu.length > 0) {
    console.log(`    server main thread per edit: CPU median ${quantile(cpu, 0.5).toFixed(1)} ms, p95 ${quantile(cpu, 0.95).toFixed(1)} ms; waiting for a CPU median ${quantile(waits, 0.5).toFixed(1)} ms, p95 ${quantile(waits, 0.95).toFixed(1)} ms`);
  }
  return p95;
};

if (!JSON_OUTPUT) console.log(`lsp: didChange → publishDiagnostics, entry of a ${plugins}-plugin × 10-tool agent (target: p95 < ${TARGET_MS} ms)`);
const typing = report("typing", "typing (no pauses)", await round(0));
const paused = report("paused", "with 400 ms pauses", await round(400));
await connection.sendRequest("shutdown");
await connection.sendNotification("exit");
connection.dispose();
fs.rmSync(agent, { recursive: true, force: true });
if (!JSON_OUTPUT) console.log(`  p95 ${Math.max(typing, paused) < TARGET_MS ? "meets" : "misses"} the ${TARGET_MS} ms target (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs)`);
