/**
 * Issue 2 and 3 measurements on a generated agent of 200 plugins × 10 tools:
 *  1. `compile --no-package` as a whole process against the floor (`floor-parse.mjs`: read the
 *     same files and `ts.createSourceFile` every TypeScript file), all timed as whole
 *     processes, interleaved, in one run: medians and ratios (target ≤ 2×), for
 *       - cold: no analysis cache (`--no-cache`; when the CLI does not have the flag yet,
 *         the cache is deleted before each run, so the run also pays for writing it);
 *       - cold + cache write: the cache deleted before each run (a first compile);
 *       - warm: the cache of the previous run in place (an unchanged agent).
 *     With /usr/bin/time available, the median CPU time (user + sys, all threads) too.
 *  2. lock writing (build + serialize + write plugins.lock) as a share of the whole
 *     in-process `compileAgent({ package: false })`, from its phase timings, cold and warm.
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

time([cli, ...compile]); // warm the OS file cache; writes the lock and the analysis cache once
time([floor, agent]);
const samples = { floor: [] };
for (const name of Object.keys(modes)) samples[name] = [];
for (let i = 0; i < runs; i++) {
  samples.floor.push(time([floor, agent]));
  for (const [name, mode] of Object.entries(modes)) {
    mode.before();
    samples[name].push(time(mode.args));
  }
}
const floorMs = median(samples.floor.map((s) => s.ms));
const report = (label, list) => {
  const ms = median(list.map((s) => s.ms));
  const cpu = median(list.map((s) => s.cpu));
  const cpuText = Number.isNaN(cpu) ? "" : `, CPU ${cpu.toFixed(0)} ms`;
  return { ms, text: `${label}: median ${ms.toFixed(0)} ms${cpuText} over ${runs} runs` };
};
console.log(report("floor: read + ts.createSourceFile (whole process)", samples.floor).text);
if (!hasNoCacheFlag) console.log("(the CLI has no --no-cache flag yet: 'cold' deletes the cache before each run)");
for (const name of Object.keys(modes)) {
  const { ms, text } = report(`compile --no-package, ${name} (whole process)`, samples[name]);
  console.log(`${text} — ratio ${(ms / floorMs).toFixed(2)}× (target ≤ 2×)`);
}

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
