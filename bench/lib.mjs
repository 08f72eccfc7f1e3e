/**
 * The shared convention of the bench scripts (docs/benchmarks.md), and the helpers that implement it.
 *
 * Every script in bench/ accepts
 *   --quick   a smoke-sized run (small inputs, one or two runs): checks that the measurement
 *             works, in seconds; its numbers mean nothing;
 *   --json    stdout carries only figures, one JSON object per line (anything else a script
 *             wants to say goes to stderr); without it, the same figures as readable lines.
 * A figure is one measured quantity, compared with its baseline where it has one:
 *   { name, label, unit, value, target?, meets?, ratio?, median, min, max, n, cpuMedian?,
 *     rssPeakKb?, baseline?: { label, median, min, max, n, cpuMedian?, rssPeakKb? }, … }
 * `median`, `min`, `max` are wall-clock milliseconds of the subject (whole processes where the
 * figure says so), `value` is what the target compares (a ratio of medians for `unit: "×"`),
 * `target` is `{ op: "<=" | "<", value }`, and `rssPeakKb` is the peak resident set size of
 * the process (GNU time's `%M`, which is the largest of the process and its waited-for
 * descendants, not their sum). bench/run.mjs collects the figures of every script.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";

const GNU_TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/**
 * Parses a bench script's arguments: the shared `--quick` and `--json` flags plus the script's
 * own `options` (node:util parseArgs options), and `--help`/`-h` ({@link parseScriptArgs}: the
 * usage on stdout, exit 0; an unknown or malformed flag is refused with it, exit 2). `usage` is
 * the script's usage text; without it, one is made from the option names
 * ({@link defaultUsage}). Returns `{ quick, json, values, positionals }`.
 */
export function parseBenchArgs(options = {}, argv = process.argv.slice(2), usage = undefined) {
  const all = { quick: { type: "boolean", default: false }, json: { type: "boolean", default: false }, ...options };
  const script = scriptName();
  const { values, positionals } = parseScriptArgs({ script, usage: usage ?? defaultUsage(script, all), options: all, argv, allowPositionals: true });
  return { quick: values.quick, json: values.json, values, positionals };
}

/**
 * The command line of every bench script, parsed with node:util `parseArgs` and `options`
 * plus `-h, --help`: with `--help` it prints `usage` on stdout and exits 0; a flag it does not
 * know, or one without its value, prints `<script>: <what is wrong>` and `usage` on stderr and
 * exits 2 (never an ERR_PARSE_ARGS stack). `script` is the name shown (`bench/run.mjs`).
 * Returns parseArgs' `{ values, positionals }`.
 */
export function parseScriptArgs({ script, usage, options, argv = process.argv.slice(2), allowPositionals = false }) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals, options: { ...options, help: { type: "boolean", short: "h", default: false } } });
  } catch (error) {
    process.stderr.write(`${script}: ${error.message}\n\n${usage}`);
    process.exit(2);
  }
  if (parsed.values.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  return parsed;
}

/** `bench/<file>` of the running script (`bench/run.mjs`), as its messages name it. */
function scriptName() {
  return `bench/${path.basename(process.argv[1] ?? "bench.mjs")}`;
}

/**
 * A usage text made from parseArgs `options` when a script has none of its own: each option,
 * with `VALUE` after the ones that take a value, and where the shared flags are described.
 */
export function defaultUsage(script, options) {
  const lines = Object.entries(options).map(([name, option]) => `  --${name}${option.type === "string" ? " VALUE" : ""}`);
  return `Usage: node ${script} [options]   (npm run build first)\n\nOptions (--quick and --json: bench/lib.mjs, docs/benchmarks.md):\n${lines.join("\n")}\n  -h, --help       print this and exit\n`;
}

/**
 * Runs `command args` to completion as a whole process and measures it: wall-clock ms
 * (hrtime around spawn and exit), and with GNU time user + system CPU ms and peak RSS in KiB.
 * Throws when the exit status is not in `okStatuses` (default `[0]`), with the output.
 * Returns `{ wallMs, cpuMs, userMs, sysMs, rssKb, status, stdout, stderr }` (CPU and RSS are
 * `null` without /usr/bin/time).
 */
export function timeProcess(command, args, { cwd, env, okStatuses = [0] } = {}) {
  const report = GNU_TIME ? path.join(os.tmpdir(), `al-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`) : undefined;
  const [file, argv] = GNU_TIME ? [GNU_TIME, ["-o", report, "-f", "%U %S %M", command, ...args]] : [command, args];
  const start = process.hrtime.bigint();
  const result = spawnSync(file, argv, { cwd, env, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  // GNU time writes "Command exited with non-zero status N" before the format line on failure.
  // Read (and removed) before any throw below: a failed run used to leave its report in the temp folder.
  const line = report ? readTimeReport(report) : undefined;
  if (result.error) throw result.error;
  if (!okStatuses.includes(result.status)) {
    throw new Error(`${[command, ...args].join(" ")} exited ${result.status}:\n${result.stdout.slice(0, 4000)}\n${result.stderr.slice(0, 4000)}`);
  }
  let userMs = null;
  let sysMs = null;
  let rssKb = null;
  if (report) {
    if (line === undefined) throw new Error(`${GNU_TIME} wrote no report for ${[command, ...args].join(" ")}`);
    const [user, sys, rss] = line.split(" ").map(Number);
    [userMs, sysMs, rssKb] = [user * 1000, sys * 1000, rss];
  }
  return { wallMs, cpuMs: userMs === null ? null : userMs + sysMs, userMs, sysMs, rssKb, status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The last line of GNU time's report file (undefined when time never wrote it), removing the file. */
function readTimeReport(report) {
  try {
    return fs.readFileSync(report, "utf8").trim().split("\n").at(-1);
  } catch {
    return undefined;
  } finally {
    fs.rmSync(report, { force: true });
  }
}

/**
 * User + system CPU ms of process `pid` so far, every thread (also ones that ended), from
 * /proc/<pid>/stat (clock ticks of 10 ms); undefined off Linux or once the process is gone.
 * For long-lived servers measured while they run (bench/lsp.mjs, bench/editor.mjs).
 */
export function processCpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // utime and stime are fields 14 and 15 of stat(5); fields[0] here is field 3.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** `node …args` as a whole process, measured like {@link timeProcess}. */
export function timeNode(args, options) {
  return timeProcess(process.execPath, args, options);
}

/**
 * Runs every variant `warmup` times unrecorded, then `runs` rounds in which each variant runs
 * once; the order rotates from round to round (round i starts with variant i mod n), so no
 * variant always runs first, right after another, or on the caches a given one left. A
 * variant is `{ name, run() → sample, before?() }`: `before` runs untimed before each run (to
 * drop a cache, say), `run` returns a sample (as {@link timeProcess} does). Returns
 * `{ [name]: sample[] }`.
 */
export function interleave(variants, { runs, warmup = 1 }) {
  const samples = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let round = -warmup; round < runs; round++) {
    const start = ((round % variants.length) + variants.length) % variants.length;
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(start + k) % variants.length];
      variant.before?.();
      const sample = variant.run();
      if (round >= 0) samples[variant.name].push(sample);
    }
  }
  return samples;
}

/** The median of a list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The `q` quantile (0…1) of a list of numbers, nearest rank. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const round3 = (x) => (x === null || x === undefined || Number.isNaN(x) ? null : Math.round(x * 1000) / 1000);

/**
 * Median, min and max wall ms of process samples, the median CPU ms and the peak RSS (KiB):
 * `{ median, min, max, n, cpuMedian, rssPeakKb }` (CPU and RSS `null` when not measured).
 */
export function summarize(samples) {
  const wall = samples.map((s) => s.wallMs);
  const cpu = samples.map((s) => s.cpuMs).filter((x) => x !== null && x !== undefined);
  const rss = samples.map((s) => s.rssKb).filter((x) => x !== null && x !== undefined);
  return {
    median: round3(median(wall)),
    min: round3(Math.min(...wall)),
    max: round3(Math.max(...wall)),
    n: wall.length,
    cpuMedian: cpu.length > 0 ? round3(median(cpu)) : null,
    rssPeakKb: rss.length > 0 ? Math.max(...rss) : null,
  };
}

/** Summary of plain millisecond values (in-process timings): `{ median, min, max, n }`. */
export function summarizeMs(values) {
  return { median: round3(median(values)), min: round3(Math.min(...values)), max: round3(Math.max(...values)), n: values.length };
}

/** Whether `value` meets `target` (`{ op: "<=" | "<" | ">=", value }`). */
export function meets(value, target) {
  if (!target) return undefined;
  if (target.op === "<=") return value <= target.value;
  if (target.op === "<") return value < target.value;
  if (target.op === ">=") return value >= target.value;
  throw new Error(`unknown target operator ${target.op}`);
}

/**
 * A figure that compares a subject with its baseline: the ratio of the medians of wall time
 * (or of `compare: "cpuMedian"`), with both summaries. `subject` and `baseline` are sample
 * lists ({@link timeProcess}) or ready summaries. `extra` fields are copied in.
 */
export function ratioFigure({ name, label, baselineLabel, subject, baseline, target, compare = "median", ...extra }) {
  const s = Array.isArray(subject) ? summarize(subject) : subject;
  const b = Array.isArray(baseline) ? summarize(baseline) : baseline;
  const ratio = round3(s[compare] / b[compare]);
  return {
    name,
    label,
    unit: "×",
    value: ratio,
    ratio,
    compare,
    ...(target ? { target, meets: meets(ratio, target) } : {}),
    ...s,
    baseline: { label: baselineLabel, ...b },
    ...extra,
  };
}

/** A figure that is a value on its own (`unit` "ms", "%", "MiB", …), with an optional target. */
export function valueFigure({ name, label, unit, value, target, ...extra }) {
  const v = round3(value);
  return { name, label, unit, value: v, ...(target ? { target, meets: meets(v, target) } : {}), ...extra };
}

const OPS = { "<=": "≤", "<": "<", ">=": "≥" };

/** A target as words: "≤ 2×", "< 100 ms". */
export function targetText(target, unit) {
  if (!target) return "";
  return `${OPS[target.op]} ${target.value}${unit === "×" ? "×" : unit === "%" ? "%" : ` ${unit}`}`;
}

const ms = (x) => (x === null || x === undefined ? "—" : x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(x >= 10 ? 1 : 3)} ms`);
const mib = (kb) => `${(kb / 1024).toFixed(0)} MiB`;

/** One figure as a readable line (what a script prints without --json). */
export function formatFigure(f) {
  const spread = (x) => `median ${ms(x.median)} (min ${ms(x.min)}, max ${ms(x.max)}, n=${x.n}${x.cpuMedian ? `, CPU ${ms(x.cpuMedian)}` : ""}${x.rssPeakKb ? `, peak RSS ${mib(x.rssPeakKb)}` : ""})`;
  const verdict = f.target ? `  [target ${targetText(f.target, f.unit)}: ${f.meets ? "meets" : "MISSES"}]` : "";
  if (f.unit === "×") {
    return `${f.label}: ${spread(f)}\n  vs ${f.baseline.label}: ${spread(f.baseline)}\n  ratio ${f.value.toFixed(2)}×${f.compare !== "median" ? ` (${f.compare})` : ""}${verdict}`;
  }
  if (f.unit === "exponent") {
    const k = (x) => (x === null ? "—" : x.toFixed(2));
    return `${f.label}\n  k = ${k(f.value)} (R² ${f.r2 ?? "—"}), between the two largest sizes k = ${k(f.localExponent)}; line: ${f.linear.slopePer1000} ${f.per} (R² ${f.linear.r2}), fixed cost ${f.fixedCost}`;
  }
  const value = f.unit === "ms" ? ms(f.value) : `${f.value}${f.unit === "%" ? "%" : ` ${f.unit}`}`;
  return `${f.label}: ${value}${f.median !== undefined ? `; ${spread(f)}` : ""}${verdict}`;
}

/**
 * Prints a figure: one JSON line on stdout with `--json`, else a readable line. Returns it.
 */
export function emit(figure, { json }) {
  if (json) process.stdout.write(`${JSON.stringify(figure)}\n`);
  else console.log(formatFigure(figure));
  return figure;
}

/**
 * A note for the reader (setup, counts): stderr with `--json` (stdout carries only figures),
 * stdout otherwise.
 */
export function note(text, { json }) {
  if (json) process.stderr.write(`${text}\n`);
  else console.log(text);
}

/** The machine the figures were taken on: CPU, cores, memory, OS, Node, load average. */
export function describeMachine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}
