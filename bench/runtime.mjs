#!/usr/bin/env node
/**
 * runtime-min benchmark (issue 4, "Measure"): median round trip of an `echo` call in a warm
 * sandbox — the full `runtime.call` path: input validation, state.db persistence of the call
 * and its events, and the file-backed bridge to the sandbox process — against the same tool
 * served by the MCP TypeScript SDK over stdio (`client.callTool`), measured in one run.
 *
 * Runs against the compiled toolchain, so build first:
 *
 *     npm run build && node bench/runtime.mjs [--calls 5000] [--warmup 500] [--call-ids] [--dist DIR] [--baseline DIR] [--json] [--quick]
 *
 * `--help` prints the options (`USAGE`); an unknown flag is refused with them (exit 2).
 *
 * `--json` prints the figure `runtime.echo` as one JSON line (bench/lib.mjs); `--quick` makes
 * 20 calls after 5 warm-up calls (a smoke check: 200 after 50 cost `npm test` about 0.7 s more
 * of CPU for numbers that mean nothing either way). `--baseline DIR` interleaves another build's runtime.
 *
 * Fairness: one host process and one tool process per side (runtime host + sandbox child;
 * MCP client + stdio server), same machine, same Node. Both sides are warmed up (`--warmup`
 * calls each), then measured call by call, interleaved (runtime, MCP, MCP, runtime, …: the
 * order alternates so neither side always runs on the caches the other left), `--calls`
 * calls per side. Reported per side: median, p90, mean and p99 of the round trip in ms, and
 * the ratio of the medians (target: runtime ≤ MCP). `--call-ids` passes an explicit tool-call
 * id per call, as a model host does (one extra indexed lookup in state.db).
 *
 * `--baseline DIR` (issue 14: compare against the baseline in the same run) adds a third side:
 * the runtime of another build (the `dist/` of an earlier commit, say), interleaved with the
 * two others on a copy of the same compiled agent, and prints its figures and the ratio of the
 * two runtimes' medians. The load average at the end is printed too (wall-clock figures on a
 * loaded machine are noisy: compare the ratios of one run).
 */
import "./clean-env.mjs";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseScriptArgs } from "./lib.mjs";

const USAGE = `Usage: node bench/runtime.mjs [options]   (npm run build first)

The median round trip of an echo call through runtime.call in a warm sandbox, against the same
tool served by the MCP TypeScript SDK over stdio, interleaved in one run.

Options:
  --calls N        measured calls per side (default 5000)
  --warmup N       warm-up calls per side (default 500)
  --call-ids       pass an explicit tool-call id per call, as a model host does
  --dist DIR       the build to measure (default: this checkout's dist/)
  --baseline DIR   another build's dist/, interleaved as a third side (issue 14)
  --no-call-journal
                   open the measured build with callJournal: false, every call committed to
                   state.db (the journal is the default: docs/runtime.md, tenth round; the
                   baseline is opened as it is)
  --json           print the figure runtime.echo as one JSON line (bench/lib.mjs)
  --quick          20 calls after 5 warm-up calls
  -h, --help       print this and exit
`;

const { values } = parseScriptArgs({
  script: "bench/runtime.mjs",
  usage: USAGE,
  options: {
    calls: { type: "string", default: "5000" },
    warmup: { type: "string", default: "500" },
    "call-ids": { type: "boolean", default: false },
    dist: { type: "string" },
    baseline: { type: "string" },
    "no-call-journal": { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
  },
});
for (const name of ["calls", "warmup"]) {
  if (!/^[1-9][0-9]*$/.test(values[name])) {
    process.stderr.write(`bench/runtime.mjs: --${name} ${values[name]} is not a whole number of calls (1 or more).\n\n${USAGE}`);
    process.exit(2);
  }
}

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = values.dist === undefined ? path.join(repo, "dist") : path.resolve(values.dist);
const entry = path.join(dist, "runtime-min", "index.js");
if (!fs.existsSync(entry)) {
  console.error("bench/runtime.mjs: dist/runtime-min/index.js is missing; run `npm run build` first.");
  process.exit(2);
}
const { openRuntime } = await import(entry);
const baselineDist = values.baseline === undefined ? undefined : path.resolve(values.baseline);
const openBaseline = baselineDist ? (await import(path.join(baselineDist, "runtime-min", "index.js"))).openRuntime : undefined;
const { compileAgent } = await import(path.join(dist, "build", "compile.js"));
const { emit, ratioFigure } = await import("./lib.mjs");
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
const calls = values.quick ? 20 : Number(values.calls);
const warmup = values.quick ? 5 : Number(values.warmup);

const MCP_SERVER_SOURCE = `
import { McpServer } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/server/mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/server/stdio.js"))};
import { z } from ${JSON.stringify(import.meta.resolve("zod"))};
const server = new McpServer({ name: "echo", version: "1.0.0" });
server.registerTool("echo", { description: "Echo a message back to the caller.", inputSchema: { message: z.string() } },
  async ({ message }) => ({ content: [{ type: "text", text: JSON.stringify({ message }) }], structuredContent: { message } }));
await server.connect(new StdioServerTransport());
`;

/**
 * Writes an agent root whose one capability is the example agent's `plugins/example` (the
 * seed's echo tool), and compiles it with the built toolchain: plugins.lock and the artifact.
 */
async function createEchoAgent(dir) {
  fs.cpSync(path.join(repo, "examples", "support-agent", "plugins", "example"), path.join(dir, "plugins", "example"), { recursive: true });
  fs.writeFileSync(path.join(dir, "agent.md"), "---\nname: bench\ncapabilities:\n  example: {}\n---\n\nEcho.\n");
  const result = await compileAgent({ root: dir });
  if (!result.ok) throw new Error(`compiling the echo agent failed: ${JSON.stringify(result.diagnostics)}`);
}

/** Round trip of one call in ms. */
async function time(action, i) {
  const start = process.hrtime.bigint();
  await action(i);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9), p99: at(0.99), mean: sorted.reduce((sum, x) => sum + x, 0) / sorted.length, min: sorted[0], max: sorted.at(-1), n: sorted.length };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-runtime-"));
try {
  await createEchoAgent(dir);
  fs.writeFileSync(path.join(dir, "mcp-server.mjs"), MCP_SERVER_SOURCE);
  // The product's default (the call journal on) unless --no-call-journal.
  const runtime = await openRuntime({ root: dir, ...(values["no-call-journal"] ? { callJournal: false } : {}) });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(dir, "mcp-server.mjs")], stderr: "inherit" }));
  // The baseline gets its own copy of the compiled agent, so the two runtimes share no state.db.
  let baselineRoot;
  if (openBaseline) {
    baselineRoot = path.join(dir, "baseline-agent");
    fs.mkdirSync(baselineRoot);
    for (const name of ["agent.md", "plugins", "plugins.lock", ".assemblyline"]) {
      if (fs.existsSync(path.join(dir, name))) fs.cpSync(path.join(dir, name), path.join(baselineRoot, name), { recursive: true, filter: (source) => !/state\.db/.test(source) });
    }
  }
  const baseline = openBaseline ? await openBaseline({ root: baselineRoot }) : undefined;
  const viaRuntimeOf = (host, runId) => async (i) => {
    const result = await host.call({ tool: "echo", input: { message: `hello ${i}` }, runId, ...(values["call-ids"] ? { callId: `call-${i}` } : {}) });
    if (result.status !== "ok" || result.output.message !== `hello ${i}`) throw new Error(`runtime echo failed: ${JSON.stringify(result)}`);
  };
  const viaRuntime = viaRuntimeOf(runtime, "bench-run");
  const viaBaseline = baseline ? viaRuntimeOf(baseline, "bench-run-baseline") : undefined;
  const viaMcp = async (i) => {
    const result = await client.callTool({ name: "echo", arguments: { message: `hello ${i}` } });
    if (result.structuredContent?.message !== `hello ${i}`) throw new Error(`MCP echo failed: ${JSON.stringify(result)}`);
  };
  const sides = [
    { action: viaRuntime, samples: [] },
    { action: viaMcp, samples: [] },
    ...(viaBaseline ? [{ action: viaBaseline, samples: [] }] : []),
  ];
  for (let i = 0; i < warmup; i++) {
    for (const side of sides) await side.action(-1 - i);
  }
  for (let i = 0; i < calls; i++) {
    // Rotate the order, so no side always runs on the caches another left.
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(i + k) % sides.length];
      side.samples.push(await time(side.action, i));
    }
  }
  const [runtimeSamples, mcpSamples, baselineSamples] = sides.map((side) => side.samples);
  await client.close();
  const permissionModel = runtime.sandboxPermissionModel;
  await runtime.close();
  await baseline?.close();
  const ours = stats(runtimeSamples);
  const theirs = stats(mcpSamples);
  const before = baselineSamples ? stats(baselineSamples) : undefined;
  const load = os.loadavg().map((x) => x.toFixed(2)).join(" ");
  if (values.json) {
    const summary = (x) => ({ median: x.median, min: x.min, max: x.max, n: x.n, p90: x.p90, p99: x.p99, mean: x.mean });
    emit(
      ratioFigure({
        name: "runtime.echo",
        label: "runtime-min echo round trip (warm sandbox, file bridge, state.db), per call in one host process",
        baselineLabel: "MCP SDK echo over stdio (client.callTool)",
        subject: summary(ours),
        baseline: summary(theirs),
        target: { op: "<=", value: 1 },
        hostRssPeakKb: process.resourceUsage().maxRSS,
        node: process.version,
        calls,
        warmup,
        callIds: values["call-ids"],
        permissionModel,
        loadavg: os.loadavg(),
        ...(before ? { before: { dist: baselineDist, ...summary(before), ratio: before.median / theirs.median }, speedup: before.median / ours.median } : {}),
      }),
      { json: true },
    );
  } else {
    const fmt = (ms) => `${ms.toFixed(3)} ms`;
    const line = (x) => `median ${fmt(x.median)}  p90 ${fmt(x.p90)}  p99 ${fmt(x.p99)}  mean ${fmt(x.mean)}  (n=${x.n})`;
    console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"} ×${os.cpus().length}; ${warmup} warm-up + ${calls} interleaved calls per side${values["call-ids"] ? ", explicit call ids" : ""}; sandbox permission model: ${permissionModel ? "on" : "off"}`);
    console.log(`runtime-min echo (warm sandbox, bridge, state.db):      ${line(ours)}`);
    console.log(`MCP SDK echo over stdio (client.callTool):              ${line(theirs)}`);
    if (before) console.log(`baseline runtime-min (${path.relative(repo, baselineDist) || "."}):${" ".repeat(Math.max(1, 31 - (path.relative(repo, baselineDist) || ".").length))}${line(before)}`);
    console.log(`ratio runtime/MCP (median): ${(ours.median / theirs.median).toFixed(2)}  (target ≤ 1.00)`);
    if (before) console.log(`ratio baseline/MCP (median): ${(before.median / theirs.median).toFixed(2)}; runtime/baseline: ${(ours.median / before.median).toFixed(2)}`);
    console.log(`load average at the end: ${load}`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
