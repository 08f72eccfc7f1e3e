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
 *       - warm: the cache of the previous run in place (an unchanged agent).
 *     The floor loads TypeScript with `require`, as the compiler does; the floor as issue 14
 *     measured it (an ES-module import, which scans the 9 MB file for exports first) is
 *     timed too and printed for comparison.
 *  2. lock writing (build + serialize + write plugins.lock) as a share of the whole
 *     in-process `compileAgent({ package: false })` (`dist/build/compile.js`, the compile
 *     driver), from its phase timings, cold and warm.
 * Runs against dist/ (npm run build first). Usage: node bench/compile.mjs [runs=7]
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateAgent } from "./generate-agent.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");
const cli = path.join(repo, "dist/bin/assembly-line.js");
const floor = path.join(here, "floor-parse.mjs");
const runs = Number(process.argv[2] ?? 7);
const gnuTime = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Runs `node ...args`; returns wall-clock ms and, with GNU time, CPU ms (user + sys). */
const time = (args) => {
  const command = gnuTime ? [gnuTime, ["-f", "\n%U %S", process.execPath, ...args]] : [process.execPath, args];
  const start = process.hrtime.bigint();
  const result = spawnSync(command[0], command[1], { encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  const cpu = gnuTime ? result.stderr.trim().split("\n").at(-1).split(" ").reduce((sum, s) => sum + Number(s) * 1000, 0) : NaN;
  return { ms, cpu };
};

const agent = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-agent-"));
const files = generateAgent(agent, { plugins: 200, tools: 10 });
console.log(`generated ${files} files in ${agent}`);
const cacheDir = path.join(agent, ".assemblyline", "cache");
const dropCache = () => fs.rmSync(cacheDir, { recursive: true, force: true });
const hasNoCacheFlag = spawnSync(process.execPath, [cli, "compile", "--help"], { encoding: "utf8" }).stdout.includes("--no-cache");

const compile = ["compile", agent, "--no-package"];
const modes = {
  cold: { args: hasNoCacheFlag ? [cli, ...compile, "--no-cache"] : [cli, ...compile], before: hasNoCacheFlag ? () => {} : dropCache },
  "cold + cache write": { args: [cli, ...compile], before: dropCache },
  warm: { args: [cli, ...compile], before: () => {} },
};

const floors = { floor: [floor, agent], "floor (ES-module import, as issue 14 measured it)": [floor, agent, "--esm-import"] };

time([cli, ...compile]); // warm the OS file cache; writes the lock and the analysis cache once
time(floors.floor);
const samples = {};
for (const name of [...Object.keys(floors), ...Object.keys(modes)]) samples[name] = [];
for (let i = 0; i < runs; i++) {
  for (const [name, args] of Object.entries(floors)) samples[name].push(time(args));
  for (const [name, mode] of Object.entries(modes)) {
    mode.before();
    samples[name].push(time(mode.args));
  }
}
const summary = (list) => ({ ms: median(list.map((s) => s.ms)), cpu: median(list.map((s) => s.cpu)) });
const floorFigures = summary(samples.floor);
const issueFloor = summary(samples["floor (ES-module import, as issue 14 measured it)"]);
const cpuText = (cpu) => (Number.isNaN(cpu) ? "" : `, CPU ${cpu.toFixed(0)} ms`);
console.log(`floor: read + ts.createSourceFile (whole process): median ${floorFigures.ms.toFixed(0)} ms${cpuText(floorFigures.cpu)} over ${runs} runs`);
console.log(`floor as issue 14 measured it (ES-module import of typescript): median ${issueFloor.ms.toFixed(0)} ms${cpuText(issueFloor.cpu)}`);
if (!hasNoCacheFlag) console.log("(the CLI has no --no-cache flag yet: 'cold' deletes the cache before each run)");
const ratio = (value, base) => `${(value / base).toFixed(2)}×`;
for (const name of Object.keys(modes)) {
  const { ms, cpu } = summary(samples[name]);
  const cpuRatio = Number.isNaN(cpu) ? "" : `, CPU ${ratio(cpu, floorFigures.cpu)}`;
  const issueRatio = `; to the issue's floor: wall ${ratio(ms, issueFloor.ms)}${Number.isNaN(cpu) ? "" : `, CPU ${ratio(cpu, issueFloor.cpu)}`}`;
  console.log(`compile --no-package, ${name} (whole process): median ${ms.toFixed(0)} ms${cpuText(cpu)} over ${runs} runs — ratio to floor: wall ${ratio(ms, floorFigures.ms)} (target ≤ 2×)${cpuRatio}${issueRatio}`);
}
console.log(`load average while measuring: ${os.loadavg().map((load) => load.toFixed(2)).join(" ")} (${os.cpus().length} cores)`);

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
  console.log(`lock build + serialize + write (${label}): median ${lockMedian.toFixed(1)} ms of ${totalMedian.toFixed(0)} ms in-process compile (${((100 * lockMedian) / totalMedian).toFixed(1)}%)`);
}
fs.rmSync(agent, { recursive: true, force: true });
