/**
 * Reuse of untouched plugins' front-end results between compiles (issue 14 item 4,
 * `compiler/plugin-reuse.ts`): after one plugin changed, the others are neither read, analysed,
 * validated nor hashed again — their stored probes are checked by `stat` and replayed into the
 * compile's recording host — and the lock, the artifact and the diagnostics are a cold
 * compile's, after each kind of change (entry, definition, imported asset, imported module,
 * plugin.json, agent.md, the toolchain). Damaged plugin records mean more work, never another
 * result or a crash.
 *
 * A file changed less than two seconds before a compile started is never trusted by its `stat`
 * (the racy rule), so the agent is written once and the first compile waits that long.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as v8 from "node:v8";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileAgent, type CompileResult } from "../../build/compile.js";
import { recordingHost } from "../../cli/inputs-record.js";
import { createNodeHost, type CompilerHost } from "../../common/host.js";
import type { Probe } from "../../common/probes.js";
import { packProbes, unpackProbes, type PackedProbes } from "../../common/probe.js";
import { ANALYSIS_CACHE_FILE, readAnalysisCacheState, sealAnalysisCache } from "../../compiler/static-analysis/analysis-cache.js";
import { ANALYSIS_ENTRIES_FILE } from "../../compiler/static-analysis/analysis-entries.js";
import { RACY_MARGIN_MS } from "../../compiler/plugin-reuse.js";
import { outputsOf, pluginJson, TWO_TOOL_ENTRY } from "../helpers/agent-outputs.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

/** Three selected plugins; alpha's greet imports a module without extension and a text asset. */
function writeAgent(root: string): void {
  const plugin = (name: string, tool: string): Record<string, string> => ({
    [`plugins/${name}/plugin.json`]: pluginJson(name),
    [`plugins/${name}/ai.assemblyline/index.ts`]:
      `export default { configSchema: { type: "object", properties: { mode: { type: "string" } } }, tools: { ${tool}: { definition: "./ai.assemblyline/${tool}.ts", description: "The ${tool} tool.", inputSchema: { type: "object", properties: { q: { type: "string" } } } } } };\n`,
    [`plugins/${name}/ai.assemblyline/${tool}.ts`]: `import { defineTool } from "@assemblyline-agents/core";\n\nexport default defineTool({\n  async execute() {\n    return "${tool}";\n  }\n});\n`,
  });
  writeFiles(root, {
    "agent.md": "---\nname: reused\ncapabilities:\n  alpha: {}\n  beta: {}\n  gamma:\n    config: {}\n---\n\nAn agent whose plugins are reused.\n",
    "plugins/alpha/plugin.json": pluginJson("alpha"),
    "plugins/alpha/ai.assemblyline/index.ts": TWO_TOOL_ENTRY,
    "plugins/alpha/ai.assemblyline/greet.ts":
      'import { defineTool } from "@assemblyline-agents/core";\nimport { shout } from "./util";\nimport banner from "./banner.txt";\n\n' +
      "export default defineTool({\n  async execute() {\n    return shout(banner);\n  }\n});\n",
    "plugins/alpha/ai.assemblyline/util.ts": "export function shout(text: string): string {\n  return text.toUpperCase();\n}\n",
    "plugins/alpha/ai.assemblyline/banner.txt": "hello\n",
    "plugins/alpha/ai.assemblyline/count.ts": "export default { async execute() { return 1; } };\n",
    ...plugin("beta", "ping"),
    ...plugin("gamma", "wave"),
  });
}

/** A disk host that counts the files read under each plugin folder and keeps what is replayed into it. */
function countingHost(root: string): { host: CompilerHost; readsOf(plugin: string): number; replayed: Probe[] } {
  const disk = createNodeHost();
  const reads = new Map<string, number>();
  const replayed: Probe[] = [];
  const count = (file: string): void => {
    const match = /plugins[\\/]([^\\/]+)[\\/]/.exec(path.relative(root, path.resolve(file)));
    if (match) reads.set(match[1]!, (reads.get(match[1]!) ?? 0) + 1);
  };
  const host: CompilerHost = {
    ...disk,
    read: (file) => (count(file), disk.read(file)),
    readBytes: (file) => (count(file), disk.readBytes(file)),
    replay: (probes) => void replayed.push(...probes),
  };
  return { host, readsOf: (plugin) => reads.get(plugin) ?? 0, replayed };
}

/** What a compile reports and writes: its result's outcome and diagnostics, the lock and every artifact file. */
function outcome(root: string, result: CompileResult): unknown {
  expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
  return { diagnostics: result.diagnostics, lockChanged: result.lockChanged, artifact: result.artifact, outputs: outputsOf(root) };
}

/** Compiles a fresh copy of the agent as it is now (lock included, no `.assemblyline/`) without caches. */
async function coldOutcome(root: string): Promise<unknown> {
  const copy = path.join(tempDir("al-reuse-cold-"), "agent");
  fs.cpSync(root, copy, { recursive: true, verbatimSymlinks: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) });
  const result = await compileAgent({ root: copy, cache: false });
  const got = outcome(copy, result) as { diagnostics: unknown };
  return { ...got, diagnostics: JSON.parse(JSON.stringify(got.diagnostics)) };
}

/** Compiles `root` with the counting host (as `assembly-line compile` does with its recording host). */
async function incremental(root: string): Promise<{ outcome: unknown; readsOf(plugin: string): number; replayed: Probe[] }> {
  const counting = countingHost(root);
  const result = await compileAgent({ root, host: counting.host, hostReadsDisk: true });
  const got = outcome(root, result) as { diagnostics: unknown };
  return { outcome: { ...got, diagnostics: JSON.parse(JSON.stringify(got.diagnostics)) }, readsOf: counting.readsOf, replayed: counting.replayed };
}

const edit = (root: string, file: string, change: (text: string) => string): void => {
  const target = path.join(root, file);
  const text = fs.readFileSync(target, "utf8");
  const changed = change(text);
  expect(changed).not.toBe(text);
  fs.writeFileSync(target, changed);
};

/** A damaged record's bytes: given bytes as they are, a record serialized. */
const serialized = (value: Record<string, unknown> | Uint8Array): Uint8Array => (value instanceof Uint8Array ? value : v8.serialize(value));

/** Waits until every file written so far is older than the racy margin before a compile that starts now. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
}

// With the analysis worker off and on (`compiler/analysis-pool.ts`: in an incremental compile it
// analyses the changed plugins while this thread checks the others): the same results either way.
describe.each([
  ["off", "0"],
  ["on", "1"],
])("reuse of untouched plugins' front-end results (analysis worker %s)", (_name, worker) => {
  let root: string;
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = worker;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    else process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = saved;
  });
  beforeAll(async () => {
    root = path.join(tempDir("al-reuse-"), "agent");
    writeAgent(root);
    await settle();
    // The first compile works on every plugin and records each one.
    const first = await incremental(root);
    for (const name of ["alpha", "beta", "gamma"]) expect(first.readsOf(name)).toBeGreaterThan(0);
    expect(first.replayed).toEqual([]);
  }, 60_000);

  it("reads nothing of an untouched plugin, replays its probes, and writes a cold compile's results after each kind of change", async () => {
    // The plugins untouched by a change and by the changes just before it: a plugin edited less
    // than two seconds before a compile started is worked on again (the racy rule), so after
    // alpha's changes only gamma is sure to be reused.
    const changes: [string, () => void, readonly string[]][] = [
      ["an entry", () => edit(root, "plugins/alpha/ai.assemblyline/index.ts", (t) => t.replace("Count things.", "Count things twice.")), ["beta", "gamma"]],
      ["a definition", () => edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace("return 1", "return 2")), ["beta", "gamma"]],
      ["an imported asset", () => edit(root, "plugins/alpha/ai.assemblyline/banner.txt", () => "hello there\n"), ["beta", "gamma"]],
      ["an imported module", () => edit(root, "plugins/alpha/ai.assemblyline/util.ts", (t) => t.replace("toUpperCase", "toLowerCase")), ["beta", "gamma"]],
      ["plugin.json", () => fs.writeFileSync(path.join(root, "plugins/beta/plugin.json"), pluginJson("beta", "The beta plugin, described again.")), ["gamma"]],
      // gamma's config is merged again from agent.md; its package is reused (the merge always runs).
      ["agent.md", () => edit(root, "agent.md", (t) => t.replace("    config: {}\n", '    config: { "mode": "fast" }\n')), ["gamma"]],
    ];
    for (const [what, change, untouched] of changes) {
      change();
      const cold = await coldOutcome(root);
      const run = await incremental(root);
      expect(run.outcome, `after a change of ${what}`).toEqual(cold);
      for (const name of untouched) {
        expect(run.readsOf(name), `${name} after a change of ${what}`).toBe(0);
        expect(run.replayed.some((probe) => probe.path.includes(`${path.sep}${name}${path.sep}`)), `${name}'s probes replayed after a change of ${what}`).toBe(true);
      }
    }
  }, 120_000);

  it("keeps the recording host's record complete: a reused plugin's files are among its probes", async () => {
    edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace(/return \d+/, "return 3"));
    const recording = recordingHost(root);
    const result = await compileAgent({ root, host: recording.host, hostReadsDisk: true });
    expect(result.ok).toBe(true);
    const reads = new Set(recording.probes().filter((probe) => probe.op === "read" || probe.op === "bytes").map((probe) => probe.path));
    for (const file of ["plugins/beta/plugin.json", "plugins/beta/ai.assemblyline/index.ts", "plugins/beta/ai.assemblyline/ping.ts", "plugins/gamma/ai.assemblyline/wave.ts"]) {
      expect(reads.has(path.join(root, file)), file).toBe(true);
    }
  }, 60_000);

  it("locates --target's findings in a reused plugin's entry (its analysis read from the store when asked), as a cold compile does", async () => {
    const targets = ["openai", "anthropic", "gemini"];
    const diagnosticsOf = (result: CompileResult): unknown => JSON.parse(JSON.stringify(result.diagnostics));
    // gemini's SDK drops `additionalProperties` (AL4704, located at the key in gamma's entry).
    edit(root, "plugins/gamma/ai.assemblyline/index.ts", (t) => t.replace('properties: { q: { type: "string" } } }', 'properties: { q: { type: "string" } }, additionalProperties: false }'));
    await settle();
    await incremental(root);
    await settle();
    const recorded = await compileAgent({ root, host: countingHost(root).host, hostReadsDisk: true, targets });
    edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace(/return \d+/, "return 6"));
    const counting = countingHost(root);
    const result = await compileAgent({ root, host: counting.host, hostReadsDisk: true, targets });
    expect(counting.readsOf("gamma")).toBe(0);
    const copy = path.join(tempDir("al-reuse-cold-"), "agent");
    fs.cpSync(root, copy, { recursive: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) });
    const cold = await compileAgent({ root: copy, cache: false, targets });
    // The finding is located in gamma's entry (reused: its analysis is read from the store for it).
    expect(result.diagnostics.some((d) => d.code === "AL4704" && d.file.endsWith(path.join("gamma", "ai.assemblyline", "index.ts")))).toBe(true);
    expect(diagnosticsOf(result)).toEqual(diagnosticsOf(cold));
    expect(recorded.ok).toBe(result.ok);
  }, 60_000);

  it("analyses a reused plugin's entry again when its stored analysis is gone by the time --target asks for it, as a cold compile does", async () => {
    const targets = ["openai", "anthropic", "gemini"];
    const diagnosticsOf = (result: CompileResult): unknown => JSON.parse(JSON.stringify(result.diagnostics));
    await settle();
    await compileAgent({ root, host: countingHost(root).host, hostReadsDisk: true, targets });
    edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace(/return \d+/, "return 8"));
    // gamma's record is reused (its outline says what its entry gave) while the entries' analyses are gone.
    fs.rmSync(path.join(root, ANALYSIS_ENTRIES_FILE));
    const result = await compileAgent({ root, host: countingHost(root).host, hostReadsDisk: true, targets });
    const copy = path.join(tempDir("al-reuse-cold-"), "agent");
    fs.cpSync(root, copy, { recursive: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) });
    const cold = await compileAgent({ root: copy, cache: false, targets });
    expect(result.diagnostics.some((d) => d.code === "AL4704" && d.file.endsWith(path.join("gamma", "ai.assemblyline", "index.ts")))).toBe(true);
    expect(diagnosticsOf(result)).toEqual(diagnosticsOf(cold));
  }, 60_000);

  it("works on every plugin again for another toolchain, with a cold compile's results", async () => {
    const file = path.join(root, ANALYSIS_CACHE_FILE);
    const payload = readAnalysisCacheState(file) as unknown as Record<string, unknown>;
    // (alpha's and beta's files were changed just before the last compile: only gamma's record could be kept.)
    expect(Array.isArray(payload["plugins"]) && (payload["plugins"] as unknown[]).length).toBeGreaterThan(0);
    fs.writeFileSync(file, sealAnalysisCache({ ...payload, toolchain: `${String(payload["toolchain"])}-next` }));
    edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace(/return \d+/, "return 4"));
    const cold = await coldOutcome(root);
    const run = await incremental(root);
    expect(run.outcome).toEqual(cold);
    for (const name of ["beta", "gamma"]) expect(run.readsOf(name)).toBeGreaterThan(0);
  }, 60_000);

  // Damaged records are the store's concern, not the worker's: checked once, with the worker off.
  const onceOnly = worker === "0" ? it : () => undefined;
  onceOnly("treats damaged plugin records as missing: more work, never another result or a crash", async () => {
    const file = path.join(root, ANALYSIS_CACHE_FILE);
    // A settled record again (the last test wrote every plugin's record just now).
    await incremental(root);
    await settle();
    edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace(/return \d+/, "return 5"));
    await incremental(root);
    // Each plugin record is stored as the bytes of its own v8.serialize, its probes packed (common/probe.ts).
    const payload = readAnalysisCacheState(file) as unknown as { plugins: [string, Uint8Array][] };
    const withProbes = (record: Record<string, unknown>, change: (probes: Probe[]) => Probe[]) => ({ ...record, probes: packProbes(change(unpackProbes(record["probes"])!)) });
    const damaged: [string, (record: Record<string, unknown>) => Record<string, unknown> | Uint8Array][] = [
      ["a relative probe path", (record) => withProbes(record, (probes) => probes.map((probe) => ({ ...probe, path: path.basename(probe.path) })))],
      ["a probe whose stat is another file's", (record) => withProbes(record, (probes) => probes.map((probe) => ("stat" in probe && probe.stat ? { ...probe, stat: { ...probe.stat, ino: probe.stat.ino + 1 } } : probe)))],
      ["packed probes whose fields disagree in length", (record) => ({ ...record, probes: { ...(record["probes"] as PackedProbes), paths: [] } })],
      ["probes stored unpacked", (record) => ({ ...record, probes: unpackProbes(record["probes"]) })],
      ["no validation for the capability", (record) => ({ ...record, validated: [] })],
      ["a missing entry analysis", (record) => ({ ...record, entryFile: path.join(root, "nowhere.ts") })],
      ["a record of another shape", () => ({ startedAt: "yesterday" })],
      ["bytes that are no serialization", () => Buffer.from("not v8 data")],
    ];
    for (const [what, damage] of damaged) {
      const plugins = payload.plugins.map(([dir, bytes]) => [dir, dir.endsWith("beta") ? serialized(damage(v8.deserialize(bytes) as Record<string, unknown>)) : bytes]);
      fs.writeFileSync(file, sealAnalysisCache({ ...payload, plugins }));
      edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace(/return \d+/, `return ${what.length}`));
      const cold = await coldOutcome(root);
      const run = await incremental(root);
      expect(run.outcome, what).toEqual(cold);
      expect(run.readsOf("beta"), what).toBeGreaterThan(0);
      expect(run.readsOf("gamma"), what).toBe(0);
    }
  }, 120_000);
});

describe("reuse of a plugin whose definition is a symbolic link (one lstat answers a plain file's reads and kind; a link is asked by stat)", () => {
  it("reuses the plugin while the link and its target are untouched, and works on it again after its target changed", async () => {
    // Real path: the plugin-root rule compares resolved paths (a link under a linked temp folder would leave it).
    const root = path.join(fs.realpathSync(tempDir("al-reuse-link-")), "agent");
    writeAgent(root);
    // beta's definition becomes a link to a file beside it, inside the plugin.
    const definition = path.join(root, "plugins/beta/ai.assemblyline/ping.ts");
    fs.renameSync(definition, path.join(root, "plugins/beta/ai.assemblyline/ping-source.ts"));
    fs.symlinkSync("ping-source.ts", definition);
    await settle();
    await incremental(root);
    const unchanged = await coldOutcome(root);
    const again = await incremental(root);
    expect(again.readsOf("beta")).toBe(0);
    expect(again.outcome).toEqual(unchanged);
    edit(root, "plugins/beta/ai.assemblyline/ping-source.ts", (t) => t.replace('return "ping"', 'return "pong"'));
    const cold = await coldOutcome(root);
    const changed = await incremental(root);
    expect(changed.readsOf("beta")).toBeGreaterThan(0);
    expect(changed.outcome).toEqual(cold);
  }, 60_000);
});

describe("a reused plugin's outline", () => {
  it("keeps a misspelt configSchema its AL4001 alone, as the compile that analysed it reported (helper-75 C8 with helper-77's outline)", async () => {
    const root = path.join(tempDir("al-reuse-outline-"), "agent");
    writeAgent(root);
    edit(root, "plugins/gamma/ai.assemblyline/index.ts", (t) => t.replace("configSchema:", "configschema:"));
    edit(root, "agent.md", (t) => t.replace("    config: {}\n", '    config: { "mode": "fast" }\n'));
    await settle();
    const codes = (result: CompileResult): string[] => result.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.path}`);
    const first = await compileAgent({ root, hostReadsDisk: true });
    expect(codes(first)).toEqual(["AL4001 configschema"]);
    edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace("return 1", "return 2"));
    const counting = countingHost(root);
    const again = await compileAgent({ root, host: counting.host, hostReadsDisk: true });
    // gamma reused (nothing of it read), and still no "declares no configSchema" (AL5003) for its config.
    expect(counting.readsOf("gamma")).toBe(0);
    expect(codes(again)).toEqual(["AL4001 configschema"]);
  }, 60_000);
});
