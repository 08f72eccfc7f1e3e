#!/usr/bin/env node
/**
 * Packaging benchmark (issue 4 item 1): `bundleTools` on ~2,000 small tool definitions against
 * one plain `esbuild.build` of the same entry points with no plugins (target: ≤ 1.2×).
 *
 * Runs against the compiled toolchain, so build first:
 *
 *     npm run build && node bench/packaging.mjs [--tools 2000] [--runs 9]
 *
 * The generated agent has 40 plugins; each definition imports the authoring API and a helper
 * module of its plugin. Every variant runs once to warm up, then they alternate; the script
 * prints the median (and minimum) wall time of each and the ratio of the medians. The middle
 * row, esbuild with packaging's options and plugin but none of `bundleTools`' own work
 * (naming, hashing), splits the overhead between plugin callbacks and JavaScript.
 *
 * Wall times are noisy on a shared machine: compare ratios from the same run, and raise
 * `--runs` when the spread is wide.
 *
 * `--json` prints the figure `packaging.bundle` as one JSON line (bench/lib.mjs); `--quick`
 * bundles 100 definitions, one run.
 */
import "./clean-env.mjs";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { emit, parseBenchArgs, ratioFigure, summarizeMs } from "./lib.mjs";

// --help/-h and unknown flags: bench/lib.mjs (parseBenchArgs).
const { values } = parseBenchArgs({ tools: { type: "string", default: "2000" }, runs: { type: "string", default: "9" } });
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(repo, "dist");
if (!fs.existsSync(path.join(dist, "packaging", "index.js"))) {
  console.error("bench/packaging.mjs: dist/packaging/index.js is missing; run `npm run build` first.");
  process.exit(2);
}
const { bundleTools, buildOptions, planBundles, locateAuthoringCore } = await import(path.join(dist, "packaging", "index.js"));
const toolCount = values.quick ? 100 : Number(values.tools);
const runs = values.quick ? 1 : Number(values.runs);
const PLUGINS = 40;

/** Writes the generated agent and returns its root and tool list. */
function generateAgent() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-packaging-"));
  const tools = [];
  for (let i = 0; i < toolCount; i++) {
    const plugin = `plugin-${i % PLUGINS}`;
    const pluginRoot = path.join(root, "plugins", plugin);
    const dir = path.join(pluginRoot, "ai.assemblyline");
    fs.mkdirSync(dir, { recursive: true });
    const helper = path.join(dir, "helper.ts");
    if (!fs.existsSync(helper)) fs.writeFileSync(helper, 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n');
    const definitionFile = path.join(dir, `tool-${i}.ts`);
    fs.writeFileSync(
      definitionFile,
      [
        'import { defineTool } from "@assemblyline-agents/core";',
        'import { greet } from "./helper.js";',
        "",
        "export default defineTool({",
        `  description: "Generated tool ${i}.",`,
        '  inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },',
        "  async execute(input: { name: string }) {",
        `    return { greeting: greet(input.name), tool: ${i} };`,
        "  },",
        "});",
        "",
      ].join("\n"),
    );
    tools.push({ surfaceId: ".", capability: plugin, toolName: `tool_${i}`, pluginRoot, definitionFile });
  }
  return { root, tools };
}

/** The baseline: one esbuild build of the same entry points, no plugins, core by alias. */
function plainBuild(root, tools) {
  const entryPoints = Object.fromEntries(
    tools.map((t) => [`bundles/root/${t.capability}/ai.assemblyline/${path.basename(t.definitionFile, ".ts")}`, t.definitionFile]),
  );
  return esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir: path.join(root, ".assemblyline", "build"),
    bundle: true,
    write: false,
    splitting: false,
    platform: "node",
    format: "esm",
    target: "node22",
    alias: { "@assemblyline-agents/core": path.join(dist, "runtime-min", "authoring", "index.js") },
    logLevel: "silent",
  });
}

async function time(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const { root, tools } = generateAgent();
try {
  const check = await bundleTools({ root, tools });
  if (check.diagnostics.length > 0 || check.bundles.size !== toolCount) {
    console.error("bench/packaging.mjs: bundleTools reported", check.diagnostics.slice(0, 3));
    process.exit(1);
  }
  const plan = planBundles(tools);
  const pluginOnly = () => esbuild.build(buildOptions(root, path.join(root, ".assemblyline", "build"), plan.bundles, locateAuthoringCore()));
  const variants = [
    ["bundleTools (plugin, asset rules, naming, SRI)", () => bundleTools({ root, tools })],
    ["esbuild.build with packaging's options only  ", pluginOnly],
    ["plain esbuild.build (no plugins)             ", () => plainBuild(root, tools)],
  ];
  const times = variants.map(() => []);
  for (const [, fn] of variants) await fn();
  for (let run = 0; run < runs; run++) {
    for (const [index, [, fn]] of variants.entries()) times[index].push(await time(fn));
  }
  if (values.json) {
    emit(
      ratioFigure({
        name: "packaging.bundle",
        label: `bundleTools on ${toolCount} definitions (in process)`,
        baselineLabel: "one plain esbuild.build of the same entry points",
        subject: summarizeMs(times[0]),
        baseline: summarizeMs(times[2]),
        target: { op: "<=", value: 1.2 },
        pluginOnly: summarizeMs(times[1]),
        esbuild: esbuild.version,
      }),
      { json: true },
    );
  } else {
    console.log(`packaging bench: ${toolCount} definitions, ${runs} runs each, esbuild ${esbuild.version}, Node ${process.version}`);
    for (const [index, [label]] of variants.entries()) {
      console.log(`  ${label}  median ${median(times[index]).toFixed(0)} ms  min ${Math.min(...times[index]).toFixed(0)} ms`);
    }
    const ratio = median(times[0]) / median(times[2]);
    console.log(`  ratio bundleTools / plain: ${ratio.toFixed(2)}x (target <= 1.20x)`);
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
