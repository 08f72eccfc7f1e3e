/**
 * What a compile reads of `plugins.lock` is kept in the analysis cache by the SHA-256 of the
 * lock's bytes (`build/lock-inputs.ts`, `AnalysisCache.derived`; issue 14 item 4, eleventh
 * round): the next compile takes bytes with exactly that digest as a readable lock with the kept
 * pins, without checking or parsing them. A lock edited since (another digest), a damaged
 * record, or `--no-cache` reads and checks the lock in full: every compile reports and writes
 * what a compile without the cache does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { compileAgent, type CompileResult } from "../../build/compile.js";
import { lockDigest } from "../../build/lock-inputs.js";
import { ANALYSIS_CACHE_FILE, readAnalysisCacheState, sealAnalysisCache } from "../../compiler/static-analysis/analysis-cache.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";

/** The key the lock's reading is kept under in `analysis.bin`'s records. */
const LOCK_READING_KEY = "derived\0plugins.lock pins";

interface Outcome {
  readonly result: CompileResult;
  readonly lock: string | undefined;
}

async function compile(root: string, cache?: boolean): Promise<Outcome> {
  const result = await compileAgent({ root, package: false, displayRoot: ".", ...(cache === undefined ? {} : { cache }) });
  const lockPath = path.join(root, "plugins.lock");
  return { result, lock: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, "utf8") : undefined };
}

function expectSame(actual: Outcome, expected: Outcome): void {
  expect(actual.result.ok).toBe(expected.result.ok);
  expect(actual.result.diagnostics).toEqual(expected.result.diagnostics);
  expect(actual.result.lockChanged).toBe(expected.result.lockChanged);
  expect(actual.result.lockRecomputed).toBe(expected.result.lockRecomputed);
  expect(actual.lock).toBe(expected.lock);
}

const cacheFile = (root: string) => path.join(root, ANALYSIS_CACHE_FILE);
const lockFile = (root: string) => path.join(root, "plugins.lock");

/** The kept reading as stored: the digest it is for and its value; `undefined` when none. */
function keptReading(root: string): { digest: unknown; value: unknown } | undefined {
  const pair = readAnalysisCacheState(cacheFile(root))!.records.find(([key]) => key === LOCK_READING_KEY);
  return pair && (v8.deserialize(pair[1]) as { digest: unknown; value: unknown });
}

/** Rewrites the kept reading's record (the cache stays intact: sealed anew). */
function rewriteReading(root: string, bytes: Uint8Array): void {
  const payload = readAnalysisCacheState(cacheFile(root)) as unknown as { records: [string, Uint8Array][] };
  const pair = payload.records.find(([key]) => key === LOCK_READING_KEY)!;
  pair[1] = bytes;
  fs.writeFileSync(cacheFile(root), sealAnalysisCache(payload));
}

/** A lock of the wrong shape (an unknown root member): read in full, a compile warns and recomputes it (AL6006). */
function misshapen(text: string): string {
  return text.replace('"lockfileVersion": 1,', '"lockfileVersion": 1,\n  "unexpected": true,');
}

/** Runs `edit` on the lock of two copies of the compiled agent, then compiles one with and one without the cache. */
async function bothWays(edit: (root: string) => void): Promise<{ cached: Outcome; uncached: Outcome }> {
  const cachedRoot = copyAgent(supportAgentRoot, "al-lock-reading-");
  await compile(cachedRoot);
  const uncachedRoot = copyAgent(supportAgentRoot, "al-lock-reading-");
  await compile(uncachedRoot, false);
  edit(cachedRoot);
  edit(uncachedRoot);
  // The diagnostics name files relative to the root: the two copies compare alike.
  return { cached: await compile(cachedRoot), uncached: await compile(uncachedRoot, false) };
}

describe("the analysis cache keeps what a compile read of plugins.lock", () => {
  it("keeps the reading of the lock on disk after each compile, by its bytes' digest", async () => {
    const root = copyAgent(supportAgentRoot, "al-lock-reading-");
    const first = await compile(root);
    expect(first.result.ok).toBe(true);
    expect(keptReading(root)?.digest).toBe(lockDigest(fs.readFileSync(lockFile(root))));
    // A compile that writes a new lock keeps the new one's: after a definition changed (its plugin's content integrity moves).
    const echo = path.join(root, "plugins/example/ai.assemblyline/echo.ts");
    fs.appendFileSync(echo, "// Edited.\n");
    const second = await compile(root);
    expect(second.result.lockChanged).toBe(true);
    expect(keptReading(root)?.digest).toBe(lockDigest(fs.readFileSync(lockFile(root))));
    // And the compile after it (the lock known by its digest) reports and writes what one without the cache does.
    const third = await compile(root);
    const fresh = copyAgent(root, "al-lock-reading-");
    fs.rmSync(path.join(fresh, ".assemblyline"), { recursive: true, force: true });
    expectSame(third, await compile(fresh, false));
    expect(keptReading(root)?.digest).toBe(lockDigest(fs.readFileSync(lockFile(root))));
  });

  it("reads and checks a lock edited since in full (another digest): damaged, conflicted, newer", async () => {
    const edits: ((root: string) => void)[] = [
      (root) => fs.writeFileSync(lockFile(root), misshapen(fs.readFileSync(lockFile(root), "utf8"))),
      (root) => fs.writeFileSync(lockFile(root), `<<<<<<< HEAD\n${fs.readFileSync(lockFile(root), "utf8")}=======\n>>>>>>> other\n`),
      (root) => fs.writeFileSync(lockFile(root), fs.readFileSync(lockFile(root), "utf8").replace('"lockfileVersion": 1', '"lockfileVersion": 2')),
      (root) => fs.writeFileSync(lockFile(root), fs.readFileSync(lockFile(root), "utf8").slice(0, 200)),
    ];
    const codes: string[] = [];
    for (const edit of edits) {
      const { cached, uncached } = await bothWays(edit);
      expectSame(cached, uncached);
      codes.push(...cached.result.diagnostics.filter((d) => d.code.startsWith("AL60")).map((d) => d.code));
    }
    // Each edit is reported (so the cached compile did check the lock).
    expect(codes.length).toBeGreaterThanOrEqual(edits.length);
  });

  it("uses a kept reading for exactly those bytes (so --no-cache must skip it)", async () => {
    const root = copyAgent(supportAgentRoot, "al-lock-reading-");
    await compile(root);
    const expected = await (async () => {
      const other = copyAgent(supportAgentRoot, "al-lock-reading-");
      await compile(other, false);
      fs.writeFileSync(lockFile(other), misshapen(fs.readFileSync(lockFile(other), "utf8")));
      return compile(other, false);
    })();
    expect(expected.result.diagnostics.some((d) => d.code === "AL6006" || d.code === "AL6012")).toBe(true);
    // A reading kept for the misshapen bytes (a poisoned record: no compile keeps one for them).
    const bytes = misshapen(fs.readFileSync(lockFile(root), "utf8"));
    fs.writeFileSync(lockFile(root), bytes);
    const digest = lockDigest(fs.readFileSync(lockFile(root)));
    rewriteReading(root, v8.serialize({ digest, value: [] }));
    // --no-cache neither reads it nor replaces it.
    const bypassed = await compile(root, false);
    expect(bypassed.result.diagnostics.some((d) => d.code === "AL6006" || d.code === "AL6012")).toBe(true);
    expect(keptReading(root)?.digest).toBe(digest);
    // The cached compile takes those bytes as a readable lock, as the record says.
    fs.writeFileSync(lockFile(root), bytes);
    const poisoned = await compile(root);
    expect(poisoned.result.diagnostics.some((d) => d.code === "AL6006" || d.code === "AL6012")).toBe(false);
  });

  it("reads and checks the lock in full when the kept reading is damaged", async () => {
    const damaged: ((digest: string) => Uint8Array)[] = [
      (digest) => v8.serialize({ digest, value: [["." , "key", 1, "1.0.0"]] }),
      (digest) => v8.serialize({ digest, value: "not pins" }),
      (digest) => v8.serialize({ digest }),
      () => Buffer.from("not v8 at all"),
    ];
    for (const bytes of damaged) {
      const { cached, uncached } = await bothWays((root) => {
        fs.writeFileSync(lockFile(root), misshapen(fs.readFileSync(lockFile(root), "utf8")));
        if (fs.existsSync(cacheFile(root))) rewriteReading(root, bytes(lockDigest(fs.readFileSync(lockFile(root)))));
      });
      expect(uncached.result.diagnostics.some((d) => d.code === "AL6006" || d.code === "AL6012")).toBe(true);
      expectSame(cached, uncached);
    }
  });
});
