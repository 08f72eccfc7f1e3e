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
 * Runs against dist/ (npm run build first). Usage: node bench/providers.mjs [runs=7]
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
const TARGETS = ["openai", "openai-strict", "anthropic", "anthropic-strict", "gemini", "gemini-json-schema", "mcp-2025-11-25"];
/** One profile per provider family whose rules the generated schemas (bounds, optional fields) mostly meet. */
const FAMILIES = ["openai", "anthropic", "gemini-json-schema", "mcp-2025-11-25"];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Wall-clock ms of one `node …args` process. The checked compile exits 1 (the targets find problems in 2,000 tools); that is expected. */
const time = (args) => {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0 && result.status !== 1) throw new Error(`${args.join(" ")} exited ${result.status}:\n${result.stderr.slice(0, 2000)}`);
  return ms;
};

const agent = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-providers-"));
console.log(`generated ${generateAgent(agent, { plugins: 200, tools: 10 })} files in ${agent}`);
const plain = [cli, "compile", agent, "--no-package", "--format", "json"];
const withTargets = (targets) => [...plain, ...targets.flatMap((t) => ["--target", t]), "--token-budget", "100000000"];
const variants = { plain, families: withTargets(FAMILIES), all: withTargets(TARGETS) };
time(plain); // writes the lock and the analysis cache: every later run is warm
const samples = { plain: [], families: [], all: [] };
for (let i = 0; i < runs; i++) for (const [name, args] of Object.entries(variants)) samples[name].push(time(args));
const a = median(samples.plain);
console.log(`warm compile --no-package --format json (whole process): median ${a.toFixed(0)} ms over ${runs} runs`);
for (const [name, label] of [["families", `${FAMILIES.join(", ")}`], ["all", `all ${TARGETS.length} targets (about 10,000 diagnostics printed)`]]) {
  const b = median(samples[name]);
  console.log(`… with ${label} and --token-budget: median ${b.toFixed(0)} ms — added ${(b - a).toFixed(0)} ms (${((100 * (b - a)) / a).toFixed(1)}%, target < 10%)`);
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
  console.log(`in process, warm, ${label} + tokens: providers phase median ${p.toFixed(0)} ms of ${t.toFixed(0)} ms (${((100 * p) / t).toFixed(1)}%; ${shares[0].diagnostics} diagnostics)`);
}
fs.rmSync(agent, { recursive: true, force: true });
