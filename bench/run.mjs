/**
 * `npm run bench`: every measurement the issues ask for, one script after the other (so they
 * do not compete for the cores), against the built `dist/` tree; then the ratios issue 14
 * names next to their targets.
 *
 * Usage: node bench/run.mjs [--quick] [--json] [--write] [--out DIR] [--only a,b]
 *   --quick  every script smoke-sized (bench/lib.mjs): a minute or so, numbers meaningless;
 *            the test suite runs it (test/bench/run-quick.test.ts) to check the output shape;
 *   --json   stdout is the results object (what results.json holds) and nothing else;
 *   --write  writes RESULTS.md and results.json into --out (default bench/); `npm run bench`
 *            passes it. A --quick run writes only with an explicit --out, so it never replaces
 *            the recorded full run;
 *   --only   runs only the named scripts, in the order given (`scale,compile` or `scale.mjs,compile.mjs`);
 *   --render FILE  runs nothing: renders RESULTS.md (into --out, default bench/) from a results.json.
 * With --write the files are rewritten after every script, so an interrupted run leaves what
 * it measured, marked incomplete with the scripts that did not run.
 * Each script runs as `node bench/<script> --json [--quick]` and prints one JSON figure per
 * line on stdout (the convention in bench/lib.mjs); its other output goes to stderr. Scripts
 * that are not in bench/ are skipped, and the targets they own are reported as not measured.
 * Exit status 1 when a script fails; a missed target is a result, not a failure.
 */
import { removedVariables } from "./clean-env.mjs";
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describeMachine, formatFigure, parseBenchArgs } from "./lib.mjs";
import { formatIssueTargets, renderResultsMarkdown } from "./report.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
/** In order: the issue-14 figures first, the slow size scan last. */
const SCRIPTS = ["compile.mjs", "runtime.mjs", "startup.mjs", "incremental.mjs", "packaging.mjs", "search.mjs", "providers.mjs", "lsp.mjs", "editor.mjs", "scale.mjs"];

const USAGE = `Usage: node bench/run.mjs [options]   (npm run build first)

Every bench script, one after the other, against the built dist/ tree; then the ratios issue 14
names next to their targets (docs/benchmarks.md).

Options:
  --quick          every script smoke-sized: a minute or so, numbers meaningless
  --json           stdout is the results object (what results.json holds) and nothing else
  --write          write RESULTS.md and results.json into --out (default bench/)
  --out DIR        where --write and --render write (a --quick --write needs it)
  --only a,b       run only the named scripts, in that order (scale,compile or scale.mjs,compile.mjs)
  --render FILE    run nothing: render RESULTS.md from a results.json
  -h, --help       print this and exit
`;

const { quick, json, values } = parseBenchArgs({ write: { type: "boolean", default: false }, out: { type: "string" }, only: { type: "string" }, render: { type: "string" } }, undefined, USAGE);
if (values.render) {
  const target = path.join(path.resolve(values.out ?? here), "RESULTS.md");
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, renderResultsMarkdown(JSON.parse(fs.readFileSync(values.render, "utf8"))));
  console.log(`wrote ${path.relative(process.cwd(), target)} from ${values.render}`);
  process.exit(0);
}
if (values.write && quick && !values.out) {
  console.error("bench/run.mjs: --quick --write needs --out DIR (a quick run never replaces bench/RESULTS.md); to print a quick run only: node bench/run.mjs --quick");
  process.exit(2);
}
const only = values.only?.split(",").map((s) => (s.endsWith(".mjs") ? s : `${s}.mjs`));
const unknown = only?.filter((s) => !SCRIPTS.includes(s)) ?? [];
if (unknown.length > 0) {
  console.error(`bench/run.mjs: --only names no script ${unknown.join(", ")} (known: ${SCRIPTS.join(", ")}).`);
  process.exit(2);
}
const selected = only ?? SCRIPTS;
const log = (text) => (json ? process.stderr.write(`${text}\n`) : console.log(text));

/**
 * Runs one script with `--json`: resolves `{ status, durationMs, figures }`. Figure lines are
 * parsed as they come and echoed readably; any other stdout line is passed on to stderr.
 */
function runScript(script) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [path.join(here, script), "--json", ...(quick ? ["--quick"] : [])], { stdio: ["ignore", "pipe", "inherit"] });
    const figures = [];
    let buffered = "";
    const take = (line) => {
      if (line.trim() === "") return;
      let figure;
      try {
        figure = JSON.parse(line);
      } catch {
        figure = undefined;
      }
      if (figure && typeof figure === "object" && typeof figure.name === "string") {
        figure = { script, ...figure };
        figures.push(figure);
        log(formatFigure(figure));
      } else {
        process.stderr.write(`${line}\n`);
      }
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop();
      lines.forEach(take);
    });
    child.on("close", (status, signal) => {
      take(buffered);
      resolve({ status: status ?? signal, durationMs: Number(process.hrtime.bigint() - started) / 1e6, figures });
    });
  });
}

const startedAt = new Date().toISOString();
/** The toolchain measured (new-user trial 135, C5: RESULTS.md did not say which commit it was). */
const commit = gitDescribe();
const loadAverageAtStart = os.loadavg().map((x) => Math.round(x * 100) / 100);
const machine = describeMachine();
const start = process.hrtime.bigint();
const scripts = [];
const figures = [];

/** The results object so far: what results.json holds; `complete` once every script ran. */
const resultsSoFar = (complete) => ({
  startedAt,
  ...(commit === undefined ? {} : { commit }),
  durationMs: Math.round(Number(process.hrtime.bigint() - start) / 1e6),
  quick,
  complete,
  command: `node bench/run.mjs ${process.argv.slice(2).join(" ")}`.trim(),
  machine,
  removedVariables,
  loadAverageAtStart,
  loadAverageAtEnd: os.loadavg().map((x) => Math.round(x * 100) / 100),
  scripts: scripts.filter((s) => s.status !== "missing"),
  skipped: scripts.filter((s) => s.status === "missing").map((s) => s.script),
  notRun: selected.filter((script) => !scripts.some((s) => s.script === script)),
  figures,
});

/** Writes RESULTS.md and results.json (with --write). */
const write = (results) => {
  if (!values.write) return;
  const outDir = path.resolve(values.out ?? here);
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, "RESULTS.md"), renderResultsMarkdown(results));
  return path.join(outDir, "RESULTS.md");
};

for (const script of selected) {
  if (!fs.existsSync(path.join(here, script))) {
    log(`\n=== bench/${script}: not in bench/, skipped`);
    scripts.push({ script, status: "missing", durationMs: 0 });
    continue;
  }
  log(`\n=== bench/${script}${quick ? " --quick" : ""}`);
  const result = await runScript(script);
  scripts.push({ script, status: result.status, durationMs: Math.round(result.durationMs), figures: result.figures.length });
  figures.push(...result.figures);
  if (result.status !== 0) log(`bench/${script} failed (exit status ${result.status})`);
  write(resultsSoFar(false));
}

const results = resultsSoFar(true);
log(`\n${formatIssueTargets(results)}`);
log(`\n${(results.durationMs / 60000).toFixed(1)} min; load average ${results.loadAverageAtStart.join(", ")} at the start, ${results.loadAverageAtEnd.join(", ")} at the end (${machine.cores} × ${machine.cpu}).`);
const written = write(results);
if (written) log(`wrote ${path.relative(process.cwd(), written)} and results.json`);
if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
const failed = results.scripts.filter((s) => s.status !== 0);
process.exitCode = failed.length === 0 ? 0 : 1;

/** `git describe --always --dirty` of the repository, or `undefined` outside a Git work tree. */
function gitDescribe() {
  try {
    return execFileSync("git", ["describe", "--always", "--dirty"], { cwd: here, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined;
  } catch {
    return undefined;
  }
}
