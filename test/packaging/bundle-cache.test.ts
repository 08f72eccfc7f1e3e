/**
 * The persistent bundle cache (issue 14 item 4, `packaging/bundle-cache.ts`): a compile with
 * nothing changed hands no bundle to esbuild, a compile after a change rebuilds only the
 * bundles that read the changed file, and every compile writes exactly the lock and artifact a
 * cold compile (`--no-cache`, in a fresh copy) writes. Each kind of input is changed in turn:
 * an entry, a definition, an imported asset, an imported module, plugin.json, agent.md, and
 * the toolchain's version. Which bundles were built is counted through the injected esbuild
 * build function (its entry points), not timed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as esbuild from "esbuild";
import { describe, expect, it } from "vitest";
import { compileAgent, type CompileOptions } from "../../build/compile.js";
import { BUNDLE_CACHE_FILE, BundleCache } from "../../packaging/bundle-cache.js";
import type { BuildFunction } from "../../packaging/bundle-tools.js";
import { outputsOf, pluginJson, TWO_TOOL_ENTRY } from "../helpers/agent-outputs.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";
import { RACY_MARGIN_MS } from "../../compiler/plugin-reuse.js";


/** Two selected plugins, three bundles: alpha/greet (imports a module and a text asset), alpha/count, beta/ping; gamma not selected. */
function writeAgent(root: string): void {
  writeFiles(root, {
    "agent.md": "---\nname: cached\ncapabilities:\n  alpha: {}\n  beta: {}\n---\n\nAn agent for the bundle cache tests.\n",
    "plugins/alpha/plugin.json": pluginJson("alpha"),
    "plugins/alpha/ai.assemblyline/index.ts": TWO_TOOL_ENTRY,
    "plugins/alpha/ai.assemblyline/greet.ts":
      'import { defineTool } from "@assemblyline-agents/core";\nimport { shout } from "./util.ts";\nimport banner from "./banner.txt";\n\n' +
      'export default defineTool({\n  async execute() {\n    return shout(banner);\n  }\n});\n',
    "plugins/alpha/ai.assemblyline/util.ts": "export function shout(text: string): string {\n  return text.toUpperCase();\n}\n",
    "plugins/alpha/ai.assemblyline/banner.txt": "hello\n",
    "plugins/alpha/ai.assemblyline/count.ts": 'export default { async execute() { return 1; } };\n',
    "plugins/beta/plugin.json": pluginJson("beta"),
    "plugins/beta/ai.assemblyline/index.ts":
      'export default { tools: { ping: { definition: "./ai.assemblyline/ping.ts", description: "Ping.", inputSchema: { type: "object" } } } };\n',
    "plugins/beta/ai.assemblyline/ping.ts": 'export default { async execute() { return "pong"; } };\n',
    // Not selected until agent.md adds it.
    "plugins/gamma/plugin.json": pluginJson("gamma"),
    "plugins/gamma/ai.assemblyline/index.ts":
      'export default { tools: { wave: { definition: "./ai.assemblyline/wave.ts", description: "Wave.", inputSchema: { type: "object" } } } };\n',
    "plugins/gamma/ai.assemblyline/wave.ts": 'export default { async execute() { return "o/"; } };\n',
  });
  // The first compile keeps its bundles only when every file is older than its stamp (see edit).
  afterClockTick(root, path.join(root, "plugins/gamma/ai.assemblyline/wave.ts"));
}

/** A build function that records the entry names of every build. */
function countingBuild(): { build: BuildFunction; built: string[] } {
  const built: string[] = [];
  return {
    built,
    build: (options) => {
      built.push(...Object.keys(options.entryPoints as Record<string, string>));
      return esbuild.build(options);
    },
  };
}

/** Compiles `root` with the cache and a counting build; returns the built entries. */
async function compileCounting(root: string, options: Partial<CompileOptions> = {}): Promise<string[]> {
  const counter = countingBuild();
  const result = await compileAgent({ root, bundler: counter.build, ...options });
  // (AL1017, an info, says gamma is not selected while it is not.)
  expect(result.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
  expect(result.ok).toBe(true);
  return counter.built.sort();
}

/** What a cold compile writes for the agent as it is now: a fresh copy, compiled without any cache. */
async function coldOutputs(root: string): Promise<Record<string, string>> {
  const copy = path.join(tempDir("al-bundle-cache-cold-"), "agent");
  fs.cpSync(root, copy, { recursive: true, filter: (source) => !source.includes(`${path.sep}.assemblyline`) && path.basename(source) !== "plugins.lock" });
  const result = await compileAgent({ root: copy, cache: false });
  expect(result.diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
  return outputsOf(copy);
}

const GREET = "bundles/root/alpha/ai.assemblyline/greet";
const COUNT = "bundles/root/alpha/ai.assemblyline/count";
const PING = "bundles/root/beta/ai.assemblyline/ping";
const WAVE = "bundles/root/gamma/ai.assemblyline/wave";

/**
 * Rewrites a file of the agent, then waits for the file system's clock to move past the write.
 * File times come from a coarse clock (one tick is several milliseconds on Linux), and the cache
 * rightly keeps no bundle whose input is not older than the stamp written before the build (the
 * racily-clean rule, tested on its own below): a compile that reached its stamp within the
 * edit's tick would rebuild that bundle once more, and the "then nothing" step would fail.
 */
function edit(root: string, file: string, change: (text: string) => string): void {
  const target = path.join(root, file);
  const text = fs.readFileSync(target, "utf8");
  const next = change(text);
  expect(next, `edit of ${file}`).not.toBe(text);
  fs.writeFileSync(target, next);
  afterClockTick(root, target);
}

/** Returns once a file written in the agent's parent folder gets a later time than `file`'s change time. */
function afterClockTick(root: string, file: string): void {
  const written = fs.statSync(file, { bigint: true }).ctimeNs;
  const probe = path.join(path.dirname(root), "clock-probe");
  for (let tries = 0; tries < 10_000; tries++) {
    fs.writeFileSync(probe, "");
    if (fs.statSync(probe, { bigint: true }).mtimeNs > written) return;
  }
  throw new Error("the file system's clock did not move");
}

describe("the bundle cache", () => {
  it("rebuilds nothing when nothing changed, and only the bundles that read a changed file; outputs always equal a cold compile's", async () => {
    const root = path.join(tempDir("al-bundle-cache-"), "agent");
    writeAgent(root);
    expect(await compileCounting(root)).toEqual([COUNT, GREET, PING]);
    const cold = outputsOf(root);
    expect(cold).toEqual(await coldOutputs(root));

    // Warm: nothing changed, nothing built, the same bytes.
    expect(await compileCounting(root)).toEqual([]);
    expect(outputsOf(root)).toEqual(cold);

    const steps: [string, string, (text: string) => string, string[]][] = [
      ["a definition", "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace("return 1", "return 2"), [COUNT]],
      ["an imported module", "plugins/alpha/ai.assemblyline/util.ts", (t) => t.replace("toUpperCase", "toLowerCase"), [GREET]],
      ["an imported asset", "plugins/alpha/ai.assemblyline/banner.txt", () => "hi there\n", [GREET]],
      ["an entry", "plugins/beta/ai.assemblyline/index.ts", (t) => t.replace('"Ping."', '"Ping the service."'), []],
      ["plugin.json", "plugins/beta/plugin.json", (t) => t.replace("The beta plugin.", "Beta, described anew."), []],
      ["agent.md", "agent.md", (t) => t.replace("  beta: {}", "  beta: {}\n  gamma: {}"), [WAVE]],
    ];
    const pingFile = path.join(root, ".assemblyline", "build", `${PING}.mjs`);
    for (const [what, file, change, rebuilt] of steps) {
      const pingBefore = fs.statSync(pingFile).ino;
      edit(root, file, change);
      expect(await compileCounting(root), what).toEqual(rebuilt);
      // The new artifact links the bundles whose bytes it already held, rather than writing them again.
      expect(fs.statSync(pingFile).ino, what).toBe(pingBefore);
      expect(outputsOf(root), what).toEqual(await coldOutputs(root));
      // And right after, nothing to do.
      expect(await compileCounting(root), `${what}, then nothing`).toEqual([]);
    }
  }, 120_000);

  it("rebuilds every bundle for another toolchain version, with the same bytes", async () => {
    const root = path.join(tempDir("al-bundle-cache-"), "agent");
    writeAgent(root);
    expect(await compileCounting(root, { bundleCacheToolchain: "0.1.0" })).toHaveLength(3);
    const before = outputsOf(root);
    expect(await compileCounting(root, { bundleCacheToolchain: "0.1.0" })).toEqual([]);
    expect(await compileCounting(root, { bundleCacheToolchain: "0.2.0" })).toEqual([COUNT, GREET, PING]);
    expect(outputsOf(root)).toEqual(before);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
  }, 60_000);

  it("a corrupt, truncated or foreign cache file means a cold compile, never a crash or other bytes", async () => {
    const root = path.join(tempDir("al-bundle-cache-"), "agent");
    writeAgent(root);
    await compileCounting(root);
    const expected = outputsOf(root);
    const file = path.join(root, BUNDLE_CACHE_FILE);
    const good = fs.readFileSync(file);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 10] = flipped[flipped.length - 10]! ^ 0xff;
    for (const damaged of [flipped, good.subarray(0, good.length >> 1), Buffer.from("not a cache"), Buffer.alloc(0)]) {
      fs.writeFileSync(file, damaged);
      expect(await compileCounting(root)).toEqual([COUNT, GREET, PING]);
      expect(outputsOf(root)).toEqual(expected);
    }
    // A folder where the file should be: the compile works, and warns that it cannot save the cache.
    fs.rmSync(file);
    fs.mkdirSync(file);
    const result = await compileAgent({ root });
    expect(result.ok).toBe(true);
    expect(outputsOf(root)).toEqual(expected);
  }, 60_000);

  it("is never written through a link out of the agent", async () => {
    const root = path.join(tempDir("al-bundle-cache-"), "agent");
    writeAgent(root);
    const outside = tempDir("al-bundle-cache-outside-");
    fs.mkdirSync(path.join(root, ".assemblyline"), { recursive: true });
    fs.symlinkSync(outside, path.join(root, ".assemblyline", "cache"), "dir");
    const result = await compileAgent({ root });
    expect(result.ok).toBe(true);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(result.diagnostics.some((d) => d.severity === "warning" && d.code === "AL6301")).toBe(true);
  }, 60_000);

  it("--no-cache neither reads nor writes it; --check reads it and writes nothing", async () => {
    const root = path.join(tempDir("al-bundle-cache-"), "agent");
    writeAgent(root);
    const counter = countingBuild();
    await compileAgent({ root, cache: false, bundler: counter.build });
    expect(fs.existsSync(path.join(root, BUNDLE_CACHE_FILE))).toBe(false);
    await compileCounting(root);
    const saved = fs.readFileSync(path.join(root, BUNDLE_CACHE_FILE));
    expect(await compileCounting(root, { cache: false })).toEqual([COUNT, GREET, PING]);
    edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace("return 1", "return 3"));
    await compileAgent({ root, check: true, recordInput: () => {} });
    expect(fs.readFileSync(path.join(root, BUNDLE_CACHE_FILE)).equals(saved)).toBe(true);
    expect(BundleCache.load(root).size).toBe(3);
  }, 60_000);

  it("does not keep a bundle whose input changed while esbuild read it", async () => {
    const root = path.join(tempDir("al-bundle-cache-"), "agent");
    writeAgent(root);
    const count = path.join(root, "plugins", "alpha", "ai.assemblyline", "count.ts");
    // The build reads "return 1"; right after it, before the cache is written, the file changes.
    const racing: BuildFunction = async (options) => {
      const result = await esbuild.build(options);
      fs.writeFileSync(count, fs.readFileSync(count, "utf8").replace("return 1", "return 4"));
      return result;
    };
    await compileAgent({ root, bundler: racing });
    // The next compile must see "return 4" in the bundle: count was not kept, so it is rebuilt.
    expect(await compileCounting(root)).toEqual([COUNT]);
    expect(fs.readFileSync(path.join(root, ".assemblyline", "build", `${COUNT}.mjs`), "utf8")).toContain("return 4");
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
  }, 60_000);
});

// The untouched plugins' files the front end proved unchanged by `stat` are handed to the cache
// with their digests (`PluginReuse.verifiedContent`, `CompileOptions` → `BundleCache.load`'s
// `knownContent`), which then asks no `lstat` of them. Only files of plugins whose every probe
// held may be among them: a definition whose `stat` moved in any way must be built again.
describe("the bundle cache after the front end reused plugins (knownContent, knownListing)", () => {
  it("rebuilds a definition whose plugin's record no longer holds, even when only its change time moved, or whose folder has a new name, and writes a cold compile's outputs", async () => {
    const root = path.join(tempDir("al-bundle-cache-"), "agent");
    writeAgent(root);
    // Plugin records are kept only for files older than the racy margin (compiler/plugin-reuse.ts).
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    expect(await compileCounting(root)).toEqual([COUNT, GREET, PING]);
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));

    // alpha changes: beta's record holds, so ping's definition is known by its digest; count is built.
    edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace("return 1", "return 2"));
    expect(await compileCounting(root)).toEqual([COUNT]);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));

    // ping's bytes change with the same size and its modification time put back: only the change
    // time says so. beta's record must not hold, and ping's bundle must not be the stored one.
    const ping = path.join(root, "plugins", "beta", "ai.assemblyline", "ping.ts");
    const before = fs.statSync(ping);
    fs.writeFileSync(ping, fs.readFileSync(ping, "utf8").replace('"pong"', '"gong"'));
    fs.utimesSync(ping, before.atime, before.mtime);
    expect(fs.statSync(ping).size).toBe(before.size);
    afterClockTick(root, ping);
    expect(await compileCounting(root)).toEqual([PING]);
    expect(fs.readFileSync(path.join(root, ".assemblyline", "build", `${PING}.mjs`), "utf8")).toContain('"gong"');
    expect(outputsOf(root)).toEqual(await coldOutputs(root));

    // A new name beside a definition (how an import could resolve otherwise): the folder's listing
    // the compile took (`knownListing`) is the one now, so the bundle that read from it is built again.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    expect(await compileCounting(root)).toEqual([]);
    fs.writeFileSync(path.join(root, "plugins", "beta", "ai.assemblyline", "notes.md"), "Notes.\n");
    afterClockTick(root, path.join(root, "plugins", "beta", "ai.assemblyline", "notes.md"));
    expect(await compileCounting(root)).toEqual([PING]);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
  }, 60_000);
});
