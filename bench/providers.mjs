/**
 * Issue 11 measurement: what all seven provider profiles and token counting add to a warm
 * compile of the 200 × 10 benchmark agent (target: under 10% of a warm compile).
 *  1. whole process, interleaved: `compile --no-package` warm, against the same with one
 *     profile per provider family (openai, anthropic, gemini-json-schema, mcp-2025-11-25) and
 *     with all seven, each with a `--token-budget` (the tokenizer's load included). The
 *     generated schemas use bounds and optional fields, so the strict profiles report about
 *     10,000 diagnostics, which the run also prints;
 *  2. in process (`compileAgent`, warm cache, tokenizer already loaded): the `providers` phase
 *     as a share of the compile.
 * Runs against dist/ (npm run build first). Usage: node bench/providers.mjs [runs=7] [--quick] [--json]
 * (bench/lib.mjs: the shared flags and figures; --quick: a 2-plugin agent, one run).
 */
import "./clean-env.mjs";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateAgent } from "./generate-agent.mjs";
import { emit, interleave, median, note, parseBenchArgs, summarize, summarizeMs, timeNode, valueFigure } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");
const cli = path.join(repo, "dist/bin/assembly-line.cjs");
const { quick, json, positionals } = parseBenchArgs();
const out = { json };
const runs = quick ? 1 : Number(positionals[0] ?? 7);
const plugins = quick ? 2 : 200;
const TARGETS = ["openai", "openai-strict", "anthropic", "anthropic-strict", "gemini", "gemini-json-schema", "mcp-2025-11-25"];
/** One profile per provider family whose rules the generated schemas (bounds, optional fields) mostly meet. */
const FAMILIES = ["openai", "anthropic", "gemini-json-schema", "mcp-2025-11-25"];

/** One `node …args` process (bench/lib.mjs). The checked compile exits 1 (the targets find problems in 2,000 tools); that is expected. */
const time = (args) => timeNode(args, { okStatuses: [0, 1] });

const agent = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-providers-"));
note(`generated ${generateAgent(agent, { plugins, tools: 10 })} files in ${agent}`, out);
const plain = [cli, "compile", agent, "--no-package", "--format", "json"];
const withTargets = (targets) => [...plain, ...targets.flatMap((t) => ["--target", t]), "--token-budget", "100000000"];
const variants = { plain, families: withTargets(FAMILIES), all: withTargets(TARGETS) };
time(plain); // writes the lock and the analysis cache: every later run is warm
const samples = interleave(
  Object.entries(variants).map(([name, args]) => ({ name, run: () => time(args) })),
  { runs, warmup: 0 },
);
const base = summarize(samples.plain);
note(`warm compile --no-package --format json, ${plugins} × 10 (whole process): median ${base.median.toFixed(0)} ms over ${runs} runs`, out);
for (const [name, label] of [["families", `${FAMILIES.join(", ")}`], ["all", `all ${TARGETS.length} targets (about 10,000 diagnostics printed)`]]) {
  const s = summarize(samples[name]);
  emit(
    valueFigure({
      name: `providers.${name}`,
      label: `warm compile --no-package with ${label} and --token-budget: time added to the plain warm compile (median ${s.median.toFixed(0)} ms against ${base.median.toFixed(0)} ms, whole process)`,
      unit: "%",
      value: (100 * (s.median - base.median)) / base.median,
      // Issue 11's target is for the four families; the seven targets' run prints about 10,000
      // diagnostics, so it measures printing as much as checking and has no target.
      ...(name === "families" ? { target: { op: "<", value: 10 } } : {}),
      ...s,
      baseline: { label: "warm compile --no-package --format json", ...base },
    }),
    out,
  );
}

const { compileAgent } = await import(pathToFileURL(path.join(repo, "dist/build/compile.js")).href);
for (const [label, targets] of [["4 families", FAMILIES], ["all 7", TARGETS]]) {
  const shares = [];
  for (let i = 0; i < runs + 1; i++) {
    const result = await compileAgent({ root: agent, package: false, targets, tokenBudget: 100_000_000 });
    if (i > 0) shares.push({ providers: result.timings.providers, total: result.timings.total, diagnostics: result.diagnostics.length });
  }
  const p = median(shares.map((s) => s.providers));
  const t = median(shares.map((s) => s.total));
  emit(
    valueFigure({
      name: `providers.phase-share.${label === "all 7" ? "all" : "families"}`,
      label: `in process, warm, ${label} + tokens: providers phase median ${p.toFixed(0)} ms of ${t.toFixed(0)} ms (${shares[0].diagnostics} diagnostics)`,
      unit: "%",
      value: (100 * p) / t,
      providers: summarizeMs(shares.map((s) => s.providers)),
      total: summarizeMs(shares.map((s) => s.total)),
    }),
    out,
  );
}
fs.rmSync(agent, { recursive: true, force: true });
