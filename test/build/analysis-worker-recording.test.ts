/**
 * `assembly-line compile` reads through the inputs record's recording host (the compile record,
 * `cli/compile-record.ts`), which only observes the disk: a cold compile must still be allowed
 * the analysis worker (`compiler/analysis-pool.ts`, issue 14 item 1). Before `hostReadsDisk`,
 * any given host kept the analysis on one thread, so the CLI's cold compile never used the
 * second core. The compile's output and lock stay those of a compile on one thread.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const started = vi.hoisted(() => ({ count: 0, ahead: 0 }));
vi.mock("../../compiler/analysis-pool.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../compiler/analysis-pool.js")>();
  return {
    ...original,
    startAnalysisPool: (...args: Parameters<typeof original.startAnalysisPool>) => {
      started.count++;
      return original.startAnalysisPool(...args);
    },
    prestartAnalysisWorker: () => {
      started.ahead++;
      original.prestartAnalysisWorker();
    },
  };
});

import { likelyPoolSized, runCompile } from "../../cli/commands/compile.js";
import { POOL_THRESHOLD } from "../../compiler/analysis-pool.js";
import { tempDir } from "../helpers/temp-tree.js";

interface GeneratorModule {
  generateAgent(dir: string, options: { plugins: number; tools: number }): number;
}
const { generateAgent } = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/generate-agent.mjs")).href)) as GeneratorModule;

/** Runs `compile <root> --no-package --format json [...extra]` in this process; returns stdout and the exit code. */
async function compileHere(root: string, extra: string[] = []): Promise<{ code: number; stdout: string }> {
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    const code = await runCompile([root], { package: false, format: "json", ...(extra.includes("--no-cache") ? { cache: false } : {}) });
    return { code, stdout: chunks.join("") };
  } finally {
    write.mockRestore();
  }
}

describe("compile with the compile record's recording host", () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    started.count = 0;
    started.ahead = 0;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    else process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = saved;
  });

  it("starts the analysis worker on a cold compile, and writes what a compile on one thread writes", async () => {
    const pooled = tempDir("al-pool-record-");
    generateAgent(pooled, { plugins: POOL_THRESHOLD + 2, tools: 2 });
    const single = tempDir("al-pool-record-");
    generateAgent(single, { plugins: POOL_THRESHOLD + 2, tools: 2 });
    // The lock in place, no cache: the first compile of a fresh checkout (as bench/incremental.mjs's cold run).
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "0";
    for (const root of [pooled, single]) expect((await compileHere(root, ["--no-cache"])).code).toBe(0);
    expect(started.count).toBe(0);

    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "1";
    const withWorker = await compileHere(pooled);
    expect(withWorker.code).toBe(0);
    expect(started.count).toBe(1);
    // Its lock pins enough plugins: the CLI started the worker ahead of the compile driver.
    expect(started.ahead).toBe(1);
    // The recording host saw every read: the compile record was written, and the next compile replays.
    expect(fs.existsSync(path.join(pooled, ".assemblyline", "cache", "compile.bin"))).toBe(true);

    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "0";
    const alone = await compileHere(single);
    expect(alone.code).toBe(0);
    expect(started.count).toBe(1);
    expect(fs.readFileSync(path.join(pooled, "plugins.lock"), "utf8")).toBe(fs.readFileSync(path.join(single, "plugins.lock"), "utf8"));
    expect(withWorker.stdout.split(pooled).join("<root>")).toBe(alone.stdout.split(single).join("<root>"));

    // A warm compile (stored results) starts it for the changed plugins only (the pool's
    // `changedPlugins`), in the compile driver, never ahead of it.
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "1";
    fs.appendFileSync(path.join(pooled, "plugins", "plugin-0000", "ai.assemblyline", "tool-0.ts"), "\n");
    expect((await compileHere(pooled)).code).toBe(0);
    expect(started.count).toBe(2);
    expect(started.ahead).toBe(1);
    // With the worker off, never.
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "0";
    fs.appendFileSync(path.join(pooled, "plugins", "plugin-0000", "ai.assemblyline", "tool-0.ts"), "\n");
    expect((await compileHere(pooled)).code).toBe(0);
    expect(started.count).toBe(2);
  });

  it("does not start the worker ahead for an agent whose lock pins fewer plugins than the pool keeps (cli/commands/compile.ts likelyPoolSized)", async () => {
    const small = tempDir("al-pool-record-");
    generateAgent(small, { plugins: 1, tools: 10 });
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "0";
    expect((await compileHere(small, ["--no-cache"])).code).toBe(0);
    expect(likelyPoolSized(small)).toBe(false); // one plugin of ten tools: about 12 KB of lock
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "1";
    expect((await compileHere(small, ["--no-cache"])).code).toBe(0);
    expect(started.ahead).toBe(0);
    // No lock at all (a first compile): not ahead either; the compile itself still may start it.
    fs.rmSync(path.join(small, "plugins.lock"));
    expect((await compileHere(small, ["--no-cache"])).code).toBe(0);
    expect(started.ahead).toBe(0);
    // A root that is a file, or inside one: no worker ahead, and no exception (the compile reports the root).
    expect(likelyPoolSized(path.join(small, "agent.md"))).toBe(false);
  });
});
