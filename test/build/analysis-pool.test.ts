/**
 * The analysis worker (`compiler/analysis-pool.ts`, issue 14 item 1: keep both cores busy):
 * whichever thread analyses a plugin folder, the analysis, the diagnostics, the lock and the
 * CLI's `--format json` output are the same as a compile on one thread; a record the worker
 * made of a file that changed before the main thread read it is not used; a worker that is
 * stopped or never reached only makes the main thread do the work.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { snapshotHost } from "../../build/snapshot-host.js";
import { analyzeAgent, type AgentAnalysis } from "../../compiler/analyze-agent.js";
import { analysisWorkerPays, analysisWorkerWaiting, CHANGED_PLUGINS_POOL_MIN_PLUGINS, changedPluginsPoolWanted, discardPrestartedAnalysisWorker, FEW_CORES_POOL_THRESHOLD, POOL_THRESHOLD, poolThreshold, prestartAnalysisWorker, startAnalysisPool, type AnalysisPool } from "../../compiler/analysis-pool.js";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { createNodeHost } from "../../common/host.js";
import { PluginReuse, RACY_MARGIN_MS } from "../../compiler/plugin-reuse.js";
import { AnalysisCache } from "../../compiler/static-analysis/analysis-cache.js";
import { ONE_SHOT_RETENTION } from "../../compiler/static-analysis/source-store.js";
import { loadTypeScript } from "../../compiler/static-analysis/typescript.js";
import { runCli } from "../helpers/run-cli.js";
import { tempDir } from "../helpers/temp-tree.js";

interface GeneratorModule {
  generateAgent(dir: string, options: { plugins: number; tools: number; full?: boolean }): number;
}
const { generateAgent } = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/generate-agent.mjs")).href)) as GeneratorModule;

const PLUGINS = POOL_THRESHOLD + 4;
const key = (p: number) => `plugin-${String(p).padStart(4, "0")}`;
const pluginDir = (root: string, p: number) => path.join(root, "plugins", key(p));

/** A generated agent of {@link PLUGINS} plugins × 3 tools, some of them broken in different ways. */
function makeAgent(): string {
  const root = tempDir("al-pool-");
  generateAgent(root, { plugins: PLUGINS, tools: 3 });
  const edit = (p: number, file: string, change: (text: string) => string) => {
    const target = path.join(pluginDir(root, p), "ai.assemblyline", file);
    fs.writeFileSync(target, change(fs.readFileSync(target, "utf8")));
  };
  edit(2, "tool-1.ts", (text) => `${text}\nexport const = ;\n`); // a syntax error in a definition
  edit(5, "index.ts", (text) => text.replace('"./ai.assemblyline/tool-2.ts"', '"./ai.assemblyline/tool-7.ts"')); // a missing definition
  edit(9, "tool-0.ts", (text) => text.replace("Generated tool 0", "Another tool 0")); // drift from the descriptor
  edit(13, "index.ts", (text) => text.replace("tools: {", "tools: { ...(oops as object),")); // an entry the evaluator cannot read fully
  edit(PLUGINS - 1, "index.ts", (text) => `${text}\nexport const broken = {;\n`); // a syntax error in an entry, in the worker's last folder
  return root;
}

const pools: AnalysisPool[] = [];
afterEach(() => pools.splice(0).forEach((pool) => pool.close()));

/** The analysis on this thread alone, on a fresh host. */
function analyseHere(root: string): AgentAnalysis {
  return analyzeAgent(snapshotHost(createNodeHost()), root);
}

/** The analysis with a pool; `prepare` may run before (with the pool's folders assigned). */
function analyseWithPool(root: string, options: { mainAnalyses?: boolean; threshold?: number; before?: (pool: AnalysisPool) => void } = {}): { analysis: AgentAnalysis; workerFolders: number } {
  // The smallest pool, as on a machine of many cores (this one may have two).
  const pool = startAnalysisPool({ mainAnalyses: options.mainAnalyses ?? true, threshold: options.threshold ?? POOL_THRESHOLD });
  expect(pool).toBeDefined();
  pools.push(pool!);
  options.before?.(pool!);
  const host = snapshotHost(createNodeHost());
  const analysis = analyzeAgent(host, root, { pool: pool!, analyzer: createStaticAnalyzer(host, { persistent: pool! }) });
  return { analysis, workerFolders: pool!.workerFolders() };
}

const dirs = (root: string) => Array.from({ length: PLUGINS }, (_, p) => pluginDir(root, p));

describe("the analysis worker", () => {
  it("gives the analysis and diagnostics of one thread when the worker analyses every folder", () => {
    const root = makeAgent();
    const alone = analyseHere(root);
    expect(alone.diagnostics.length).toBeGreaterThan(3);
    const { analysis, workerFolders } = analyseWithPool(root, { mainAnalyses: false });
    expect(workerFolders).toBe(PLUGINS);
    expect(analysis.diagnostics).toEqual(alone.diagnostics);
    expect(analysis.capabilities).toEqual(alone.capabilities);
  });

  it("gives the same analysis when both threads share the folders", () => {
    const root = makeAgent();
    const alone = analyseHere(root);
    const { analysis } = analyseWithPool(root);
    expect(analysis.diagnostics).toEqual(alone.diagnostics);
    expect(analysis.capabilities).toEqual(alone.capabilities);
  });

  it("analyses again a file that changed after the worker read it", () => {
    const root = makeAgent();
    const changed = path.join(pluginDir(root, 4), "ai.assemblyline", "tool-0.ts");
    const { analysis, workerFolders } = analyseWithPool(root, {
      mainAnalyses: false,
      before: (pool) => {
        pool.assign(dirs(root));
        pool.prepare(pluginDir(root, PLUGINS - 1), () => {}); // the worker goes in order: every folder is done
        expect(pool.workerFolders()).toBe(PLUGINS);
        fs.writeFileSync(changed, fs.readFileSync(changed, "utf8").replace("Generated tool 0", "Changed tool 0"));
      },
    });
    expect(workerFolders).toBe(PLUGINS);
    const alone = analyseHere(root);
    expect(JSON.stringify(alone.diagnostics)).toContain("Changed tool 0"); // the drift (AL4026) the change causes
    expect(analysis.diagnostics).toEqual(alone.diagnostics);
    expect(analysis.capabilities).toEqual(alone.capabilities);
  });

  it("lets the main thread do everything when the worker is stopped, or the agent is small", () => {
    const root = makeAgent();
    const alone = analyseHere(root);
    const stopped = analyseWithPool(root, { before: (pool) => pool.close() });
    expect(stopped.workerFolders).toBe(0);
    expect(stopped.analysis.capabilities).toEqual(alone.capabilities);
    expect(stopped.analysis.diagnostics).toEqual(alone.diagnostics);

    const small = tempDir("al-pool-small-");
    generateAgent(small, { plugins: POOL_THRESHOLD - 1, tools: 2 });
    const few = analyseWithPool(small, { mainAnalyses: false });
    expect(few.workerFolders).toBe(0);
    expect(few.analysis.capabilities).toEqual(analyseHere(small).capabilities);
  });

  it("takes a worker started ahead (the CLI's prestart), and stops one that no pool took", () => {
    const root = makeAgent();
    const alone = analyseHere(root);
    // Forced on: started ahead on any number of cores.
    const saved = process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "1";
    onTestFinished(() => {
      if (saved === undefined) delete process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
      else process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = saved;
    });
    prestartAnalysisWorker();
    prestartAnalysisWorker(); // one at most
    expect(analysisWorkerWaiting()).toBe(true);
    const { analysis, workerFolders } = analyseWithPool(root, { mainAnalyses: false });
    expect(analysisWorkerWaiting()).toBe(false); // the pool took it
    expect(workerFolders).toBe(PLUGINS);
    expect(analysis.diagnostics).toEqual(alone.diagnostics);
    expect(analysis.capabilities).toEqual(alone.capabilities);

    prestartAnalysisWorker();
    discardPrestartedAnalysisWorker();
    expect(analysisWorkerWaiting()).toBe(false);
    const fresh = analyseWithPool(root, { mainAnalyses: false }); // a pool starts its own
    expect(fresh.workerFolders).toBe(PLUGINS);
    expect(fresh.analysis.capabilities).toEqual(alone.capabilities);
  });

  it("writes the same lock and diagnostics from compileAgent with and without the worker", async () => {
    const root = tempDir("al-pool-lock-");
    generateAgent(root, { plugins: PLUGINS, tools: 3, full: true });
    const lockPath = path.join(root, "plugins.lock");
    const compile = async (worker: boolean) => {
      fs.rmSync(lockPath, { force: true });
      const saved = process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
      process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = worker ? "1" : "0";
      try {
        const result = await compileAgent({ root, package: false, cache: false, displayRoot: "." });
        return { ok: result.ok, diagnostics: result.diagnostics, lock: fs.readFileSync(lockPath, "utf8") };
      } finally {
        if (saved === undefined) delete process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
        else process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = saved;
      }
    };
    const alone = await compile(false);
    expect(alone.ok).toBe(true);
    expect(await compile(true)).toEqual(alone);
  });

  it("prints the same --format json output and lock from the CLI with and without the worker", () => {
    const root = makeAgent();
    const run = (worker: boolean) => {
      const result = runCli(["compile", root, "--no-package", "--no-cache", "--format", "json"], { env: { ASSEMBLY_LINE_ANALYSIS_WORKER: worker ? "1" : "0" } });
      return { status: result.status, stdout: result.stdout };
    };
    const alone = run(false);
    expect(alone.status).toBe(1);
    expect(JSON.parse(alone.stdout).diagnostics.length).toBeGreaterThan(3);
    expect(run(true)).toEqual(alone);
  });
});

describe("the analysis worker of an incremental compile (changed plugins only)", () => {
  /** The analysis the way compile makes it with stored results: through plugin reuse, with or without the worker. */
  function analyseIncrementally(root: string, worker: boolean): { analysis: AgentAnalysis; reused: number; workerFolders: number | undefined } {
    const cache = AnalysisCache.load(root);
    const reuse = new PluginReuse(createNodeHost(), cache);
    const pool = worker ? startAnalysisPool({ fallback: cache, changedPlugins: true }) : undefined;
    if (worker) expect(pool?.changedPlugins).toBe(true);
    if (pool) pools.push(pool);
    const analyzer = createStaticAnalyzer(reuse.host, { persistent: pool ?? cache, retainModules: ONE_SHOT_RETENTION });
    const analysis = analyzeAgent(reuse.host, root, { analyzer, reuse, verdictStore: cache, ...(pool ? { pool } : {}) });
    cache.save();
    expect(cache.refusal).toBeUndefined();
    return { analysis, reused: reuse.counts.reused, workerFolders: pool?.workerFolders() };
  }

  it("reuses the untouched plugins, gives the worker only the changed ones, and analyses as one thread would", async () => {
    const root = tempDir("al-pool-incremental-");
    generateAgent(root, { plugins: 6, tools: 3 });
    // A file changed within the racy margin before a compile is never trusted by its stat.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    expect(analyseIncrementally(root, false).reused).toBe(0);
    const definition = path.join(pluginDir(root, 0), "ai.assemblyline", "tool-1.ts");
    const entry = path.join(pluginDir(root, 3), "ai.assemblyline", "index.ts");
    fs.writeFileSync(definition, fs.readFileSync(definition, "utf8").replace("return {", "return { changed: true,"));
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace("Generated tool 2", "Changed tool 2"));
    const withWorker = analyseIncrementally(root, true);
    expect(withWorker.workerFolders).toBe(2);
    expect(withWorker.reused).toBe(4);
    // The same analysis as this thread alone, with nothing stored.
    const alone = analyseHere(root);
    expect(JSON.parse(JSON.stringify(withWorker.analysis.diagnostics))).toEqual(JSON.parse(JSON.stringify(alone.diagnostics)));
    expect(JSON.parse(JSON.stringify(withWorker.analysis.capabilities.map((c) => [c.plugin, c.config.capabilityConfig, c.hash])))).toEqual(
      JSON.parse(JSON.stringify(alone.capabilities.map((c) => [c.plugin, c.config.capabilityConfig, c.hash]))),
    );
    // Nothing changed since (and the changed files are past the racy margin): every plugin is
    // reused, and the worker is given nothing.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    analyseIncrementally(root, false);
    const again = analyseIncrementally(root, true);
    expect(again.workerFolders).toBe(0);
    expect(again.reused).toBe(6);
  });
});

describe("the load rule (analysisWorkerPays)", () => {
  it("starts the worker on two cores or more when the machine is not oversubscribed, never on one", () => {
    expect(analysisWorkerPays(1, 0)).toBe(false);
    expect(analysisWorkerPays(2, 0)).toBe(true);
    expect(analysisWorkerPays(2, 2.9)).toBe(true);
    expect(analysisWorkerPays(2, 3)).toBe(false);
    expect(analysisWorkerPays(16, 12)).toBe(true);
    expect(analysisWorkerPays(16, 17.5)).toBe(false);
  });

  it("starts the worker for an incremental compile's changed plugins only for a large agent, or when told to", () => {
    const saved = process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    onTestFinished(() => {
      if (saved === undefined) delete process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
      else process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = saved;
    });
    delete process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    // Below the size, never (whatever the load); nor on a thread that has TypeScript loaded
    // already (a watch after its first compile), however large the agent.
    expect(changedPluginsPoolWanted(CHANGED_PLUGINS_POOL_MIN_PLUGINS - 1)).toBe(false);
    loadTypeScript();
    expect(changedPluginsPoolWanted(CHANGED_PLUGINS_POOL_MIN_PLUGINS * 10)).toBe(false);
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "1";
    expect(changedPluginsPoolWanted(1)).toBe(true);
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "0";
    expect(changedPluginsPoolWanted(CHANGED_PLUGINS_POOL_MIN_PLUGINS * 10)).toBe(false);
  });

  it("keeps the worker from the smallest pool on with four cores or more, and only for a large agent on fewer", () => {
    const saved = process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    delete process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    onTestFinished(() => {
      if (saved !== undefined) process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = saved;
    });
    expect(poolThreshold(2)).toBe(FEW_CORES_POOL_THRESHOLD);
    expect(poolThreshold(3)).toBe(FEW_CORES_POOL_THRESHOLD);
    expect(poolThreshold(4)).toBe(POOL_THRESHOLD);
    expect(FEW_CORES_POOL_THRESHOLD).toBeGreaterThan(200); // the 200-plugin benchmark agent compiles on one thread on two cores
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "1";
    expect(poolThreshold(2)).toBe(POOL_THRESHOLD);
  });

  it("says it keeps nothing without a cache behind it, so the analyzer makes no content hashes for it", () => {
    const root = makeAgent();
    const idle = startAnalysisPool({ threshold: PLUGINS + 1 })!;
    pools.push(idle);
    expect(idle.keeps?.()).toBe(false);
    let kept = 0;
    const fallback = { find: () => undefined, keep: () => void kept++ };
    const backed = startAnalysisPool({ threshold: PLUGINS + 1, fallback })!;
    pools.push(backed);
    expect(backed.keeps?.()).toBe(true);
    // An analyzer over the idle pool never calls keep; over the backed one, once per analysis.
    for (const [pool, expected] of [[idle, 0], [backed, 1 + 3]] as const) {
      const host = snapshotHost(createNodeHost());
      const analyzer = createStaticAnalyzer(host, { persistent: pool });
      kept = 0;
      const spy = pool.keep.bind(pool);
      let calls = 0;
      const counting = Object.assign(Object.create(pool) as AnalysisPool, { keep: (...args: Parameters<AnalysisPool["keep"]>) => (calls++, spy(...args)) });
      const counted = createStaticAnalyzer(host, { persistent: counting });
      const entry = path.join(pluginDir(root, 0), "ai.assemblyline", "index.ts");
      counted.analyzeEntry(entry, pluginDir(root, 0));
      for (let t = 0; t < 3; t++) counted.analyzeDefinition(path.join(pluginDir(root, 0), "ai.assemblyline", `tool-${t}.ts`), pluginDir(root, 0));
      expect(calls).toBe(expected);
      expect(analyzer.analyzeEntry(entry, pluginDir(root, 0)).entry).toBeDefined();
    }
  });

  it("starts a worker only once the folders are known when the pool needs more than the smallest pool", () => {
    const root = makeAgent();
    const alone = analyseHere(root);
    // More folders than this agent has: no worker is ever started, the analysis is the same.
    const below = analyseWithPool(root, { mainAnalyses: false, threshold: PLUGINS + 1 });
    expect(below.workerFolders).toBe(0);
    expect(below.analysis.capabilities).toEqual(alone.capabilities);
    // Exactly as many: started by assign, and it analyses every folder.
    const at = analyseWithPool(root, { mainAnalyses: false, threshold: PLUGINS });
    expect(at.workerFolders).toBe(PLUGINS);
    expect(at.analysis.diagnostics).toEqual(alone.diagnostics);
    expect(at.analysis.capabilities).toEqual(alone.capabilities);
  });
});
