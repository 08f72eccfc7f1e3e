/**
 * Issue 9 measurement: the language server's time from `textDocument/didChange` to the
 * `textDocument/publishDiagnostics` that answers it, for edits of one entry file of a generated
 * 50-plugin × 10-tool agent (target: p95 under 100 ms). The server is the built CLI
 * (`node dist/bin/assembly-line.cjs lsp --stdio`) in a child process, spoken to over stdio as an
 * editor does. Edits alternate a misspelt descriptor key (one diagnostic) and its fix (none),
 * so every edit changes what is published. Two rounds:
 *  - typing: the next edit follows the answer at once (the whole-agent analysis never starts);
 *  - pauses: 400 ms between edits, so the whole-agent analysis (plugins.lock, files not open)
 *    runs between them on its worker thread and competes for the CPU.
 * Warm: the first 10 edits of each round are not counted. On Linux it also reads the server's
 * main thread from /proc/<pid>/schedstat around each edit: the CPU time it spent on the edit
 * and the time it waited for a CPU, which separates the server's own work from a busy machine.
 *
 * Then what a user waits for after opening the entry, in `--fresh N` new server processes
 * (default 15), each round interleaved with `node -e 0` (the order alternating): spawn →
 * `initialize` answered (`lsp.first.initialize`), and spawn → the first `publishDiagnostics` of
 * the entry, opened with the misspelt key right after `initialized`, carrying its diagnostic
 * (`lsp.first.diagnostics`; its CPU is the server's user + system time, every thread, up to that
 * moment, from /proc). Both as ratios to `node -e 0`, without a target. `--before DIR` adds the
 * server of another checkout's build (`DIR/dist/`) to the same rounds, for before/after figures
 * (`lsp.first.*.before`, and `lsp.first.diagnostics.vs-before` with the median of the paired
 * CPU ratios).
 * Usage: node bench/lsp.mjs [edits=200] [plugins=50] [--fresh N] [--before DIR] [--quick] [--json]
 * (bench/lib.mjs: the shared flags and figures `lsp.typing`, `lsp.pauses`, `lsp.first.initialize`
 * and `lsp.first.diagnostics`; --quick: 4 edits of a 2-plugin agent, 1 warm-up edits, 50 ms
 * pauses, 2 fresh processes).
 */
import "./clean-env.mjs";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { generateAgent } from "./generate-agent.mjs";
import { emit, median, parseBenchArgs, processCpuMs, quantile, ratioFigure, summarizeMs, timeNode, valueFigure } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "..", "dist", "bin", "assembly-line.cjs");
const { quick, json, positionals, values } = parseBenchArgs({ fresh: { type: "string" }, before: { type: "string" } });
const out = { json };
const edits = quick ? 4 : Number(positionals[0] ?? 200);
const plugins = quick ? 2 : Number(positionals[1] ?? 50);
const warmup = quick ? 1 : 10;
const pause = quick ? 50 : 400;
const fresh = quick ? 2 : Number(values.fresh ?? 15);
const beforeCli = values.before === undefined ? undefined : path.join(path.resolve(values.before), "dist", "bin", "assembly-line.cjs");
if (beforeCli !== undefined && !fs.existsSync(beforeCli)) throw new Error(`--before: no ${beforeCli} (build that checkout first)`);

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

const report = (name, label, { times, cpu, waits }) => {
  const p95 = quantile(times, 0.95);
  emit(
    valueFigure({
      name,
      label: `language server didChange → publishDiagnostics, entry of a ${plugins}-plugin × 10-tool agent, ${label}: p95`,
      unit: "ms",
      value: p95,
      target: { op: "<", value: 100 },
      ...summarizeMs(times),
      ...(cpu.length > 0 ? { serverCpu: { median: quantile(cpu, 0.5), p95: quantile(cpu, 0.95) }, waitingForCpu: { median: quantile(waits, 0.5), p95: quantile(waits, 0.95) } } : {}),
      loadAverage: os.loadavg()[0],
    }),
    out,
  );
};

report("lsp.typing", "typing (no pauses)", await round(0));
report("lsp.pauses", `with ${pause} ms pauses (whole-agent analysis between edits)`, await round(pause));
await connection.sendRequest("shutdown");
await connection.sendNotification("exit");
connection.dispose();
await firstDiagnosticsRounds();
fs.rmSync(agent, { recursive: true, force: true });

/**
 * One fresh server (`bin`): spawns it, sends `initialize` at once, then `initialized` and the
 * entry's `didOpen` with the misspelt key as soon as it is answered (what an editor does), and
 * waits for the entry's first non-empty `publishDiagnostics`. Returns wall ms from the spawn to
 * each answer and the server's CPU ms (user + system, every thread) at the second; then shuts
 * the server down and waits for its exit.
 */
async function firstAnswers(bin) {
  const start = performance.now();
  const server = spawn(process.execPath, [bin, "lsp", "--stdio"], { cwd: agent, stdio: ["pipe", "pipe", "inherit"] });
  const client = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  const diagnosed = new Promise((resolve) => {
    client.onNotification("textDocument/publishDiagnostics", (params) => {
      if (params.uri === uri && params.diagnostics.length > 0) resolve({ at: performance.now(), cpuMs: processCpuMs(server.pid) });
    });
  });
  client.listen();
  await client.sendRequest("initialize", { processId: process.pid, rootUri: pathToFileURL(agent).href, capabilities: {} });
  const initMs = performance.now() - start;
  await client.sendNotification("initialized", {});
  await client.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: 1, text: typo } });
  const { at, cpuMs } = await diagnosed;
  const exited = once(server, "exit");
  await client.sendRequest("shutdown");
  await client.sendNotification("exit");
  await exited;
  client.dispose();
  return { init: { wallMs: initMs, cpuMs: null }, diagnostics: { wallMs: at - start, cpuMs: cpuMs ?? null } };
}

/** The `lsp.first.*` figures: {@link fresh} rounds of `node -e 0` and fresh servers (this build's, and `--before`'s), the order rotating. */
async function firstDiagnosticsRounds() {
  const subjects = [["after", cli], ...(beforeCli ? [["before", beforeCli]] : [])];
  const samples = { node: [], ...Object.fromEntries(subjects.map(([name]) => [name, []])) };
  const variants = [["node", null], ...subjects];
  for (let round = -1; round < fresh; round++) {
    const start = ((round % variants.length) + variants.length) % variants.length;
    for (let k = 0; k < variants.length; k++) {
      const [name, bin] = variants[(start + k) % variants.length];
      const sample = bin === null ? timeNode(["-e", "0"]) : await firstAnswers(bin);
      if (round >= 0) samples[name].push(sample);
    }
  }
  const what = `the ${plugins}-plugin agent's entry, opened with a misspelt key`;
  for (const [name] of subjects) {
    const suffix = name === "after" ? "" : ".before";
    const build = name === "after" ? "" : " (--before build)";
    emit(ratioFigure({ name: `lsp.first.initialize${suffix}`, label: `language server${build}, fresh process: spawn → initialize answered`, baselineLabel: "node -e 0", subject: samples[name].map((s) => s.init), baseline: samples.node, loadAverage: os.loadavg()[0] }), out);
    emit(
      ratioFigure({
        name: `lsp.first.diagnostics${suffix}`,
        label: `language server${build}, fresh process: spawn → first publishDiagnostics of ${what} (CPU: the server's, all threads, until then)`,
        baselineLabel: "node -e 0",
        subject: samples[name].map((s) => s.diagnostics),
        baseline: samples.node,
        loadAverage: os.loadavg()[0],
      }),
      out,
    );
  }
  if (beforeCli) {
    const paired = (pick) => median(samples.after.map((s, i) => pick(s) / pick(samples.before[i])));
    const round3 = (x) => Math.round(x * 1000) / 1000;
    emit(
      ratioFigure({
        name: "lsp.first.diagnostics.vs-before",
        label: `language server, fresh process: spawn → first diagnostics of ${what}, this build`,
        baselineLabel: "the --before build",
        subject: samples.after.map((s) => s.diagnostics),
        baseline: samples.before.map((s) => s.diagnostics),
        pairedWallRatio: round3(paired((s) => s.diagnostics.wallMs)),
        pairedCpuRatio: round3(paired((s) => s.diagnostics.cpuMs)),
        pairedInitializeRatio: round3(paired((s) => s.init.wallMs)),
      }),
      out,
    );
  }
}
