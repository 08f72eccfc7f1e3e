#!/usr/bin/env node
/**
 * Start-up benchmark (issue 14 item 3): whole `assembly-line` processes against `node -e 0`,
 * interleaved in one run so both see the same machine load.
 *
 *     npm run build && node bench/startup.mjs [--runs 15] [--quick] [--dist DIR] [--baseline DIR] [--json]
 *
 * Measured, each as a whole process (spawn to exit), on a compiled copy of
 * `examples/support-agent` in a temporary folder whose artifact is current:
 *
 * - `--version`                      target ≤ 2× `node -e 0`
 * - `tools`                          target ≤ 3×
 * - `search ticket`                  target ≤ 3×
 * - `call echo --input {...}`        target ≤ 4× (starts a sandbox process)
 *
 * Each round runs `node -e 0` and then every command, the order of the commands rotating
 * from round to round. Reported per command: median / min / max wall time, median CPU time
 * (user + system of the child, from `/usr/bin/time` when present, else not shown), peak RSS,
 * and the ratio of the medians to `node -e 0` next to its target. `--quick` runs 1 round (a
 * smoke check; no timing assertions anywhere). The machine's load average is printed, since
 * wall-clock figures on a loaded machine are noisy: compare ratios from one run.
 *
 * `--baseline DIR` adds the same commands run by another build's `dist/` (e.g. the main
 * branch's) to the same interleaved rounds, as "before" rows, on its own compiled copy.
 */
import "./clean-env.mjs";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseBenchArgs } from "./lib.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// --help/-h and unknown flags: bench/lib.mjs (parseBenchArgs).
const { values } = parseBenchArgs({ runs: { type: "string" }, dist: { type: "string" }, baseline: { type: "string" } });
// --quick: one round after the warm-up pass (a smoke check of the script; its numbers mean nothing).
const runs = Number(values.runs ?? (values.quick ? 1 : 15));
const dist = values.dist ? path.resolve(values.dist) : path.join(repo, "dist");
const bin = path.join(dist, "bin", "assembly-line.cjs");
if (!fs.existsSync(bin)) {
  console.error(`bench/startup.mjs: ${path.relative(process.cwd(), bin)} is missing; run \`npm run build\` first.`);
  process.exit(2);
}
const timeBinary = ["/usr/bin/time"].find((candidate) => fs.existsSync(candidate));

/** Runs one whole process; returns wall ms, CPU ms (or undefined) and peak RSS in KiB (or undefined). */
function measure(args, cwd) {
  const command = timeBinary ?? process.execPath;
  const argv = timeBinary ? ["-f", "@@time %U %S %M", process.execPath, ...args] : args;
  const start = process.hrtime.bigint();
  const result = spawnSync(command, argv, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited with ${result.status}: ${result.stderr}`);
  const line = (result.stderr ?? "").split("\n").find((l) => l.startsWith("@@time "));
  if (!line) return { wall };
  const [user, system, rss] = line.slice(7).trim().split(/\s+/).map(Number);
  return { wall, cpu: (user + system) * 1000, rss };
}

function summary(samples) {
  const sorted = (key) => samples.map((s) => s[key]).filter((x) => x !== undefined).sort((a, b) => a - b);
  const median = (list) => (list.length === 0 ? undefined : list.length % 2 ? list[(list.length - 1) / 2] : (list[list.length / 2 - 1] + list[list.length / 2]) / 2);
  const wall = sorted("wall");
  const rss = sorted("rss");
  return { median: median(wall), min: wall[0], max: wall[wall.length - 1], cpu: median(sorted("cpu")), peakRssKiB: rss.length ? rss[rss.length - 1] : undefined, n: wall.length };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-startup-"));
try {
  const agent = path.join(dir, "support-agent");
  fs.cpSync(path.join(repo, "examples", "support-agent"), agent, { recursive: true, filter: (source) => !source.includes(`${path.sep}.assemblyline`) });
  // The compile writes the artifact; one `tools` run afterwards fills the token-count cache.
  measure([bin, "compile", "."], agent);
  const commandsOf = (entry, cwd, suffix) => [
    { name: `--version${suffix}`, args: [entry, "--version"], target: 2, cwd },
    { name: `tools${suffix}`, args: [entry, "tools", "."], target: 3, cwd },
    { name: `search document${suffix}`, args: [entry, "search", "document", "."], target: 3, cwd },
    { name: `call echo${suffix}`, args: [entry, "call", "echo", ".", "--input", '{"message":"hi"}'], target: 4, cwd },
  ];
  const commands = commandsOf(bin, agent, "");
  if (values.baseline) {
    // The bin of a build before 4 December's was `bin/assembly-line.js`, an ES module.
    const baselineBin = ["assembly-line.cjs", "assembly-line.js"].map((name) => path.join(path.resolve(values.baseline), "bin", name)).find((file) => fs.existsSync(file));
    if (baselineBin === undefined) {
      console.error(`bench/startup.mjs: ${values.baseline} has no bin/assembly-line.cjs or bin/assembly-line.js; give the dist/ folder of a built checkout.`);
      process.exit(2);
    }
    const baselineAgent = path.join(dir, "support-agent-baseline");
    fs.cpSync(path.join(repo, "examples", "support-agent"), baselineAgent, { recursive: true, filter: (source) => !source.includes(`${path.sep}.assemblyline`) });
    measure([baselineBin, "compile", "."], baselineAgent);
    commands.push(...commandsOf(baselineBin, baselineAgent, " (baseline)"));
  }
  for (const command of commands) measure(command.args, command.cwd);
  const baseline = { name: "node -e 0", args: ["-e", "0"] };
  const samples = new Map([[baseline.name, []], ...commands.map((c) => [c.name, []])]);
  for (let round = 0; round < runs; round++) {
    samples.get(baseline.name).push(measure(baseline.args, agent));
    for (let i = 0; i < commands.length; i++) {
      const command = commands[(i + round) % commands.length];
      samples.get(command.name).push(measure(command.args, command.cwd));
    }
  }
  const base = summary(samples.get(baseline.name));
  const rows = [{ name: baseline.name, ...base }, ...commands.map((c) => {
    const s = summary(samples.get(c.name));
    return { name: c.name, ...s, ratio: s.median / base.median, cpuRatio: s.cpu !== undefined && base.cpu ? s.cpu / base.cpu : undefined, target: c.target };
  })];
  const load = os.loadavg().map((x) => x.toFixed(2)).join(" ");
  if (values.json) {
    // One figure per command in bench/lib.mjs's convention (`npm run bench` collects them).
    const { emit, ratioFigure } = await import("./lib.mjs");
    const figureName = { "--version": "startup.version", tools: "startup.tools", "search document": "startup.search", "call echo": "startup.call-echo" };
    const asSummary = (row) => ({ median: row.median, min: row.min, max: row.max, n: row.n, cpuMedian: row.cpu ?? null, rssPeakKb: row.peakRssKiB ?? null });
    for (const row of rows.slice(1)) {
      const baselineRun = row.name.endsWith(" (baseline)");
      const name = figureName[row.name.replace(" (baseline)", "")];
      emit(
        ratioFigure({
          name: baselineRun ? `${name}.baseline-build` : name,
          // `--version` reads no agent (new-user trial 135).
          label: row.name.startsWith("--version") ? `${row.name}, whole process` : `${row.name} on the example agent with a current artifact, whole process`,
          baselineLabel: "node -e 0",
          subject: asSummary(row),
          baseline: asSummary(rows[0]),
          ...(baselineRun ? {} : { target: { op: "<=", value: row.target } }),
          load,
        }),
        { json: true },
      );
    }
  } else {
    console.log(`node ${process.version}, ${os.cpus()[0]?.model ?? "cpu"} ×${os.cpus().length}; ${runs} interleaved rounds; load average ${load}`);
    const ms = (x) => (x === undefined ? "—" : `${x.toFixed(0)} ms`);
    for (const row of rows) {
      const head = `${row.name.padEnd(28)} median ${ms(row.median).padStart(7)}  min ${ms(row.min).padStart(7)}  max ${ms(row.max).padStart(7)}  cpu ${ms(row.cpu).padStart(7)}  rss ${row.peakRssKiB === undefined ? "—" : `${(row.peakRssKiB / 1024).toFixed(0)} MiB`}`;
      const ratio = row.ratio === undefined ? "" : `  ratio ${row.ratio.toFixed(2)}× (target ≤ ${row.target}×${row.ratio <= row.target ? ", met" : ", NOT met"})${row.cpuRatio === undefined ? "" : `, cpu ${row.cpuRatio.toFixed(2)}×`}`;
      console.log(head + ratio);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
