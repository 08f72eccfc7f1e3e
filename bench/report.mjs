/**
 * What bench/run.mjs prints at the end and writes to bench/RESULTS.md: the targets issue 14
 * names, the size scan and its fit, and every figure of the run. Pure functions of the
 * results object that bench/run.mjs also writes as bench/results.json.
 */
import { scaleFitsFromFigures } from "./fit.mjs";
import { targetText } from "./lib.mjs";

/**
 * The ratios issue 14 ("Must show") asks `npm run bench` to print next to their targets, the
 * figure that carries each, and the script expected to emit it.
 */
export const ISSUE_14_TARGETS = [
  { name: "compile.cold", what: "cold compile --no-package (200 × 10) / the parse floor", script: "compile.mjs", target: { op: "<=", value: 2 } },
  { name: "runtime.echo", what: "echo round trip / MCP SDK over stdio", script: "runtime.mjs", target: { op: "<=", value: 1 } },
  { name: "startup.version", what: "--version / node -e 0", script: "startup.mjs", target: { op: "<=", value: 2 } },
  { name: "startup.tools", what: "tools (example agent, current artifact) / node -e 0", script: "startup.mjs", target: { op: "<=", value: 3 } },
  { name: "startup.search", what: "search (example agent, current artifact) / node -e 0", script: "startup.mjs", target: { op: "<=", value: 3 } },
  { name: "startup.call-echo", what: "a whole call echo / node -e 0", script: "startup.mjs", target: { op: "<=", value: 4 } },
  { name: "incremental.nothing-changed", what: "compile with packaging, nothing changed / cold compile", script: "incremental.mjs", target: { op: "<=", value: 0.15 } },
  { name: "incremental.one-file", what: "compile with packaging, one file changed / cold compile", script: "incremental.mjs", target: { op: "<=", value: 0.3 } },
];

const ratioText = (x) => (typeof x === "number" ? `${x.toFixed(2)}×` : "—");

/** The ratio of the median CPU times (user + sys) of a figure and its baseline, where both were measured. */
export function cpuRatio(figure) {
  const a = figure?.cpuMedian;
  const b = figure?.baseline?.cpuMedian;
  return typeof a === "number" && typeof b === "number" && b > 0 ? Math.round((a / b) * 1000) / 1000 : null;
}

/**
 * One row per issue-14 target: `{ what, target, value, verdict }`, where a target no figure
 * of this run carries says which script was expected to measure it.
 */
export function issueTargetRows(results) {
  return ISSUE_14_TARGETS.map((t) => {
    const figure = results.figures.find((f) => f.name === t.name);
    if (!figure) return { ...t, value: null, verdict: `not measured (no figure ${t.name} from bench/${t.script})` };
    const met = t.target.op === "<=" ? figure.value <= t.target.value : figure.value < t.target.value;
    return { ...t, what: measuredSize(t.what, figure), value: figure.value, figure, verdict: met ? "meets" : "misses" };
  });
}

/**
 * A target's words with the agent size its figure measured: a --quick run compiles 2 × 10, not
 * the 200 × 10 the target names (new-user trial 135, C3). The size is read from the figure's
 * label (`cold, 200 × 10`); words without a size, or a label without one, are kept.
 */
function measuredSize(what, figure) {
  const size = /(\d+) × (\d+)/.exec(figure.label ?? "");
  return size ? what.replace(/\(\d+ × \d+\)/, `(${size[1]} × ${size[2]})`) : what;
}

/** The figures whose CPU leaves out esbuild's own process (a compile with packaging): their CPU ratio compares unlike work. */
const PACKAGING_SCRIPTS = new Set(["incremental.mjs"]);

/** The issue-14 targets as aligned text lines for the terminal. */
export function formatIssueTargets(results) {
  const rows = issueTargetRows(results);
  const width = Math.max(...rows.map((r) => r.what.length));
  const verdict = (r) => (results.quick && r.value !== null ? `${r.verdict} (quick: n = ${r.figure.n ?? 1}, not a measurement)` : r.verdict);
  return [
    ...(results.quick ? ["QUICK RUN: every script smoke-sized, one or two runs each; the verdicts below check the output's shape, not the speed."] : []),
    "Issue 14 targets (ratio of medians of wall time, measured interleaved with the baseline in one run):",
    ...rows.map((r) => `  ${r.what.padEnd(width)}  ${ratioText(r.value).padStart(7)}  target ${targetText(r.target, "×").padEnd(7)} ${verdict(r)}`),
  ].join("\n");
}

const ms = (x) => (typeof x === "number" ? (x >= 100 ? x.toFixed(0) : x.toFixed(x >= 10 ? 1 : 3)) : "—");
const mib = (kb) => (typeof kb === "number" ? (kb / 1024).toFixed(0) : "—");
const escape = (text) => String(text).replace(/\|/g, "\\|");

/** The size-scan rows: one per agent size, from the `scale.<plugins>x10.*` figures. */
export function scaleRows(results) {
  const bySize = new Map();
  for (const f of results.figures) {
    const m = /^scale\.(\d+)x(\d+)\.(compile-no-package|compile)$/.exec(f.name);
    if (!m) continue;
    const row = bySize.get(f.plugins) ?? { plugins: f.plugins, tools: f.tools, files: f.files, floor: f.baseline };
    row[m[3] === "compile" ? "compile" : "noPackage"] = f;
    bySize.set(f.plugins, row);
  }
  return [...bySize.values()].sort((a, b) => a.plugins - b.plugins);
}

/** Renders bench/RESULTS.md from the results object of one run. */
export function renderResultsMarkdown(results) {
  const m = results.machine;
  const lines = [
    "# Benchmark results",
    "",
    `<!-- Generated by \`npm run bench\` (bench/run.mjs --write) with bench/results.json beside it; do not edit by hand. -->`,
    "",
    `Run of ${results.startedAt} (${(results.durationMs / 60000).toFixed(1)} min${results.quick ? ", **--quick: smoke-sized, the numbers mean nothing**" : ""}).`,
    ...(results.complete === false ? ["", `**Incomplete run**: it stopped before ${results.notRun.map((s) => `bench/${s}`).join(", ")} ran.`] : []),
    `Re-run with \`npm run bench\`: it builds, runs every script in bench/ one after the other and rewrites this file and bench/results.json.`,
    "",
    "## Machine",
    "",
    `- CPU: ${m.cpu}, ${m.cores} cores; memory ${m.memoryGiB} GiB`,
    `- OS: ${m.os}; Node ${m.node}`,
    ...(results.commit ? [`- Toolchain measured: commit ${results.commit} (\`git describe --always --dirty\` at the start of the run)`] : []),
    `- Load average (1, 5, 15 min) at the start: ${results.loadAverageAtStart.join(", ")}; at the end: ${results.loadAverageAtEnd.join(", ")}`,
    ...(results.removedVariables?.length
      ? [`- Removed from the environment of every measured process: ${results.removedVariables.map((name) => `\`${name}\``).join(", ")} (bench/clean-env.mjs: it makes every Node process start slower, both sides of every ratio alike)`]
      : []),
    "",
    "Wall-clock figures on a shared machine are noisy: every figure is measured interleaved with its",
    "baseline in the same run, and the ratios of medians are what to compare.",
    "",
    "## Issue 14 targets",
    "",
    "| figure | measured (wall) | CPU time ratio | target | |",
    "|---|---:|---:|---:|---|",
    ...issueTargetRows(results).map((r) => `| ${escape(r.what)} (\`${r.name}\`) | ${ratioText(r.value)} | ${ratioText(cpuRatio(r.figure))}${PACKAGING_SCRIPTS.has(r.script) && cpuRatio(r.figure) !== null ? " †" : ""} | ${targetText(r.target, "×")} | ${r.verdict} |`),
    "",
    "The verdict is the wall-time ratio's, as issue 14 states its targets (whole processes); the CPU time ratio (user + sys of the",
    "measured process) is beside it, and where it is above the target the margin is thinner than the wall time says.",
    "† esbuild's own process is not counted in a compile with packaging (a service child Node does not wait for), and a cold",
    "compile bundles every tool where a one-file change bundles one: that CPU ratio compares unlike work.",
  ];
  const rows = scaleRows(results);
  if (rows.length > 0) {
    lines.push(
      "",
      "## Size scan: compile time and memory against the agent",
      "",
      "Generated agents of the realistic shape (`bench/generate-agent.mjs`, `full: true`: factories with config, approval gates, deferred tools,",
      "helper modules, Markdown prompt assets, skills, every tenth plugin in a subagent), cold (a fresh checkout: plugins.lock present, no",
      "`.assemblyline/`), whole processes, the three commands interleaved per size. Wall times in ms (median, min–max over n runs), median CPU",
      "time (user + sys) in ms, peak RSS in MiB; × floor is the ratio of the wall-time medians (of the CPU medians in brackets).",
      "CPU and RSS of `compile` with packaging leave out esbuild's own process: esbuild runs as a service child that Node does not",
      "wait for, so GNU time never sees its resource usage; its wall time is in.",
      "",
      "| plugins × tools | files | n | floor | CPU | compile --no-package | CPU | × floor | RSS | compile (with packaging) | CPU | × floor | RSS |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...rows.map((r) => {
        const cell = (x) => `${ms(x?.median)} (${ms(x?.min)}–${ms(x?.max)})`;
        const ratios = (f) => `${ratioText(f?.ratio)} (${ratioText(cpuRatio(f))})`;
        return `| ${r.plugins} × ${r.tools / r.plugins} | ${r.files} | ${r.floor.n} | ${cell(r.floor)} | ${ms(r.floor.cpuMedian)} | ${cell(r.noPackage)} | ${ms(r.noPackage?.cpuMedian)} | ${ratios(r.noPackage)} | ${mib(r.noPackage?.rssPeakKb)} | ${cell(r.compile)} | ${ms(r.compile?.cpuMedian)} | ${ratios(r.compile)} | ${mib(r.compile?.rssPeakKb)} |`;
      }),
    );
    const fixed = results.figures.find((f) => f.name === "scale.fixed-cost");
    if (fixed) lines.push("", `Fixed cost (the same commands on a 1 plugin × 1 tool agent): floor ${ms(fixed.floor.median)} ms, compile --no-package ${ms(fixed.noPackage.median)} ms, compile ${ms(fixed.median)} ms.`);
    const emitted = results.figures.filter((f) => f.name.startsWith("scale.fit."));
    const fits = emitted.length > 0 ? emitted : scaleFitsFromFigures(results.figures);
    if (fits.length > 0) {
      lines.push(
        "",
        "### Fit",
        "",
        ...(emitted.length === 0 ? ["The scan stopped before its own fit: this one is fitted from the sizes above, at render time.", ""] : []),
        "The fixed cost is subtracted, then `y − fixed = c · toolsᵏ` is fitted by least squares on log–log: k = 1 is linear.",
        "The local k between the two largest sizes shows a cost that turns superlinear only at scale. The straight line",
        "`y = a + b · tools` gives the slope; its R² is not the verdict (a line fits tools^1.2 with R² > 0.99 over this range).",
        "Verdict: linear when both k lie in [0.85, 1.15] (bench/fit.mjs).",
        "",
        "| command | measure | k | R² (log–log) | local k (two largest) | slope per 1,000 tools | R² (line) | verdict |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        ...fits.map((f) => {
          const [, , command, measure] = f.name.split(".");
          // Three decimals: the verdict's bounds are 0.85 and 1.15, and a k of 0.852 against a local
          // k of 0.847 decides it (new-user trial 135, C6).
          const k = (x) => (typeof x === "number" ? x.toFixed(3) : "—");
          return `| ${command} | ${measure === "memory" ? "peak RSS" : measure === "cpu" ? "CPU time" : "wall time"} | ${k(f.value)} | ${f.r2 ?? "—"} | ${k(f.localExponent)} | ${f.linear.slopePer1000} ${f.per.replace(" per 1000 tools", "")} | ${f.linear.r2} | ${f.verdict} |`;
        }),
      );
    }
  }
  lines.push(
    "",
    "## Every figure",
    "",
    "Times in ms: median (min–max) over n; ratios are of the medians (`compare` says when of CPU instead). Peak RSS in MiB where measured.",
    "",
    "| figure | what | value | CPU ratio | subject | baseline | peak RSS | target |",
    "|---|---|---:|---:|---:|---:|---:|---|",
    ...results.figures.map((f) => {
      const value = f.unit === "×" ? ratioText(f.value) : f.unit === "exponent" ? `k = ${typeof f.value === "number" ? f.value.toFixed(2) : "—"}` : `${ms(f.value)} ${f.unit}`;
      const subject = typeof f.median === "number" ? `${ms(f.median)} (${ms(f.min)}–${ms(f.max)}), n=${f.n}` : "";
      const baseline = f.baseline ? `${ms(f.baseline.median)} (${ms(f.baseline.min)}–${ms(f.baseline.max)})` : "";
      const target = f.target ? `${targetText(f.target, f.unit)}: ${f.meets ? "meets" : "misses"}` : "";
      return `| \`${f.name}\` | ${escape(f.label)} | ${value} | ${f.unit === "×" ? ratioText(cpuRatio(f)) : ""} | ${subject} | ${baseline} | ${mib(f.rssPeakKb)} | ${target} |`;
    }),
    "",
    "## Scripts",
    "",
    "| script | seconds | exit status |",
    "|---|---:|---|",
    ...results.scripts.map((s) => `| bench/${s.script} | ${(s.durationMs / 1000).toFixed(1)} | ${s.status === 0 ? "0" : `**${s.status}**`} |`),
    "",
  );
  return lines.join("\n");
}
