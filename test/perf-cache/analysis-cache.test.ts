/**
 * The persistent analysis cache of `compile` (`<root>/.assemblyline/cache/analysis.bin`):
 * results with and without it are identical, a changed input invalidates (by content, not
 * mtime), corrupt or foreign files are ignored, `--no-cache` neither reads nor writes it and
 * `--check` never writes it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { compileAgent, type CompileResult } from "../../build/compile.js";
import { ANALYSIS_CACHE_FILE, AnalysisCache, packRecord, readAnalysisCacheState, sealAnalysisCache, unpackRecord } from "../../compiler/static-analysis/analysis-cache.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { writeFiles } from "../helpers/temp-tree.js";
import { RACY_MARGIN_MS } from "../../common/probes.js";

const TOOLS = 70;

/** The generated plugin: its entry imports the descriptions from a module, so the entry has a dependency. */
function generatedPlugin(): Record<string, string> {
  const files: Record<string, string> = {
    "plugins/gen/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "gen", version: "1.0.0", description: "Generated for the cache tests." }),
    "plugins/gen/ai.assemblyline/words.ts": Array.from({ length: TOOLS }, (_, i) => `export const D${i} = "Looks up record ${i}.";\n`).join(""),
  };
  const descriptors: string[] = [];
  for (let i = 0; i < TOOLS; i++) {
    const schema = `{ type: "object", properties: { q${i}: { type: "string" }, n: { type: "integer", maximum: ${i + 1} } }, required: ["q${i}"] }`;
    descriptors.push(`    gen_${i}: { definition: "./ai.assemblyline/tool-${i}.ts", description: D${i}, inputSchema: ${schema} }`);
    files[`plugins/gen/ai.assemblyline/tool-${i}.ts`] = [
      `import { defineTool } from "@assemblyline-agents/core";`,
      `export default defineTool({`,
      `  description: "Looks up record ${i}.",`,
      `  inputSchema: ${schema},`,
      `  async execute() { return ${i}; }`,
      `});`,
      ``,
    ].join("\n");
  }
  const names = Array.from({ length: TOOLS }, (_, i) => `D${i}`).join(", ");
  files["plugins/gen/ai.assemblyline/index.ts"] = `import { ${names} } from "./words.js";\n\nexport default {\n  tools: {\n${descriptors.join(",\n")}\n  }\n};\n`;
  return files;
}

/** The example agent plus a generated plugin of {@link TOOLS} tools (enough for the schema worker). */
function makeAgent(): string {
  const root = copyAgent(supportAgentRoot, "al-cache-");
  writeFiles(root, generatedPlugin());
  const agentMd = path.join(root, "agent.md");
  fs.writeFileSync(agentMd, fs.readFileSync(agentMd, "utf8").replace("capabilities:\n", "capabilities:\n  gen: {}\n"));
  return root;
}

const cacheFile = (root: string) => path.join(root, ANALYSIS_CACHE_FILE);

/**
 * Whether the root's cache holds the generated plugin's analyses: each of its {@link TOOLS}
 * definitions' own record, or the plugin's record that stands for them all. Which of the two
 * depends on the clock: a plugin whose files changed within two seconds before the compile is
 * not stored whole (its files could still change unseen), so a compile right after
 * {@link makeAgent} stores the records, and one on a loaded machine, seconds later, the plugin's.
 */
function holdsGeneratedPlugin(root: string): boolean {
  const cache = AnalysisCache.load(root);
  return cache.size.analyses > TOOLS || cache.hasPlugin(path.join(root, "plugins", "gen"));
}

/** What must not depend on the cache: the verdict, the diagnostics, the analysis and the lock bytes. */
async function compile(root: string, cache?: boolean): Promise<{ result: CompileResult; lock: string | undefined }> {
  const result = await compileAgent({ root, package: false, displayRoot: ".", ...(cache === undefined ? {} : { cache }) });
  const lockPath = path.join(root, "plugins.lock");
  return { result, lock: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, "utf8") : undefined };
}

function expectSame(actual: { result: CompileResult; lock: string | undefined }, expected: { result: CompileResult; lock: string | undefined }): void {
  expect(actual.result.ok).toBe(expected.result.ok);
  expect(actual.result.diagnostics).toEqual(expected.result.diagnostics);
  expect(actual.result.analysis).toEqual(expected.result.analysis);
  expect(actual.lock).toBe(expected.lock);
}

/** Rewrites the cache file's payload (keeping it intact: magic and digest recomputed). */
function rewriteCache(root: string, edit: (payload: { toolchain: string; records: [string, Uint8Array][]; verdicts: [string, any][] }) => void): void {
  // The state every segment of the file gives, written back as one full state.
  const payload = readAnalysisCacheState(cacheFile(root)) as unknown as { toolchain: string; records: [string, Uint8Array][]; verdicts: [string, any][] };
  edit(payload);
  fs.writeFileSync(cacheFile(root), sealAnalysisCache(payload));
}

/** Makes the stored analysis of `tool-0.ts` say a different description (a result no analysis of the file gives). */
function poisonDescription(payload: { records: [string, Uint8Array][] }): void {
  // Each record is stored as the bytes of its own v8.serialize (read only when asked for).
  const pair = payload.records.find(([key]) => key.startsWith("definition\0") && key.includes("tool-0.ts"))!;
  const record = v8.deserialize(pair[1]);
  record.result.definedTools[0].description.value = "Poisoned.";
  pair[1] = v8.serialize(record);
}

const DRIFT = "AL4"; // descriptor drift and other validation codes start here
const driftOf = (result: CompileResult) => result.diagnostics.filter((d) => d.code.startsWith(DRIFT) && d.message.includes("gen_0"));

describe("persistent analysis cache", () => {
  it("gives the same results without a cache, with an empty one and with a full one", async () => {
    const root = makeAgent();
    // Files older than the racy margin before the first compile: the cold compile then keeps
    // every plugin's record, so the warm one has nothing to add. (Otherwise, on a loaded machine
    // the margin can pass between the two, and the warm compile rightly appends the records the
    // cold one could not keep yet.)
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    const none = await compile(root, false);
    expect(none.result.ok).toBe(true);
    expect(fs.existsSync(cacheFile(root))).toBe(false);
    const cold = await compile(root);
    expect(fs.existsSync(cacheFile(root))).toBe(true);
    const stored = AnalysisCache.load(root).size;
    // Every plugin got its own record: the entries' analyses are kept, the definitions' are not (see the next test).
    expect(stored.analyses).toBe(readAnalysisCacheState(cacheFile(root))!.records.filter(([key]) => key.startsWith("entry\0")).length);
    expect(stored.analyses).toBeGreaterThan(0);
    expect(stored.verdicts).toBeGreaterThanOrEqual(TOOLS);
    const before = fs.readFileSync(cacheFile(root));
    const warm = await compile(root);
    expectSame(cold, none);
    expectSame(warm, none);
    expect(fs.readFileSync(cacheFile(root)).equals(before)).toBe(true); // nothing new to save
  });

  it("keeps a plugin's definition analyses only while it has no record of its own, or once it is being edited", async () => {
    const root = makeAgent();
    const gen = path.join(root, "plugins/gen");
    const tool = (i: number) => path.join(gen, `ai.assemblyline/tool-${i}.ts`);
    const definitions = () => readAnalysisCacheState(cacheFile(root))!.records.filter(([key]) => key.startsWith("definition\0") && key.endsWith(`\0${gen}`)).length;
    // A file that cannot be trusted by its stat (modified in the future: never before the racy
    // margin, however slow the machine): no plugin record can be kept, so the definitions' analyses are.
    const words = path.join(gen, "ai.assemblyline/words.ts");
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(words, later, later);
    await compile(root);
    expect(definitions()).toBe(TOOLS);
    // Settled: the plugin gets its record, which stands for its definitions: those stored by the
    // compile before (used again, as they still hold) are no longer kept either (found in review).
    const earlier = new Date(Date.now() - 60_000);
    fs.utimesSync(words, earlier, earlier);
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    await compile(root);
    expect(definitions()).toBe(0);
    expect(readAnalysisCacheState(cacheFile(root))!.plugins!.some(([dir]) => path.resolve(dir) === gen)).toBe(true);
    // An edit (settled, so that the plugin gets a record again): the plugin's stored record
    // misses, every definition is analysed again, and now kept beside the plugin's new record.
    fs.writeFileSync(tool(1), fs.readFileSync(tool(1), "utf8").replace("return 1;", "return -1;"));
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    expectSame(await compile(root), await compile(root, false));
    expect(definitions()).toBe(TOOLS);
    expect(readAnalysisCacheState(cacheFile(root))!.plugins!.some(([dir]) => path.resolve(dir) === gen)).toBe(true);
    // The next edit of the plugin reuses them: a poisoned one is what the compile reports.
    rewriteCache(root, poisonDescription);
    fs.writeFileSync(tool(2), fs.readFileSync(tool(2), "utf8").replace("return 2;", "return -2;"));
    expect(driftOf((await compile(root)).result)).toHaveLength(1);
  });

  it("uses a valid cache: a stored result is what the compile reports (so --no-cache must skip it)", async () => {
    const root = makeAgent();
    // A file modified in the future, so the plugin never gets a record of its own that stands for
    // its definitions' (a compile later than the racy margin did, on a loaded machine: then no
    // definition record was left to poison; helper-80).
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, "plugins/gen/ai.assemblyline/words.ts"), later, later);
    await compile(root);
    rewriteCache(root, poisonDescription);
    expect(driftOf((await compile(root)).result)).toHaveLength(1);
    rewriteCache(root, poisonDescription);
    const bypassed = await compile(root, false);
    expect(driftOf(bypassed.result)).toEqual([]);
    // --no-cache neither read the poisoned file nor replaced it.
    expect(AnalysisCache.load(root).find("definition", path.join(root, "plugins/gen/ai.assemblyline/tool-0.ts"), path.join(root, "plugins/gen"))).toBeDefined();
  });

  it("re-analyses a module whose content changed, even with the same size and mtime", async () => {
    const root = makeAgent();
    await compile(root);
    const tool = path.join(root, "plugins/gen/ai.assemblyline/tool-0.ts");
    const { mtime, atime, size } = fs.statSync(tool);
    fs.writeFileSync(tool, fs.readFileSync(tool, "utf8").replace("Looks up record 0.", "Looks at record 0."));
    fs.utimesSync(tool, atime, mtime);
    expect(fs.statSync(tool).size).toBe(size);
    const warm = await compile(root);
    expect(driftOf(warm.result)).toHaveLength(1);
    expectSame(warm, await compile(root, false));
  });

  it("re-evaluates an entry when a module it imports changed", async () => {
    const root = makeAgent();
    await compile(root);
    const words = path.join(root, "plugins/gen/ai.assemblyline/words.ts");
    fs.writeFileSync(words, fs.readFileSync(words, "utf8").replace("Looks up record 3.", "Fetches record 3."));
    const warm = await compile(root);
    const gen = warm.result.analysis.capabilities.find((c) => c.resolved.request.key === "gen")!;
    expect(gen.plugin.tools.find((t) => t.name === "gen_3")?.description).toBeUndefined(); // drift now: the tool is dropped
    expect(warm.result.diagnostics.some((d) => d.message.includes("gen_3"))).toBe(true);
    expectSame(warm, await compile(root, false));
  });

  it("re-analyses when a file it found missing appears", async () => {
    const root = makeAgent();
    // The entry imports ./extra.js, which does not exist yet: an error.
    const entry = path.join(root, "plugins/gen/ai.assemblyline/index.ts");
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace(`from "./words.js";`, `from "./extra.js";`));
    const missing = await compile(root);
    expect(missing.result.ok).toBe(false);
    fs.copyFileSync(path.join(root, "plugins/gen/ai.assemblyline/words.ts"), path.join(root, "plugins/gen/ai.assemblyline/extra.ts"));
    const found = await compile(root);
    expect(found.result.ok).toBe(true);
    expectSame(found, await compile(root, false));
  });

  it("ignores a corrupt cache (truncated, a flipped byte, garbage, empty) and replaces it", async () => {
    const root = makeAgent();
    const expected = await compile(root, false);
    await compile(root);
    const good = fs.readFileSync(cacheFile(root));
    const corruptions: Buffer[] = [
      good.subarray(0, good.length >> 1),
      Buffer.concat([good.subarray(0, good.length - 10), Buffer.from([good[good.length - 10]! ^ 0xff]), good.subarray(good.length - 9)]),
      Buffer.from("not a cache at all"),
      Buffer.alloc(0),
    ];
    for (const bytes of corruptions) {
      fs.writeFileSync(cacheFile(root), bytes);
      expect(AnalysisCache.load(root).size).toEqual({ analyses: 0, verdicts: 0, plugins: 0 });
      expectSame(await compile(root), expected);
      expect(holdsGeneratedPlugin(root)).toBe(true);
    }
  });

  it("ignores a well-formed cache written by another toolchain", async () => {
    const root = makeAgent();
    const expected = await compile(root, false);
    await compile(root);
    rewriteCache(root, (payload) => {
      poisonDescription(payload);
      payload.toolchain = "another toolchain";
    });
    expect(AnalysisCache.load(root).size).toEqual({ analyses: 0, verdicts: 0, plugins: 0 });
    expectSame(await compile(root), expected);
  });

  it("never crashes when the cache cannot be written", async () => {
    const root = makeAgent();
    fs.mkdirSync(cacheFile(root), { recursive: true }); // a directory where the file should be
    const expected = await compile(root, false);
    for (let round = 0; round < 2; round++) {
      const actual = await compile(root);
      // The only difference: a warning that the cache was not written (issue 12, AL6302).
      const [warning, ...others] = actual.result.diagnostics.filter((d) => d.code === "AL6302");
      expect(others).toEqual([]);
      expect(warning).toMatchObject({ severity: "warning", message: expect.stringContaining("is a folder where a file is expected") });
      expectSame({ ...actual, result: { ...actual.result, diagnostics: actual.result.diagnostics.filter((d) => d !== warning) } }, expected);
    }
  });

  it("--check reads the cache but never writes it", async () => {
    const root = makeAgent();
    await compile(root, false); // writes the lock
    const checked = await compileAgent({ root, package: false, check: true, displayRoot: "." });
    expect(checked.ok).toBe(true);
    expect(fs.existsSync(cacheFile(root))).toBe(false);
  });
});

describe("packed location maps (the cache file and the analysis worker's messages)", () => {
  const file = "/agent/plugins/p/ai.assemblyline/index.ts";
  type AnalysisRecord = Parameters<typeof packRecord>[0];
  const recordWith = (locations: Map<string, unknown>): AnalysisRecord =>
    ({ fingerprint: new Map([["read:" + file, "file:x"]]), result: { file, entry: { value: { tools: {} }, locations }, dependencies: [file], diagnostics: [] } }) as unknown as AnalysisRecord;
  const bytes = (record: AnalysisRecord) => JSON.stringify(record, (_, value: unknown) => (value instanceof Map ? [...value] : value));

  it("unpacks to the same map, key order of every location included", () => {
    const locations = new Map<string, unknown>([
      ["", { value: { file, line: 1, column: 16, endLine: 40, endColumn: 2 } }],
      ["/tools", { value: { file, line: 2, column: 10 }, key: { file, line: 2, column: 3, endLine: 2, endColumn: 8 } }],
      ["/tools/a~1b", { value: { file: "/other.ts", line: 0, column: 0, endLine: 0, endColumn: 0 }, key: { file, line: 3, column: 5 } }],
    ]);
    const packed = packRecord(recordWith(locations));
    expect(packed.locations).toBeDefined(); // packed into numbers
    expect(bytes(unpackRecord(v8.deserialize(v8.serialize(packed)) as typeof packed))).toBe(bytes(recordWith(locations)));
  });

  it("keeps a map it cannot pack exactly as it is", () => {
    for (const odd of [
      { value: { file, line: 1, column: 2, extra: true } },
      { value: { line: 1, file, column: 2 } },
      { value: { file, line: -1, column: 2 } },
      { value: { file, line: 1.5, column: 2 } },
      { value: { file, line: 1, column: 2, endLine: 3 } },
      { value: { file, line: 1, column: 2, endLine: 3, endColumn: 2 ** 31 } },
      { value: { file, line: 1, column: 2 }, other: 1 },
    ]) {
      const record = recordWith(new Map([["", odd]]));
      const packed = packRecord(record);
      expect(packed.locations, JSON.stringify(odd)).toBeUndefined();
      expect(bytes(unpackRecord(packed))).toBe(bytes(record));
    }
  });
});
