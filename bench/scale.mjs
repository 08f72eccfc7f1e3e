#!/usr/bin/env node
/**
 * Issue 14 item 5: how compile time and memory grow with the agent. Generated agents of the
 * realistic shape (bench/generate-agent.mjs `full: true`: factories with config, approval gates,
 * deferred tools, helper modules, Markdown prompt assets, skills, subagents) of 10, 100, 500
 * and 2,000 plugins × 10 tools, and a one-plugin, one-tool agent for the fixed cost.
 *
 * For each size, interleaved in one run (bench/lib.mjs `interleave`), as whole processes with
 * wall time, CPU time and peak RSS (GNU time):
 *   - the floor: bench/floor-parse.mjs (read every file, `ts.createSourceFile` every TS file);
 *   - `compile --no-package`, cold: as a fresh checkout (plugins.lock present, no
 *     .assemblyline/: no analysis cache, no artifact);
 *   - `compile` with packaging, cold, the same way.
 * Then a fit of time and memory against the number of tools (bench/fit.mjs says how and why).
 *
 * Usage: node bench/scale.mjs [--quick] [--json] [--sizes 10,100,500,2000] [--runs N]
 * (runs default per size: 5, 5, 3, 2; --quick: 2 and 5 plugins, one run each).
 * Runs against dist/ (npm run build first).
 */
import "./clean-env.mjs";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { scaleFits } from "./fit.mjs";
import { generateAgent } from "./generate-agent.mjs";
import { emit, interleave, note, parseBenchArgs, ratioFigure, summarize, timeNode, valueFigure } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(here, "..", "dist", "bin", "assembly-line.cjs");
const floor = path.join(here, "floor-parse.mjs");
const TOOLS = 10;
const { quick, json, values } = parseBenchArgs({ sizes: { type: "string" }, runs: { type: "string" } });
const sizes = (values.sizes ?? (quick ? "2,5" : "10,100,500,2000")).split(",").map(Number);
/** Runs per size: fewer for the large agents, whose compile with packaging takes a minute or more. */
const runsFor = (plugins) => (values.runs ? Number(values.runs) : quick ? 1 : plugins >= 2000 ? 2 : plugins >= 500 ? 3 : 5);
const out = { json };

if (!fs.existsSync(cli)) {
  console.error("bench/scale.mjs: dist/bin/assembly-line.cjs is missing; run `npm run build` first.");
  process.exit(2);
}

/** Every agent folder this run made; removed at exit, also when a run fails or is interrupted. */
const made = new Set();
const removeAgents = () => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true }));
process.on("exit", removeAgents);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

/** Generates a full agent, compiles it once (writes plugins.lock; must be clean) and returns its paths. */
function prepare(plugins, tools) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `al-bench-scale-${plugins}-`));
  made.add(dir);
  const files = generateAgent(dir, { plugins, tools, full: true });
  const first = timeNode([cli, "compile", dir, "--no-package", "--format", "json"]);
  const report = JSON.parse(first.stdout);
  if (!report.ok || report.diagnostics.length > 0) throw new Error(`the generated ${plugins} × ${tools} agent does not compile clean: ${first.stdout.slice(0, 2000)}`);
  return { dir, files, plugins, tools };
}

/** The three whole-process variants on one agent; each compile starts without .assemblyline/. */
function variants(agent) {
  const fresh = () => fs.rmSync(path.join(agent.dir, ".assemblyline"), { recursive: true, force: true });
  return [
    { name: "floor", run: () => timeNode([floor, agent.dir]) },
    { name: "noPackage", before: fresh, run: () => timeNode([cli, "compile", agent.dir, "--no-package"]) },
    { name: "compile", before: fresh, run: () => timeNode([cli, "compile", agent.dir]) },
  ];
}

const LABELS = { floor: "floor (read + ts.createSourceFile)", noPackage: "compile --no-package, cold", compile: "compile with packaging, cold" };

// The fixed cost: the same commands on a one-plugin, one-tool agent.
const unit = prepare(1, 1);
const fixed = Object.fromEntries(Object.entries(interleave(variants(unit), { runs: quick ? 1 : 5, warmup: quick ? 0 : 1 })).map(([k, v]) => [k, summarize(v)]));
fs.rmSync(unit.dir, { recursive: true, force: true });
note(`fixed cost (1 plugin × 1 tool): floor ${fixed.floor.median.toFixed(0)} ms, compile --no-package ${fixed.noPackage.median.toFixed(0)} ms, compile ${fixed.compile.median.toFixed(0)} ms`, out);
emit(valueFigure({ name: "scale.fixed-cost", label: "compile with packaging of a 1 plugin × 1 tool agent (the fixed cost the fit subtracts)", unit: "ms", value: fixed.compile.median, ...fixed.compile, noPackage: fixed.noPackage, floor: fixed.floor }), out);

const rows = [];
for (const plugins of sizes) {
  const agent = prepare(plugins, TOOLS);
  const runs = runsFor(plugins);
  note(`${plugins} plugins × ${TOOLS} tools: ${agent.files} files, ${runs} interleaved runs`, out);
  const samples = interleave(variants(agent), { runs, warmup: quick || plugins >= 500 ? 0 : 1 });
  fs.rmSync(agent.dir, { recursive: true, force: true });
  const size = { plugins, tools: plugins * TOOLS, files: agent.files };
  const row = { ...size, floor: summarize(samples.floor), noPackage: summarize(samples.noPackage), compile: summarize(samples.compile) };
  rows.push(row);
  for (const variant of ["noPackage", "compile"]) {
    emit(
      ratioFigure({
        name: `scale.${plugins}x${TOOLS}.${variant === "noPackage" ? "compile-no-package" : "compile"}`,
        label: `${LABELS[variant]}, ${plugins} × ${TOOLS} (${agent.files} files)`,
        baselineLabel: LABELS.floor,
        subject: row[variant],
        baseline: row.floor,
        ...size,
      }),
      out,
    );
  }
}

// Time (wall and CPU) and memory against the number of tools.
for (const figure of scaleFits(rows, fixed)) emit(figure, out);
