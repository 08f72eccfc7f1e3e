#!/usr/bin/env node
/**
 * Incremental packaging (issue 14 item 4): `compile` with packaging on a generated agent of
 * 200 plugins × 10 tools, as whole processes, interleaved in one run:
 *   - cold: `.assemblyline/` removed before each run (no analysis cache, no bundle cache, no
 *     artifact; the lock is in place), i.e. the first compile of a fresh checkout;
 *   - nothing changed: everything from the previous run in place (target ≤ 0.15× cold);
 *   - one-file change: one tool definition alternates between two texts before each run, so
 *     its bundle, the lock and the artifact change every time (target ≤ 0.3× cold).
 * Prints median / min / max wall time of each, the ratios of the medians next to the targets,
 * the median CPU time (user + sys of the process and the children it waited for, from GNU
 * time when installed; esbuild's service process is not always among them) and the load average.
 *
 * Runs against dist/ (npm run build first):
 *     node bench/incremental.mjs [--runs 5] [--plugins 200] [--tools 10] [--quick] [--json]
 * `--json`: the figures `incremental.nothing-changed` and `incremental.one-file` in
 * bench/lib.mjs's convention, one JSON line each (what `npm run bench` collects).
 * `--quick`: 2 plugins × 10 tools, 1 run (a smoke check of the script, not a measurement).
 */
import "./clean-env.mjs";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { generateAgent } from "./generate-agent.mjs";
import { parseBenchArgs } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// --help/-h and unknown flags: bench/lib.mjs (parseBenchArgs).
const { values } = parseBenchArgs({ runs: { type: "string" }, plugins: { type: "string" }, tools: { type: "string" } });
const cli = path.join(here, "..", "dist", "bin", "assembly-line.cjs");
if (!fs.existsSync(cli)) {
  console.error("bench/incremental.mjs: dist/bin/assembly-line.cjs is missing; run `npm run build` first.");
  process.exit(2);
}
const quick = values.quick;
const runs = Number(values.runs ?? (quick ? 1 : 5));
const plugins = Number(values.plugins ?? (quick ? 2 : 200));
const tools = Number(values.tools ?? 10);
const gnuTime = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Runs one compile as a whole process; returns wall-clock and CPU milliseconds. */
function compile(root) {
  const args = [cli, "compile", root, "--format", "json"];
  const [command, argv] = gnuTime ? [gnuTime, ["-f", "\n%U %S", process.execPath, ...args]] : [process.execPath, args];
  const start = process.hrtime.bigint();
  const result = spawnSync(command, argv, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`compile exited ${result.status}:\n${result.stdout.slice(0, 2000)}\n${result.stderr.slice(0, 2000)}`);
  const cpu = gnuTime ? result.stderr.trim().split("\n").at(-1).split(" ").reduce((sum, s) => sum + Number(s) * 1000, 0) : NaN;
  return { ms, cpu };
}

const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-incremental-")), "agent");
try {
  const files = generateAgent(root, { plugins, tools });
  const changed = path.join(root, "plugins", "plugin-0000", "ai.assemblyline", "tool-0.ts");
  const original = fs.readFileSync(changed, "utf8");
  if (!original.includes("return {")) throw new Error("bench/incremental.mjs: the generated definition has no `return {` to vary");
  let flip = 0;
  const modes = {
    cold: () => fs.rmSync(path.join(root, ".assemblyline"), { recursive: true, force: true }),
    "nothing changed": () => {},
    "one-file change": () => fs.writeFileSync(changed, original.replace("return {", `return { variant: ${flip++ % 2},`)),
  };
  compile(root); // warms the OS file cache and writes the lock
  const times = Object.fromEntries(Object.keys(modes).map((mode) => [mode, { ms: [], cpu: [] }]));
  for (let run = 0; run < runs; run++) {
    for (const [mode, before] of Object.entries(modes)) {
      // The run before (of any mode) left everything current.
      before();
      const { ms, cpu } = compile(root);
      times[mode].ms.push(ms);
      times[mode].cpu.push(cpu);
    }
  }
  if (values.json) {
    const { emit, ratioFigure } = await import("./lib.mjs");
    const asSummary = ({ ms, cpu }) => ({ median: median(ms), min: Math.min(...ms), max: Math.max(...ms), n: ms.length, cpuMedian: gnuTime ? median(cpu) : null });
    for (const [name, mode, target] of [["incremental.nothing-changed", "nothing changed", 0.15], ["incremental.one-file", "one-file change", 0.3]]) {
      emit(
        ratioFigure({
          name,
          label: `compile with packaging, ${mode}, ${plugins} plugins × ${tools} tools, whole process`,
          baselineLabel: "cold compile with packaging (no .assemblyline/, lock in place)",
          subject: asSummary(times[mode]),
          baseline: asSummary(times.cold),
          target: { op: "<=", value: target },
          load: os.loadavg(),
        }),
        { json: true },
      );
    }
  } else {
    console.log(`incremental packaging bench: ${plugins} plugins × ${tools} tools (${files} files), ${runs} interleaved runs each, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
    for (const [mode, { ms, cpu }] of Object.entries(times)) {
      const cpuText = gnuTime ? `  cpu median ${median(cpu).toFixed(0)} ms` : "";
      console.log(`  ${mode.padEnd(16)} median ${median(ms).toFixed(0).padStart(6)} ms  min ${Math.min(...ms).toFixed(0).padStart(6)} ms  max ${Math.max(...ms).toFixed(0).padStart(6)} ms${cpuText}`);
    }
    const cold = median(times.cold.ms);
    const ratio = (mode) => median(times[mode].ms) / cold;
    const cpuRatio = (mode) => (gnuTime ? `, cpu ${(median(times[mode].cpu) / median(times.cold.cpu)).toFixed(2)}x` : "");
    console.log(`  nothing changed / cold: ${ratio("nothing changed").toFixed(2)}x (target <= 0.15x)${cpuRatio("nothing changed")}`);
    console.log(`  one-file change / cold: ${ratio("one-file change").toFixed(2)}x (target <= 0.30x)${cpuRatio("one-file change")}`);
  }
} finally {
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
}
