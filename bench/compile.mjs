/**
 * Issue 2, 3 and 14 measurements on a generated agent of 200 plugins × 10 tools:
 *  1. `compile --no-package` as a whole process against the floor (`floor-parse.mjs`: read the
 *     same files and `ts.createSourceFile` every TypeScript file), all timed as whole
 *     processes, interleaved, in one run: medians and ratios to the floor next to the target
 *     (≤ 2×, issue 14 item 1), in wall time and, with /usr/bin/time, in CPU time (user + sys,
 *     all threads), for
 *       - cold: no analysis cache (`--no-cache`; when the CLI does not have the flag yet,
 *         the cache is deleted before each run, so the run also pays for writing it);
 *       - cold + cache write: the cache deleted before each run (a first compile);
 *       - warm: the cache of the previous run in place (an unchanged agent);
 *       - cold with the analysis worker forced on and forced off (`ASSEMBLY_LINE_ANALYSIS_WORKER`
 *         1 and 0; no target: `cold` leaves the choice to the load-average rule, and these two
 *         say on a quiet machine which choice is faster, docs/performance.md "Fourth round");
 *       - cold without the read-ahead of the plugin folders (`ASSEMBLY_LINE_READ_AHEAD=0`; no
 *         target: what `common/read-ahead.ts` saves, docs/performance.md "Thirteenth round").
 *     The floor loads TypeScript with `require`, as the compiler does; the floor as issue 14
 *     measured it (an ES-module import, which scans the 9 MB file for exports first) is
 *     timed too and printed for comparison.
 *  2. lock writing (build + serialize + write plugins.lock) as a share of the whole
 *     in-process `compileAgent({ package: false })` (`dist/build/compile.js`, the compile
 *     driver), from its phase timings, cold and warm.
 * Runs against dist/ (npm run build first).
 * Usage: node bench/compile.mjs [runs=7] [--quick] [--json] (bench/lib.mjs: the shared flags and
 * figures; --quick: a 2-plugin agent, one run, no warm-up).
 */
import "./clean-env.mjs";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateAgent } from "./generate-agent.mjs";
import { emit, median, note, parseBenchArgs, ratioFigure, timeNode, valueFigure } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");
const cli = path.join(repo, "dist/bin/assembly-line.cjs");
const floor = path.join(here, "floor-parse.mjs");
const { quick, json, positionals } = parseBenchArgs();
const out = { json };
const runs = quick ? 1 : Number(positionals[0] ?? 7);
const plugins = quick ? 2 : 200;

/** Runs `node ...args` as a whole process: wall ms, CPU ms (user + sys) and peak RSS (bench/lib.mjs). */
const time = (args) => timeNode(args);

const agent = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-agent-"));
const files = generateAgent(agent, { plugins, tools: 10 });
note(`generated ${files} files (${plugins} plugins × 10 tools) in ${agent}`, out);
const cacheDir = path.join(agent, ".assemblyline", "cache");
const dropCache = () => fs.rmSync(cacheDir, { recursive: true, force: true });
const hasNoCacheFlag = spawnSync(process.execPath, [cli, "compile", "--help"], { encoding: "utf8" }).stdout.includes("--no-cache");

const compile = ["compile", agent, "--no-package"];
/** The `cold` mode's command and preparation. */
function coldRun() {
  return { args: hasNoCacheFlag ? [cli, ...compile, "--no-cache"] : [cli, ...compile], before: hasNoCacheFlag ? () => {} : dropCache };
}
const modes = {
  cold: { args: hasNoCacheFlag ? [cli, ...compile, "--no-cache"] : [cli, ...compile], before: hasNoCacheFlag ? () => {} : dropCache },
  "cold + cache write": { args: [cli, ...compile], before: dropCache },
  warm: { args: [cli, ...compile], before: () => {} },
  // The analysis worker forced on and off (issue 14 item 1, docs/performance.md "Fourth round"):
  // `cold` lets its load-average rule decide; on a quiet machine these two say which choice is faster.
  "cold, analysis worker on": { ...coldRun(), env: { ...process.env, ASSEMBLY_LINE_ANALYSIS_WORKER: "1" } },
  "cold, analysis worker off": { ...coldRun(), env: { ...process.env, ASSEMBLY_LINE_ANALYSIS_WORKER: "0" } },
  // Without the read-ahead of the plugin folders (common/read-ahead.ts, docs/performance.md "Thirteenth round").
  "cold, read-ahead off": { ...coldRun(), env: { ...process.env, ASSEMBLY_LINE_READ_AHEAD: "0" } },
};

const floors = { floor: [floor, agent], "floor (ES-module import, as issue 14 measured it)": [floor, agent, "--esm-import"] };

// Warms the OS file cache; writes the lock and the analysis cache once. --quick leaves it out
// (its numbers mean nothing): the first `cold` run writes the lock, and `warm` follows
// `cold + cache write`, which writes the cache.
if (!quick) {
  time([cli, ...compile]);
  time(floors.floor);
}
const samples = {};
for (const name of [...Object.keys(floors), ...Object.keys(modes)]) samples[name] = [];
for (let i = 0; i < runs; i++) {
  for (const [name, args] of Object.entries(floors)) samples[name].push(time(args));
  for (const [name, mode] of Object.entries(modes)) {
    mode.before();
    samples[name].push(timeNode(mode.args, mode.env ? { env: mode.env } : undefined));
  }
}
if (!hasNoCacheFlag) note("(the CLI has no --no-cache flag yet: 'cold' deletes the cache before each run)", out);
const FIGURES = {
  cold: "compile.cold",
  "cold + cache write": "compile.cold-cache-write",
  warm: "compile.warm",
  "cold, analysis worker on": "compile.cold.worker-on",
  "cold, analysis worker off": "compile.cold.worker-off",
  "cold, read-ahead off": "compile.cold.read-ahead-off",
};
for (const name of Object.keys(modes)) {
  emit(
    ratioFigure({
      name: FIGURES[name],
      label: `compile --no-package, ${name}, ${plugins} × 10 (whole process)`,
      baselineLabel: "floor: read + ts.createSourceFile (whole process)",
      subject: samples[name],
      baseline: samples.floor,
      // The forced worker and read-ahead settings are for comparison with `cold`, which carries the target.
      ...(modes[name].env ? {} : { target: { op: "<=", value: 2 } }),
    }),
    out,
  );
  if (name === "cold") {
    // The same run against the floor as issue 14 measured it (an ES-module import of typescript).
    emit(
      ratioFigure({
        name: "compile.cold.issue-floor",
        label: `compile --no-package, cold, ${plugins} × 10, against the floor as issue 14 measured it`,
        baselineLabel: "floor with an ES-module import of typescript (whole process)",
        subject: samples[name],
        baseline: samples["floor (ES-module import, as issue 14 measured it)"],
      }),
      out,
    );
  }
}
note(`load average while measuring: ${os.loadavg().map((load) => load.toFixed(2)).join(" ")} (${os.cpus().length} cores)`, out);

const { compileAgent } = await import(pathToFileURL(path.join(repo, "dist/build/compile.js")).href);
for (const cache of [false, true]) {
  const shares = [];
  for (let i = 0; i < runs; i++) {
    fs.rmSync(path.join(agent, "plugins.lock"), { force: true });
    const result = await compileAgent({ root: agent, package: false, cache });
    if (!result.ok) throw new Error("in-process compile failed");
    shares.push({ lock: result.timings.lock, total: result.timings.total });
  }
  const lockMedian = median(shares.map((s) => s.lock));
  const totalMedian = median(shares.map((s) => s.total));
  const label = cache ? "warm cache" : "no cache";
  emit(valueFigure({ name: `compile.lock-share.${cache ? "warm" : "cold"}`, label: `lock build + serialize + write (${label}), share of the in-process compile (median ${lockMedian.toFixed(1)} ms of ${totalMedian.toFixed(0)} ms)`, unit: "%", value: (100 * lockMedian) / totalMedian, lockMs: lockMedian, totalMs: totalMedian, n: runs }), out);
}
fs.rmSync(agent, { recursive: true, force: true });
