/**
 * The V8 code cache of CommonJS dependencies (`common/code-cache.ts`, issue 14 item 1): a
 * module loads the same with and without it; the second process uses the cached data; a
 * changed file, a corrupt or foreign cache file and an unsafe folder are never used (and never
 * crash); `ASSEMBLY_LINE_CODE_CACHE=0` turns it off. Each case runs in a fresh Node process
 * against the built module (`dist/`, built by `pretest`), as the CLI installs it.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";
import { cliPath } from "../helpers/run-cli.js";
import { readCacheFile } from "../../common/code-cache.js";

/** The length of a code cache file's format line (`MAGIC` in common/code-cache.ts), before the SHA-256 of its payload. */
const MAGIC_LENGTH = "assembly-line code cache 1\n".length;

const codeCacheModule = pathToFileURL(path.join(repoRoot, "dist", "common", "code-cache.js")).href;

interface Run {
  readonly stats: { file: string; hits: number; misses: number; rejected: number; unchecked: number; asciiReads: number };
  readonly value: unknown;
}

/** A folder with a CommonJS package under node_modules (only those are cached) and a cache folder. */
function setup(source = "module.exports = { answer: 42 };"): { root: string; cacheDir: string; moduleFile: string } {
  const root = tempDir("al-code-cache-");
  const moduleFile = path.join(root, "node_modules", "fixture", "index.js");
  fs.mkdirSync(path.dirname(moduleFile), { recursive: true });
  fs.writeFileSync(path.join(root, "node_modules", "fixture", "helper.js"), "exports.twice = (n) => n * 2;\n");
  fs.writeFileSync(moduleFile, source);
  return { root, cacheDir: path.join(root, "cache"), moduleFile };
}

/** How long before a process starts a file must have changed for its entry to get a stamp (`SETTLED_MS` in common/code-cache.ts). */
const SETTLED_MS = 2000;

/**
 * Waits until each of `files` last changed more than {@link SETTLED_MS} ago, so that every
 * process started from now on stamps its entry. Without it, a run's writing or not depends on
 * how long the runs before it took: one started within 2 s of the fixture's write makes an
 * entry without a stamp, the next run (more than 2 s later on a loaded machine) stamps it again
 * and so writes the cache.
 */
function waitUntilSettled(...files: string[]): void {
  const changed = Math.max(...files.map((file) => fs.statSync(file).ctimeMs));
  const left = changed + SETTLED_MS + 100 - Date.now();
  if (left > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, left);
}

/** Installs the cache in a new process, requires the fixture, prints what happened. */
function run(root: string, cacheDir: string, env: NodeJS.ProcessEnv = {}): Run {
  const script = [
    `const { installCodeCache, codeCacheStats } = await import(${JSON.stringify(codeCacheModule)});`,
    `installCodeCache({ dir: ${JSON.stringify(cacheDir)} });`,
    `const { createRequire } = await import("node:module");`,
    `const value = createRequire(${JSON.stringify(path.join(root, "x.js"))})("fixture");`,
    `process.stdout.write(JSON.stringify({ stats: codeCacheStats(), value }));`,
  ].join("\n");
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, ...env } });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as Run;
}

const FULL_MODULE = [
  `const path = require("node:path");`,
  `const { twice } = require("./helper");`,
  `module.exports = {`,
  `  answer: twice(21),`,
  `  dirname: path.basename(__dirname),`,
  `  filename: path.basename(__filename),`,
  `  resolved: path.basename(require.resolve("./helper")),`,
  `  same: module.exports === exports && this === exports,`,
  `  cached: require.cache[__filename] === module,`,
  `};`,
].join("\n");

describe("the code cache", () => {
  it("keeps one shared file per installation of the toolchain (this module's path), so another checkout's entries are never read", () => {
    const { root, cacheDir } = setup();
    const first = run(root, cacheDir);
    // The same module in another installation: a copy of dist/common/ elsewhere.
    const other = path.join(tempDir("al-code-cache-install-"), "common");
    fs.cpSync(path.join(repoRoot, "dist", "common"), other, { recursive: true });
    const script = [
      `const { installCodeCache, codeCacheStats } = await import(${JSON.stringify(pathToFileURL(path.join(other, "code-cache.js")).href)});`,
      `installCodeCache({ dir: ${JSON.stringify(cacheDir)} });`,
      `const { createRequire } = await import("node:module");`,
      `createRequire(${JSON.stringify(path.join(root, "x.js"))})("fixture");`,
      `process.stdout.write(JSON.stringify(codeCacheStats()));`,
    ].join("\n");
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const stats = JSON.parse(result.stdout) as Run["stats"];
    expect(stats.file).not.toBe(first.stats.file);
    // Its own file: a miss there, though the first installation cached the same fixture.
    expect(stats).toMatchObject({ hits: 0, misses: 1 });
    expect(run(root, cacheDir).stats).toMatchObject({ hits: 1, misses: 0 });
  });

  it("loads a module as Node does, and from the cache in the next process", () => {
    const { root, cacheDir } = setup(FULL_MODULE);
    const expected = { answer: 42, dirname: "fixture", filename: "index.js", resolved: "helper.js", same: true, cached: true };
    const first = run(root, cacheDir);
    expect(first.value).toEqual(expected);
    expect(first.stats).toMatchObject({ hits: 0, misses: 2 });
    expect(fs.existsSync(first.stats.file)).toBe(true);
    expect(path.dirname(first.stats.file)).toBe(cacheDir);
    const second = run(root, cacheDir);
    expect(second.value).toEqual(expected);
    expect(second.stats).toMatchObject({ hits: 2, misses: 0, rejected: 0 });
    // Without the cache, the same exports.
    expect(run(root, cacheDir, { ASSEMBLY_LINE_CODE_CACHE: "0" })).toEqual({ stats: { file: "off", hits: 0, misses: 0, rejected: 0, unchecked: 0, asciiReads: 0 }, value: expected });
  });

  it("keeps a large module in a file of its own, read only when that module loads", () => {
    const large = `module.exports = { size: ${"[" + "1,".repeat(300_000) + "1]"}.length };\n`;
    const { root, cacheDir } = setup(`module.exports = require("./large.js");`);
    fs.writeFileSync(path.join(root, "node_modules", "fixture", "large.js"), large);
    const first = run(root, cacheDir);
    expect(first.value).toEqual({ size: 300_001 });
    expect(first.stats).toMatchObject({ hits: 0, misses: 2 });
    const files = fs.readdirSync(cacheDir).sort();
    expect(files).toHaveLength(2); // the shared file and the large module's own
    const own = files.find((name) => name !== path.basename(first.stats.file))!;
    expect(fs.statSync(path.join(cacheDir, own)).size).toBeGreaterThan(fs.statSync(first.stats.file).size);
    expect(run(root, cacheDir).stats).toMatchObject({ hits: 2, misses: 0 });
  });

  it("reads a file holding one entry so that its cached data is 8-byte aligned, which V8 uses in place (helper-98)", () => {
    // Eight large modules whose paths are 0 to 7 characters longer: their data falls at every
    // alignment in their files.
    const names = Array.from({ length: 8 }, (_, i) => `large${"x".repeat(i)}.js`);
    const { root, cacheDir } = setup(`module.exports = [${names.map((name) => `require("./${name}")`).join(", ")}];`);
    for (const [i, name] of names.entries()) fs.writeFileSync(path.join(root, "node_modules", "fixture", name), `module.exports = ${i} + ${"[" + "1,".repeat(300_000) + "1]"}.length;\n`);
    expect(run(root, cacheDir).value).toEqual(names.map((_, i) => i + 300_001));
    const own = fs.readdirSync(cacheDir).filter((name) => /-[0-9a-f]{16}\.bin$/.test(name));
    expect(own).toHaveLength(8);
    const misaligned = new Set<number>();
    for (const name of own) {
      const file = path.join(cacheDir, name);
      const plain = v8.deserialize(fs.readFileSync(file).subarray(MAGIC_LENGTH + 32)) as [string, number, number, Uint8Array][];
      misaligned.add(plain[0]![3].byteOffset % 8);
      const read = readCacheFile(file) as [string, number, number, Uint8Array][];
      expect(read[0]![3].byteOffset % 8, name).toBe(0);
      expect(Buffer.from(read[0]![3]).equals(Buffer.from(plain[0]![3])), name).toBe(true);
      expect(read[0]!.slice(0, 3)).toEqual(plain[0]!.slice(0, 3));
    }
    // The files did put the data at other alignments (what the reading corrects).
    expect(misaligned.size).toBeGreaterThan(1);
    // And the second run uses every entry.
    expect(run(root, cacheDir).stats).toMatchObject({ hits: 9, misses: 0, rejected: 0 });
  });

  it("reads a large all-ASCII module as bytes, and leaves one with other characters, or of an ES-module package, to Node", () => {
    const body = `[${"1,".repeat(300_000)}1]`;
    const { root, cacheDir } = setup(`module.exports = [require("./ascii.js"), require("./other.js")];`);
    const fixture = path.join(root, "node_modules", "fixture");
    // Read as bytes, the module is compiled already in Node's wrapper (one flat string, helper-98):
    // it gets the wrapper's five arguments as Node's loader gives them.
    const wrapperArguments = "args: [typeof exports, typeof require, module.exports === exports, __filename.endsWith('ascii.js'), __dirname === require('node:path').dirname(__filename)]";
    fs.writeFileSync(path.join(fixture, "ascii.js"), `module.exports = { size: ${body}.length, text: "plain", ${wrapperArguments} };\n`);
    fs.writeFileSync(path.join(fixture, "other.js"), `module.exports = { size: ${body}.length, text: "café ✓" };\n`);
    for (const run_ of [run(root, cacheDir), run(root, cacheDir)]) {
      expect(run_.value).toEqual([{ size: 300_001, text: "plain", args: ["object", "function", true, true, true] }, { size: 300_001, text: "café ✓" }]);
      expect(run_.stats.asciiReads).toBe(1);
    }
    // A .js file of a `"type": "module"` package is Node's to load (or refuse, before Node 20.19).
    const esm = setup(`let value; try { value = require("./esm/big.js").default; } catch (error) { value = error.code; } module.exports = value;`);
    fs.mkdirSync(path.join(esm.root, "node_modules", "fixture", "esm"));
    fs.writeFileSync(path.join(esm.root, "node_modules", "fixture", "esm", "package.json"), '{ "type": "module" }\n');
    fs.writeFileSync(path.join(esm.root, "node_modules", "fixture", "esm", "big.js"), `export default ${body}.length;\n`);
    const withCache = run(esm.root, esm.cacheDir);
    expect(withCache.stats.asciiReads).toBe(0);
    expect(withCache.value).toEqual(run(esm.root, esm.cacheDir, { ASSEMBLY_LINE_CODE_CACHE: "0" }).value);
  });

  it("caches a file named in `modules` as a node_modules module: one entry for every kind of run, read as bytes when large and ASCII (a .cjs file whatever its package says)", () => {
    // The CLI bundle's minified TypeScript is such a file (scripts/build-cli-bundle.mjs).
    const root = tempDir("al-code-cache-modules-");
    const cacheDir = path.join(root, "cache");
    fs.writeFileSync(path.join(root, "package.json"), '{ "type": "module" }\n');
    const vendored = path.join(root, "vendored.cjs");
    fs.writeFileSync(vendored, `module.exports = { size: [${"1,".repeat(300_000)}1].length, file: require("node:path").basename(__filename) };\n`);
    const load = (kind: string): Run => {
      const script = [
        `const { installCodeCache, codeCacheStats } = await import(${JSON.stringify(codeCacheModule)});`,
        // The kind comes as an argument: the script's text is part of the flags that name the cache file.
        `installCodeCache({ dir: ${JSON.stringify(cacheDir)}, kind: process.argv[1], folders: [${JSON.stringify(root)}], modules: [${JSON.stringify(vendored)}] });`,
        `const { createRequire } = await import("node:module");`,
        `const value = createRequire(${JSON.stringify(path.join(root, "x.js"))})(${JSON.stringify(vendored)});`,
        `process.stdout.write(JSON.stringify({ stats: codeCacheStats(), value }));`,
      ].join("\n");
      const result = spawnSync(process.execPath, ["--input-type=module", "-e", script, kind], { encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Run;
    };
    const first = load("compile");
    expect(first.value).toEqual({ size: 300_001, file: "vendored.cjs" });
    expect(first.stats).toMatchObject({ hits: 0, misses: 1, asciiReads: 1 });
    // Another kind of run takes the same entry (a file of the `folders` would have one per kind).
    expect(load("tools").stats).toMatchObject({ hits: 1, misses: 0, asciiReads: 1 });
    expect(fs.readdirSync(cacheDir).filter((name) => /-[0-9a-f]{16}-[a-z-]+\.bin$/.test(name))).toEqual([]);
  });

  it("leaves a small module that imports dynamically to Node (no experimental warning)", () => {
    const { root, cacheDir } = setup(`module.exports = import("./esm.mjs").then((m) => m.default);`);
    fs.writeFileSync(path.join(root, "node_modules", "fixture", "esm.mjs"), "export default 42;\n");
    const script = [
      `const { installCodeCache, codeCacheStats } = await import(${JSON.stringify(codeCacheModule)});`,
      `installCodeCache({ dir: ${JSON.stringify(cacheDir)} });`,
      `const { createRequire } = await import("node:module");`,
      `const value = await createRequire(${JSON.stringify(path.join(root, "x.js"))})("fixture");`,
      `process.stdout.write(JSON.stringify({ stats: codeCacheStats(), value }));`,
    ].join("\n");
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ value: 42, stats: { hits: 0, misses: 0 } });
  });

  it("does not use an entry of a file whose text changed, even at the same length", () => {
    const { root, cacheDir, moduleFile } = setup("module.exports = { answer: 41 };");
    expect(run(root, cacheDir).value).toEqual({ answer: 41 });
    fs.writeFileSync(moduleFile, "module.exports = { answer: 42 };");
    const changed = run(root, cacheDir);
    expect(changed.value).toEqual({ answer: 42 });
    expect(changed.stats).toMatchObject({ hits: 0, misses: 1 });
    expect(run(root, cacheDir).stats).toMatchObject({ hits: 1, misses: 0 });
  });

  it("skips the CRC-32 of a file unchanged since well before the process started, and still sees a change", () => {
    const { root, cacheDir, moduleFile } = setup("module.exports = { answer: 41, twice: require('./helper').twice(1) };");
    // Files changed less than 2 s before a process started get no stamp (the racy-clean rule).
    waitUntilSettled(moduleFile, path.join(root, "node_modules", "fixture", "helper.js"));
    expect(run(root, cacheDir).stats).toMatchObject({ hits: 0, misses: 2, unchecked: 0 });
    expect(run(root, cacheDir).stats).toMatchObject({ hits: 2, misses: 0, unchecked: 2 });
    fs.writeFileSync(moduleFile, "module.exports = { answer: 42, twice: require('./helper').twice(1) };");
    const changed = run(root, cacheDir);
    expect(changed.value).toEqual({ answer: 42, twice: 2 });
    expect(changed.stats).toMatchObject({ hits: 1, misses: 1, unchecked: 1 });
    // The changed file is new: its entry has no stamp yet, so its text is checked.
    expect(run(root, cacheDir).stats).toMatchObject({ hits: 2, misses: 0, unchecked: 1 });
  });

  it("ignores a corrupt, truncated or foreign cache file, and writes a good one", () => {
    const { root, cacheDir } = setup();
    const file = run(root, cacheDir).stats.file;
    const good = fs.readFileSync(file);
    const damaged = [Buffer.from("not a cache"), good.subarray(0, good.length - 10), Buffer.concat([good.subarray(0, 60), Buffer.from([good[60]! ^ 0xff]), good.subarray(61)])];
    for (const bytes of damaged) {
      fs.writeFileSync(file, bytes);
      const again = run(root, cacheDir);
      expect(again.value).toEqual({ answer: 42 });
      expect(again.stats).toMatchObject({ hits: 0, misses: 1 });
      expect(run(root, cacheDir).stats).toMatchObject({ hits: 1, misses: 0 });
    }
  });

  it.skipIf(process.platform === "win32")("does not use a folder others can write to", () => {
    const { root, cacheDir } = setup();
    fs.mkdirSync(cacheDir, { mode: 0o777 });
    fs.chmodSync(cacheDir, 0o777);
    const result = run(root, cacheDir);
    expect(result.value).toEqual({ answer: 42 });
    expect(result.stats.file).toBe("unsafe folder");
    expect(fs.readdirSync(cacheDir)).toEqual([]);
  });

  it("leaves the CLI's output unchanged", () => {
    const agent = tempDir("al-code-cache-agent-");
    fs.cpSync(path.join(repoRoot, "examples", "support-agent"), agent, { recursive: true });
    const compile = (env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [cliPath, "compile", agent, "--no-package", "--no-cache", "--format", "json"], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
    const without = compile({ ASSEMBLY_LINE_CODE_CACHE: "0" });
    expect(without.status).toBe(0);
    const lock = fs.readFileSync(path.join(agent, "plugins.lock"), "utf8");
    for (let i = 0; i < 2; i++) {
      const withCache = compile({});
      expect({ status: withCache.status, stdout: withCache.stdout }).toEqual({ status: without.status, stdout: without.stdout });
      expect(fs.readFileSync(path.join(agent, "plugins.lock"), "utf8")).toBe(lock);
    }
  });

  it("gives the CLI bundle an entry per kind of run: a first --help does not decide what a compile gets", () => {
    const tmp = tempDir("al-code-cache-tmp-");
    // The smallest agent that compiles: the kind of run is named by the command line, and this
    // compile (without a code cache yet) costs about 0.3 s of CPU against 1 s for the example agent.
    const agent = tempDir("al-code-cache-kinds-");
    fs.writeFileSync(path.join(agent, "agent.md"), "---\nname: kinds\ndescription: An agent with no plugins.\n---\n\nHello.\n");
    const cli = (...args: string[]) => spawnSync(process.execPath, [cliPath, ...args], { encoding: "utf8", env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp } });
    const kinds = () => {
      const dir = fs.readdirSync(tmp).find((name) => name.startsWith("assembly-line-code-cache-"));
      return dir === undefined ? [] : fs.readdirSync(path.join(tmp, dir)).flatMap((name) => /-[0-9a-f]{16}-([a-z0-9-]+)\.bin$/.exec(name)?.[1] ?? []).sort();
    };
    expect(cli("compile", "--help").status).toBe(0);
    expect(cli("--version").status).toBe(0);
    expect(kinds()).toEqual(["help"]);
    expect(cli("compile", agent, "--no-package", "--no-cache").status).toBe(0);
    expect(kinds()).toEqual(["compile", "help"]);
  });

  it("deletes the folder's cache files not written for 30 days when it writes (any installation's), and nothing else", () => {
    const { root, cacheDir, moduleFile } = setup();
    fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    // The second run below must write nothing: its entry is stamped by the first one.
    waitUntilSettled(moduleFile);
    const names = {
      stale: "v8-v20.0.0-x64-aaaaaaaaaaaa.bin",
      staleOwn: "v8-v20.0.0-x64-aaaaaaaaaaaa-0123456789abcdef.bin",
      staleTemporary: "v8-v20.0.0-x64-aaaaaaaaaaaa.bin.123.k3j2.tmp",
      recent: "v8-v20.0.0-x64-bbbbbbbbbbbb.bin",
      notOurs: "notes.txt",
    };
    const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000);
    for (const [key, name] of Object.entries(names)) {
      fs.writeFileSync(path.join(cacheDir, name), "x");
      const when = key === "recent" ? daysAgo(29) : daysAgo(31);
      fs.utimesSync(path.join(cacheDir, name), when, when);
    }
    // A first run writes its entries, and prunes.
    expect(run(root, cacheDir).stats).toMatchObject({ misses: 1 });
    const left = fs.readdirSync(cacheDir);
    expect(left).not.toContain(names.stale);
    expect(left).not.toContain(names.staleOwn);
    expect(left).not.toContain(names.staleTemporary);
    expect(left).toContain(names.recent);
    expect(left).toContain(names.notOurs);
    // A run that writes nothing (every module cached) prunes nothing.
    fs.utimesSync(path.join(cacheDir, names.recent), daysAgo(31), daysAgo(31));
    expect(run(root, cacheDir).stats).toMatchObject({ hits: 1, misses: 0 });
    expect(fs.readdirSync(cacheDir)).toContain(names.recent);
  });

  describe("the CLI bundle's folder (the folders option, scripts/build-cli-bundle.mjs)", () => {
    /** Installs the cache with `folders: [bundleDir]`, requires `file`, prints what happened and exits with `exitCode`; `flags` for node, `env` added to its environment. */
    function runBundle(bundleDir: string, cacheDir: string, file: string, flags: readonly string[] = [], kind?: string, compiling = false, exitCode = 0, env: Readonly<Record<string, string>> = {}): { stats: Run["stats"]; value: unknown; twice: Run["stats"] } {
      const script = [
        `const { installCodeCache, codeCacheStats } = await import(${JSON.stringify(codeCacheModule)});`,
        // The kind comes as an argument: the script's text is in the flags that name the cache file.
        `installCodeCache({ dir: ${JSON.stringify(cacheDir)}, folders: [${JSON.stringify(bundleDir)}], kind: process.argv[1] });`,
        // A second copy of the module in the same thread (the bundle holds one): it sees the installation.
        `const copy = await import(${JSON.stringify(`${codeCacheModule}?copy`)});`,
        `copy.installCodeCache({ dir: ${JSON.stringify(path.join(cacheDir, "other"))} });`,
        `const { createRequire } = await import("node:module");`,
        `const value = createRequire(${JSON.stringify(path.join(bundleDir, "x.js"))})(${JSON.stringify(file)});`,
        // Noted by the copy, as the bundle's own copy notes it (cli/ensure-artifact.ts).
        `if (process.argv[2] === "compiling") copy.noteCompilingRun();`,
        `process.stdout.write(JSON.stringify({ stats: codeCacheStats(), value, twice: copy.codeCacheStats() }));`,
        // From the environment: the script's text is in the flags that name the cache file.
        `process.exitCode = Number(process.env.AL_TEST_EXIT_CODE);`,
      ].join("\n");
      const result = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", script, ...(kind === undefined ? [] : [kind]), ...(compiling ? ["compiling"] : [])], { encoding: "utf8", env: { ...process.env, ...env, AL_TEST_EXIT_CODE: String(exitCode) } });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(exitCode);
      return JSON.parse(result.stdout) as { stats: Run["stats"]; value: unknown; twice: Run["stats"] };
    }

    function bundleSetup(): { bundleDir: string; cacheDir: string } {
      const root = tempDir("al-code-cache-bundle-");
      const bundleDir = path.join(root, "dist", "cli-bundle");
      fs.mkdirSync(path.join(bundleDir, "nested"), { recursive: true });
      for (const name of ["bundle.cjs", "other.js", "nested/inner.cjs"]) fs.writeFileSync(path.join(bundleDir, name), `module.exports = { name: ${JSON.stringify(name)}, dir: require("node:path").basename(__dirname) };\n`);
      return { bundleDir, cacheDir: path.join(root, "cache") };
    }

    it("caches its .cjs files as node_modules files, and one installation serves every copy of the module in a thread", () => {
      const { bundleDir, cacheDir } = bundleSetup();
      const first = runBundle(bundleDir, cacheDir, "./bundle.cjs");
      expect(first.value).toEqual({ name: "bundle.cjs", dir: "cli-bundle" });
      expect(first.stats).toMatchObject({ hits: 0, misses: 1 });
      const second = runBundle(bundleDir, cacheDir, "./bundle.cjs");
      expect(second.value).toEqual({ name: "bundle.cjs", dir: "cli-bundle" });
      expect(second.stats).toMatchObject({ hits: 1, misses: 0, rejected: 0 });
      // The copy's call did nothing (no second hook, no second cache folder): it reports the same.
      expect(second.twice).toEqual(second.stats);
      expect(fs.existsSync(path.join(cacheDir, "other"))).toBe(false);
    });

    it("keeps one entry per kind of run, each in its own file, at most MAX_KINDS of them", async () => {
      const { MAX_KINDS } = (await import(codeCacheModule)) as { MAX_KINDS: number };
      const { bundleDir, cacheDir } = bundleSetup();
      const bundleRun = (kind: string) => runBundle(bundleDir, cacheDir, "./bundle.cjs", [], kind).stats;
      // A first `--help` does not decide what a compile gets: each kind misses once, then hits.
      expect(bundleRun("help")).toMatchObject({ hits: 0, misses: 1 });
      expect(bundleRun("compile")).toMatchObject({ hits: 0, misses: 1 });
      expect(bundleRun("compile")).toMatchObject({ hits: 1, misses: 0, rejected: 0 });
      expect(bundleRun("help")).toMatchObject({ hits: 1, misses: 0, rejected: 0 });
      const kindFiles = () => fs.readdirSync(cacheDir).filter((name) => /-[0-9a-f]{16}-[a-z0-9-]+\.bin$/.test(name)).sort();
      expect(kindFiles().map((name) => name.replace(/^.*-[0-9a-f]{16}-/, "")).sort()).toEqual(["compile.bin", "help.bin"]);
      // An invalid kind is "other", never a path.
      expect(bundleRun("../x")).toMatchObject({ hits: 0, misses: 1 });
      expect(kindFiles().some((name) => name.endsWith("-other.bin"))).toBe(true);
      // Beyond MAX_KINDS, the oldest written go.
      const old = new Date(Date.now() - 60_000);
      for (const name of kindFiles()) fs.utimesSync(path.join(cacheDir, name), old, old);
      for (let i = 0; i < MAX_KINDS; i++) bundleRun(`kind-${i}`);
      const left = kindFiles();
      expect(left).toHaveLength(MAX_KINDS);
      expect(left.some((name) => name.endsWith("-compile.bin") || name.endsWith("-help.bin") || name.endsWith("-other.bin"))).toBe(false);
      expect(bundleRun(`kind-${MAX_KINDS - 1}`)).toMatchObject({ hits: 1, misses: 0 });
    });

    it("drops a kind's entry that a run which compiled the agent made, at the first run of the kind that does not compile; a run that compiles keeps it", () => {
      const { bundleDir, cacheDir } = bundleSetup();
      const bundleRun = (compiling: boolean) => runBundle(bundleDir, cacheDir, "./bundle.cjs", [], "tools", compiling).stats;
      const entryFile = () => fs.readdirSync(cacheDir).filter((name) => name.endsWith("-tools.bin"));
      // The first `tools` after an upgrade compiles: its entry is marked.
      expect(bundleRun(true)).toMatchObject({ hits: 0, misses: 1 });
      expect(entryFile()).toHaveLength(1);
      // A dev loop that compiles every time keeps using it.
      expect(bundleRun(true)).toMatchObject({ hits: 1, misses: 0 });
      expect(entryFile()).toHaveLength(1);
      // The first run that does not compile uses it once and drops it.
      expect(bundleRun(false)).toMatchObject({ hits: 1, misses: 0 });
      expect(entryFile()).toEqual([]);
      // The next writes its own, which later runs keep, compiling or not.
      expect(bundleRun(false)).toMatchObject({ hits: 0, misses: 1 });
      expect(bundleRun(false)).toMatchObject({ hits: 1, misses: 0 });
      expect(bundleRun(true)).toMatchObject({ hits: 1, misses: 0 });
      expect(bundleRun(false)).toMatchObject({ hits: 1, misses: 0 });
      expect(entryFile()).toHaveLength(1);
    });

    it("makes a kind's entry from a run that failed provisional: the first later run of the kind that ends well makes it again, with what it ran", () => {
      const { bundleDir, cacheDir } = bundleSetup();
      // A bundle with a long path that only a run given AL_TEST_DEEP takes (a failed run's short path does not).
      const deep = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x.map((y) => y * ${i} + 1).filter((y) => y % 3 !== ${i % 3}).length; }`).join("\n");
      fs.writeFileSync(path.join(bundleDir, "deep.cjs"), `${deep}\nmodule.exports = process.env.AL_TEST_DEEP ? [${Array.from({ length: 200 }, (_, i) => `f${i}([1, 2, 3])`).join(", ")}].length : 0;\n`);
      // Settled before the first run (SETTLED_MS, 2 s): otherwise a run more than 2 s after the
      // write (a slow machine) stamps the entry again, and its bytes change for that reason alone.
      waitUntilSettled(path.join(bundleDir, "deep.cjs"));
      const bundleRun = (exitCode: number, deepPath: boolean) => runBundle(bundleDir, cacheDir, "./deep.cjs", [], "search", false, exitCode, { AL_TEST_DEEP: deepPath ? "1" : "" }).stats;
      const entry = () => {
        const files = fs.readdirSync(cacheDir).filter((name) => name.endsWith("-search.bin"));
        return files.length === 1 ? fs.readFileSync(path.join(cacheDir, files[0]!)) : undefined;
      };
      // `search --limit 0`: exit code 2, a short path. Its entry is written, provisional.
      expect(bundleRun(2, false)).toMatchObject({ hits: 0, misses: 1 });
      const provisional = entry()!;
      // Another failed run uses it and leaves it as it is.
      expect(bundleRun(1, false)).toMatchObject({ hits: 1, misses: 0 });
      expect(entry()).toEqual(provisional);
      // The first run that ends well uses it and makes it again, with the functions it ran too.
      expect(bundleRun(0, true)).toMatchObject({ hits: 1, misses: 0 });
      const made = entry()!;
      expect(made.length).toBeGreaterThan(provisional.length + 5_000);
      // Which is kept from then on, by runs that end well or not.
      expect(bundleRun(0, true)).toMatchObject({ hits: 1, misses: 0 });
      expect(bundleRun(2, false)).toMatchObject({ hits: 1, misses: 0 });
      expect(entry()).toEqual(made);
    });

    it("marks a provisional entry that a compiling run makes again as a compiling run's: the first later run that does not compile drops it (review of 9bd46a7)", () => {
      const { bundleDir, cacheDir } = bundleSetup();
      const bundleRun = (exitCode: number, compiling: boolean) => runBundle(bundleDir, cacheDir, "./bundle.cjs", [], "tools", compiling, exitCode).stats;
      const entryFile = () => fs.readdirSync(cacheDir).filter((name) => name.endsWith("-tools.bin"));
      expect(bundleRun(1, false)).toMatchObject({ hits: 0, misses: 1 });
      expect(entryFile()).toHaveLength(1);
      // The first run that ends well compiles the agent first (a stale artifact): it makes the entry again, marked.
      expect(bundleRun(0, true)).toMatchObject({ hits: 1, misses: 0 });
      expect(entryFile()).toHaveLength(1);
      // The first run that does not compile uses it once and drops it; the next writes its own.
      expect(bundleRun(0, false)).toMatchObject({ hits: 1, misses: 0 });
      expect(entryFile()).toEqual([]);
      expect(bundleRun(0, false)).toMatchObject({ hits: 0, misses: 1 });
      expect(bundleRun(0, false)).toMatchObject({ hits: 1, misses: 0 });
      expect(entryFile()).toHaveLength(1);
    });

    it("leaves its other files, and files of its subfolders, to Node", () => {
      const { bundleDir, cacheDir } = bundleSetup();
      for (const file of ["./other.js", "./nested/inner.cjs"]) {
        for (let i = 0; i < 2; i++) expect(runBundle(bundleDir, cacheDir, file).stats, file).toMatchObject({ hits: 0, misses: 0 });
      }
    });

    it("leaves the bundle to Node when source maps are on (Node reads a module's map in its own compile)", () => {
      const { bundleDir, cacheDir } = bundleSetup();
      for (let i = 0; i < 2; i++) {
        const run = runBundle(bundleDir, cacheDir, "./bundle.cjs", ["--enable-source-maps"]);
        expect(run.value).toEqual({ name: "bundle.cjs", dir: "cli-bundle" });
        expect(run.stats).toMatchObject({ hits: 0, misses: 0 });
      }
    });
  });

  it("names the kind of run of a command line (commandKind)", async () => {
    const { commandKind } = (await import(codeCacheModule)) as { commandKind: (argv: readonly string[]) => string };
    expect(commandKind([])).toBe("help");
    expect(commandKind(["--version"])).toBe("help");
    expect(commandKind(["-v"])).toBe("help");
    expect(commandKind(["help", "compile"])).toBe("help");
    expect(commandKind(["compile", "--help"])).toBe("help");
    expect(commandKind(["compile", ".", "--no-package"])).toBe("compile");
    expect(commandKind(["call", "echo", "--", "--help"])).toBe("call");
    expect(commandKind(["add-plugin"])).toBe("add-plugin");
    expect(commandKind(["../compile"])).toBe("other");
    expect(commandKind(["Compile"])).toBe("other");
  });
});
