/**
 * Issue 2 and 3 measurements on a generated agent of 200 plugins × 10 tools:
 *  1. `compile --no-package` as a whole process against the floor (`floor-parse.mjs`: read the
 *     same files and `ts.createSourceFile` every TypeScript file), both timed as whole
 *     processes, interleaved, in one run: medians and the ratio (target ≤ 2×).
 *  2. lock writing (build + serialize + write plugins.lock) as a share of the whole
 *     in-process `compileAgent({ package: false })`, from its phase timings.
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
const runs = Number(process.argv[2] ?? 7);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const time = (args) => {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return ms;
};

const agent = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-agent-"));
const files = generateAgent(agent, { plugins: 200, tools: 10 });
console.log(`generated ${files} files in ${agent}`);

time([cli, "compile", agent, "--no-package"]); // warm the OS file cache; writes the lock once
time([path.join(here, "floor-parse.mjs"), agent]);
const compileTimes = [];
const floorTimes = [];
for (let i = 0; i < runs; i++) {
  floorTimes.push(time([path.join(here, "floor-parse.mjs"), agent]));
  compileTimes.push(time([cli, "compile", agent, "--no-package"]));
}
const compileMedian = median(compileTimes);
const floorMedian = median(floorTimes);
console.log(`compile --no-package (whole process): median ${compileMedian.toFixed(0)} ms over ${runs} runs`);
console.log(`floor: read + ts.createSourceFile (whole process): median ${floorMedian.toFixed(0)} ms`);
console.log(`ratio: ${(compileMedian / floorMedian).toFixed(2)}× (target ≤ 2×)`);

const { compileAgent } = await import(pathToFileURL(path.join(repo, "dist/compiler/compile.js")).href);
const shares = [];
for (let i = 0; i < runs; i++) {
  fs.rmSync(path.join(agent, "plugins.lock"), { force: true });
  const result = await compileAgent({ root: agent, package: false });
  if (!result.ok) throw new Error("in-process compile failed");
  const t = result.timings;
  shares.push({ lock: t.lock, total: t.total });
}
const lockMedian = median(shares.map((s) => s.lock));
const totalMedian = median(shares.map((s) => s.total));
console.log(`lock build + serialize + write: median ${lockMedian.toFixed(1)} ms of ${totalMedian.toFixed(0)} ms in-process compile (${((100 * lockMedian) / totalMedian).toFixed(1)}%)`);
fs.rmSync(agent, { recursive: true, force: true });
