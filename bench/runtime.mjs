#!/usr/bin/env node
/**
 * runtime-min benchmark (issue 4, "Measure"): median round trip of an `echo` call in a warm
 * sandbox — the full `runtime.call` path: input validation, state.db persistence of the call
 * and its events, and the file-backed bridge to the sandbox process — against the same tool
 * served by the MCP TypeScript SDK over stdio (`client.callTool`), measured in one run.
 *
 * Runs against the compiled toolchain, so build first:
 *
 *     npm run build && node bench/runtime.mjs [--calls 1000] [--rounds 3]
 *
 * Both sides are warmed up (process started, first calls made), then measured in alternating
 * rounds of `--calls` sequential calls each; the script prints each side's median and p90 over
 * all its calls, and the ratio of the medians (target: runtime ≤ MCP).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";
import ssri from "ssri";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(repo, "dist");
const entry = path.join(dist, "runtime-min", "index.js");
if (!fs.existsSync(entry)) {
  console.error("bench/runtime.mjs: dist/runtime-min/index.js is missing; run `npm run build` first.");
  process.exit(2);
}
const { openRuntime } = await import(entry);
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
const { values } = parseArgs({ options: { calls: { type: "string", default: "1000" }, rounds: { type: "string", default: "3" } } });
const calls = Number(values.calls);
const rounds = Number(values.rounds);

const ECHO_SOURCE = `
import { defineTool } from "@assemblyline-agents/core";
export default defineTool({
  description: "Echo a message back to the caller.",
  inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  async execute(input) { return { message: input.message }; },
});
`;

const MCP_SERVER_SOURCE = `
import { McpServer } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/server/mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(import.meta.resolve("@modelcontextprotocol/sdk/server/stdio.js"))};
import { z } from ${JSON.stringify(import.meta.resolve("zod"))};
const server = new McpServer({ name: "echo", version: "1.0.0" });
server.registerTool("echo", { description: "Echo a message back to the caller.", inputSchema: { message: z.string() } },
  async ({ message }) => ({ content: [{ type: "text", text: JSON.stringify({ message }) }], structuredContent: { message } }));
await server.connect(new StdioServerTransport());
`;

/** Writes an agent root with one compiled `echo` tool: bundle, plugins.lock, manifest.json. */
async function createEchoAgent(dir) {
  const source = path.join(dir, "echo.mjs");
  fs.writeFileSync(source, ECHO_SOURCE);
  const artifact = path.join(dir, ".assemblyline", "build");
  await esbuild.build({
    entryPoints: [source],
    outfile: path.join(artifact, "bundles", "echo.mjs"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    alias: { "@assemblyline-agents/core": path.join(dist, "runtime-min", "authoring", "index.js") },
    logLevel: "silent",
  });
  const integrity = ssri.fromData(fs.readFileSync(path.join(artifact, "bundles", "echo.mjs")), { algorithms: ["sha512"] }).toString();
  const contract = {
    description: "Echo a message back to the caller.",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    visibility: "visible",
    requiredConfig: [],
    config: {},
    tags: [],
    aliases: [],
  };
  const lock = { lockfileVersion: 1, surfaces: { ".": { capabilities: { example: { source: { type: "local", path: "plugins/example" }, integrity, config: {}, tools: { echo: { definition: "./ai.assemblyline/echo.ts", ...contract, bundle: integrity } } } } } } };
  const lockText = `${JSON.stringify(lock, null, 2)}\n`;
  fs.writeFileSync(path.join(dir, "plugins.lock"), lockText);
  const manifest = {
    manifestVersion: 1,
    lockIntegrity: ssri.fromData(Buffer.from(lockText), { algorithms: ["sha512"] }).toString(),
    surfaces: { ".": { parent: null, disabledCoreTools: [], skills: [], tools: { echo: { capability: "example", ...contract, bundle: "bundles/echo.mjs", integrity } } } },
  };
  fs.writeFileSync(path.join(artifact, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

async function time(samples, action) {
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await action(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p90: at(0.9), n: sorted.length };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-runtime-"));
try {
  await createEchoAgent(dir);
  fs.writeFileSync(path.join(dir, "mcp-server.mjs"), MCP_SERVER_SOURCE);
  const runtime = await openRuntime({ root: dir });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(dir, "mcp-server.mjs")], stderr: "inherit" }));
  const runId = "bench-run";
  const viaRuntime = async (i) => {
    const result = await runtime.call({ tool: "echo", input: { message: `hello ${i}` }, runId });
    if (result.status !== "ok" || result.output.message !== `hello ${i}`) throw new Error(`runtime echo failed: ${JSON.stringify(result)}`);
  };
  const viaMcp = async (i) => {
    const result = await client.callTool({ name: "echo", arguments: { message: `hello ${i}` } });
    if (result.structuredContent?.message !== `hello ${i}`) throw new Error(`MCP echo failed: ${JSON.stringify(result)}`);
  };
  for (let i = 0; i < 50; i++) {
    await viaRuntime(i);
    await viaMcp(i);
  }
  const runtimeSamples = [];
  const mcpSamples = [];
  for (let round = 0; round < rounds; round++) {
    await time(runtimeSamples, viaRuntime);
    await time(mcpSamples, viaMcp);
  }
  await client.close();
  await runtime.close();
  const ours = stats(runtimeSamples);
  const theirs = stats(mcpSamples);
  const fmt = (ms) => `${ms.toFixed(3)} ms`;
  console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"} ×${os.cpus().length}; ${rounds} rounds × ${calls} sequential calls per side`);
  console.log(`runtime-min echo (warm sandbox, file bridge, state.db): median ${fmt(ours.median)}  p90 ${fmt(ours.p90)}  (n=${ours.n})`);
  console.log(`MCP SDK echo over stdio (client.callTool):              median ${fmt(theirs.median)}  p90 ${fmt(theirs.p90)}  (n=${theirs.n})`);
  console.log(`ratio runtime/MCP (median): ${(ours.median / theirs.median).toFixed(2)}  (target ≤ 1.00)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
