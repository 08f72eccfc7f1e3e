/**
 * `compile --token-budget` keeps its token counts in `.assemblyline/cache/budget-tokens.json`
 * (build/token-count-cache.ts): a warm compile loads the encoder only for tool texts it has not
 * counted before, so the budget check adds little to a warm compile (issue 11's target). The
 * cache is read and written like the analysis cache: `--no-cache` neither reads nor writes it,
 * `--check` reads it but never writes it. No timing assertions: bench/providers.mjs measures it.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BUDGET_TOKENS_CACHE_FILE, TOOL_TOKENS_CACHE_FILE } from "../../build/token-count-cache.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { cliPath, runCli } from "../helpers/run-cli.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

const recorder = path.join(path.dirname(fileURLToPath(import.meta.url)), "helpers", "record-loads.mjs");

/** Runs the CLI with every module load recorded: its status, JSON output and whether it loaded the encoder. */
function compileRecorded(args: readonly string[]): { status: number | null; json: { diagnostics: { code: string; message: string }[] }; loadedEncoder: boolean } {
  const log = path.join(tempDir("al-loads-"), "loads.txt");
  const result = spawnSync(process.execPath, ["--import", recorder, cliPath, ...args, "--format", "json"], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", AL_RECORD_LOADS: log } });
  const urls = fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "";
  return { status: result.status, json: JSON.parse(result.stdout), loadedEncoder: urls.includes("/node_modules/gpt-tokenizer/") };
}

describe("compile --token-budget and the token-count cache", () => {
  it("counts once, then reads the counts from the cache; --no-cache and --check behave as for the analysis cache", () => {
    const agent = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    const cache = path.join(agent, BUDGET_TOKENS_CACHE_FILE);
    const budget = ["compile", agent, "--no-package", "--token-budget", "100000"];

    // --check on a fresh agent counts with the encoder and writes nothing.
    expect(runCli(["compile", agent, "--no-package"]).status).toBe(0);
    const checked = compileRecorded([...budget, "--check"]);
    expect(checked.status).toBe(0);
    expect(checked.loadedEncoder).toBe(true);
    expect(fs.existsSync(cache)).toBe(false);

    // The first compile counts with the encoder and keeps the counts.
    const first = compileRecorded(budget);
    expect(first.status).toBe(0);
    expect(first.loadedEncoder).toBe(true);
    const stored = JSON.parse(fs.readFileSync(cache, "utf8")) as { encoding: string; counts: Record<string, number> };
    expect(stored.encoding).toBe("o200k_base");
    expect(Object.keys(stored.counts).length).toBeGreaterThan(0);

    // The next one does not load the encoder at all.
    const warm = compileRecorded(budget);
    expect(warm.status).toBe(0);
    expect(warm.loadedEncoder).toBe(false);

    // The counts it uses are the cached ones: a planted count overruns the budget...
    fs.writeFileSync(cache, JSON.stringify({ ...stored, counts: Object.fromEntries(Object.keys(stored.counts).map((key) => [key, 100_000])) }));
    const planted = compileRecorded(budget);
    expect(planted.status).toBe(1);
    // (one AL4720 per surface: the example has a subagent)
    expect(new Set(planted.json.diagnostics.map((d) => d.code))).toEqual(new Set(["AL4720"]));
    expect(planted.loadedEncoder).toBe(false);
    // ...--check reads the cache too, and leaves it as it was...
    const plantedText = fs.readFileSync(cache, "utf8");
    // (AL6013: with errors, --check does not compare the lock)
    expect(new Set(compileRecorded([...budget, "--check"]).json.diagnostics.map((d) => d.code))).toEqual(new Set(["AL4720", "AL6013"]));
    expect(fs.readFileSync(cache, "utf8")).toBe(plantedText);
    // ...--no-cache neither reads nor writes it.
    const uncached = compileRecorded([...budget, "--no-cache"]);
    expect(uncached.status).toBe(0);
    expect(uncached.loadedEncoder).toBe(true);
    expect(fs.readFileSync(cache, "utf8")).toBe(plantedText);

    // A damaged cache is ignored and rewritten with the encoder's counts.
    fs.writeFileSync(cache, "{");
    expect(compileRecorded(budget).status).toBe(0);
    expect(JSON.parse(fs.readFileSync(cache, "utf8")).counts).toEqual(stored.counts);
  }, 120_000);

  it("is a file of its own: tools and compile do not evict each other's counts", () => {
    const agent = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    expect(runCli(["compile", agent, "--token-budget", "100000"]).status).toBe(0);
    expect(runCli(["tools", agent]).status).toBe(0);
    expect(fs.existsSync(path.join(agent, TOOL_TOKENS_CACHE_FILE))).toBe(true);
    expect(compileRecorded(["compile", agent, "--token-budget", "100000"]).loadedEncoder).toBe(false);
  }, 120_000);
});
