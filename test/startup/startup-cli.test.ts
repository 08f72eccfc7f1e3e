/**
 * Start-up of the real CLI (issue 14 item 3; docs/performance.md): which modules a command
 * loads, and the behaviour that comes with the light paths — `tools` and `search` read the
 * artifact of the configuration's `outDir` (as `call` does), keep token counts in a cache and
 * open no state database; a usage error under a configuration with `format: json` prints JSON.
 * No timing assertions: bench/startup.mjs measures the time.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { TOOL_TOKENS_CACHE_FILE } from "../../build/token-count-cache.js";
import { POOL_THRESHOLD } from "../../compiler/analysis-pool.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { cliPath, runCli, runCliJson } from "../helpers/run-cli.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

interface GeneratorModule {
  generateAgent(dir: string, options: { plugins: number; tools: number }): number;
}
const { generateAgent } = (await import(pathToFileURL(path.join(repoRoot, "bench", "generate-agent.mjs")).href)) as GeneratorModule;

const recorder = path.join(path.dirname(fileURLToPath(import.meta.url)), "helpers", "record-loads.mjs");

const bundle = path.join(repoRoot, "dist", "cli-bundle", "assembly-line.cjs");

/** The host bundle: what the bin runs for the host commands (scripts/build-cli-bundle.mjs; docs/performance.md, "The host bundle"). */
const hostBundle = path.join(repoRoot, "dist", "cli-bundle", "host.cjs");

/** The CLI bundle's minified copy of ts-morph's TypeScript (scripts/build-cli-bundle.mjs): counted as the package `typescript` below. */
const TYPESCRIPT_COPY = "cli-bundle/typescript.cjs";

/**
 * Runs the CLI with every module load recorded; returns the packages (and toolchain modules, as
 * `dist/<layer>/<file>.js`; the bundle's TypeScript as `typescript`) it loaded, and the files in
 * `dist/` it read as modules.
 *
 * The modules run inside the bundles come from V8's coverage, which about doubles the run's CPU
 * (0.3 → 0.8 s for `tools`); `bundleModules: false` leaves it out where a test reads only
 * `files`, or where the same command's bundle modules are checked by another test here.
 */
function loadedBy(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  { bundleModules = true } = {},
): { status: number | null; stdout: string; stderr: string; packages: Set<string>; fromNodeModules: Set<string>; files: string[] } {
  const log = path.join(tempDir("al-loads-"), "loads.txt");
  const coverage = tempDir("al-coverage-");
  // Without the code cache: these runs are instrumented, and their compiled code is not the CLI's.
  const result = spawnSync(process.execPath, ["--import", recorder, cliPath, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", AL_RECORD_LOADS: log, ...(bundleModules ? { NODE_V8_COVERAGE: coverage } : {}), ASSEMBLY_LINE_CODE_CACHE: "0", ...env },
  });
  const lines = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
  // The main thread's loads in their order, then a worker thread's (record-loads.mjs marks them).
  const urls = [...lines.filter((line) => !line.startsWith("worker ")), ...lines.filter((line) => line.startsWith("worker ")).map((line) => line.slice("worker ".length))];
  const packages = new Set<string>();
  /** The packages loaded from their own files in node_modules/ (not run inside a bundle). */
  const fromNodeModules = new Set<string>();
  for (const url of urls) {
    const inModules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (inModules) packages.add(inModules[1]!);
    if (inModules) fromNodeModules.add(inModules[1]!);
    const inDist = /\/dist\/(.+)$/.exec(url);
    if (inDist && !inModules) packages.add(inDist[1] === TYPESCRIPT_COPY ? "typescript" : `dist/${inDist[1]}`);
  }
  for (const module of initialisedInBundle(coverage)) packages.add(module);
  // Each file once, where first seen: the bin, a CommonJS file, is recorded as the main module (Node
  // runs it through the ES module loader when `--import` is given) and again from the require cache.
  const files = [...new Set(urls.flatMap((url) => (/\/node_modules\//.test(url) ? [] : (/\/dist\/(.+)$/.exec(url)?.[1] ?? []))))];
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, packages, fromNodeModules, files };
}

/** The repository's own modules (not npm packages) a bundle holds, by its source map: paths relative to the repository. */
function ownModules(file: string): string[] {
  const map = JSON.parse(fs.readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
  return map.sources.map((source) => path.relative(repoRoot, path.resolve(path.dirname(file), source)).split(path.sep).join("/")).filter((source) => !source.includes("node_modules/") && source !== "cli-bundle-entry.ts");
}

/** A module's initialiser in the CLI bundle (scripts/build-cli-bundle.mjs) is named by its path: `"cli/main.ts"() {`. */
const INITIALISER = /^ {2}"([^"]+)"\(/gm;

/** How a module of the bundle is named here: `dist/<layer>/<file>.js` as tsc emits it, or its npm package's name. */
function moduleName(source: string): string {
  const inModules = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
  return inModules ? inModules[1]! : `dist/${source.replace(/\.ts$/, ".js")}`;
}

/**
 * The modules of the CLI bundle and the host bundle that a process ran, from V8's coverage
 * (`NODE_V8_COVERAGE`): every module of a bundle runs inside an initialiser named by its path,
 * called on first use.
 */
function initialisedInBundle(coverageDir: string): string[] {
  const modules: string[] = [];
  for (const name of fs.readdirSync(coverageDir)) {
    const { result } = JSON.parse(fs.readFileSync(path.join(coverageDir, name), "utf8")) as { result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[] };
    for (const script of result) {
      if (!script.url.endsWith("/cli-bundle/assembly-line.cjs") && !script.url.endsWith("/cli-bundle/host.cjs")) continue;
      for (const fn of script.functions) {
        if (fn.ranges[0]!.count > 0 && /^(?:node_modules\/|[a-z-]+\/).*\.[cm]?[jt]s$/.test(fn.functionName)) modules.push(moduleName(fn.functionName));
      }
    }
  }
  return modules;
}

/** secretlint's recommended preset: the secret scanner of config values and of everything a compile prints. */
const SECRETLINT_PRESET = "@secretlint/secretlint-rule-preset-recommend";

const HEAVY = ["typescript", "ts-morph", "@ts-morph/common", "esbuild", "ajv", "better-sqlite3", "gpt-tokenizer", "chokidar", "@secretlint/secretlint-rule-preset-recommend", "yaml", "diff"];

/**
 * One recorded run (with the bundle modules) per command line, kept for the file: several tests
 * read the same run of the same command on the compiled agent (what it loads, which files it
 * reads as modules), so each command runs once, whichever test asks first.
 */
const recordedRuns = new Map<string, ReturnType<typeof loadedBy>>();
function recordedRun(args: readonly string[]): ReturnType<typeof loadedBy> {
  const key = JSON.stringify(args);
  let run = recordedRuns.get(key);
  if (run === undefined) recordedRuns.set(key, (run = loadedBy(args, agent)));
  return run;
}

/** `call echo` on the compiled agent, as the tests below read it (JSON output). */
const CALL_ECHO = ["call", "echo", "--input", '{"message":"hi"}', "--format", "json", "."] as const;

/**
 * A cold compile (`--no-cache`, bundle modules recorded) of a fresh copy of the support agent,
 * made once for the file: what it loaded is read by the esbuild test and by the CLI bundle test.
 */
let supportCompile: { root: string; run: ReturnType<typeof loadedBy> } | undefined;
function coldSupportCompile(): { root: string; run: ReturnType<typeof loadedBy> } {
  if (supportCompile === undefined) {
    const root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    supportCompile = { root, run: loadedBy(["compile", ".", "--no-cache"], root) };
  }
  return supportCompile;
}

let agent: string;
beforeAll(() => {
  agent = copyAgent(path.join(repoRoot, "examples", "support-agent"));
  expect(runCli(["compile", agent]).status).toBe(0);
  // The first `tools` fills the token-count cache.
  expect(runCli(["tools", agent]).status).toBe(0);
}, 120_000);

describe("what each command loads", () => {
  it("--version (or -v) alone loads only the version module, not the code cache nor the bundle, and prints what commander printed", () => {
    const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
    for (const args of [["--version"], ["-v"]]) {
      // No bundle is loaded (the files below), so no bundle module can run: no coverage needed.
      const run = loadedBy(args, agent, {}, { bundleModules: false });
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
      expect(run.files).toEqual(["bin/assembly-line.cjs", "cli-bundle/version.cjs"]);
      expect([...run.packages].filter((name) => !name.startsWith("dist/"))).toEqual([]);
    }
    // With anything else on the line, commander answers as before (here: the version first).
    const mixed = loadedBy(["--version", "--help"], agent, {}, { bundleModules: false });
    expect(mixed.stdout).toBe(`${version}\n`);
    expect(mixed.files).toContain("cli-bundle/assembly-line.cjs");
  });

  it("--help loads commander and the command definitions only", () => {
    for (const args of [["--help"]]) {
      const run = recordedRun(args);
      expect(run.status).toBe(0);
      expect([...run.packages].filter((name) => !name.startsWith("dist/")).sort()).toEqual(["commander", "fastest-levenshtein", "picocolors"]);
      // Of the layers below cli/, only the target ids of `--target`'s help (compiler/providers/profile.js).
      const below = [...run.packages].filter((name) => /^dist\/(build|compiler|runtime-min|lockfile|packaging|editor)\//.test(name));
      expect(below).toEqual(["dist/compiler/providers/profile.js"]);
    }
  });

  it("tools and search load none of Node's own modules they do not use: the ES module loader's module jobs, fs streams, Web Crypto, zlib, worker threads", () => {
    // The bin is a CommonJS file, and a built-in module's getters (fs.ReadStream, crypto.webcrypto, ...)
    // are read only when used (scripts/build-cli-bundle.mjs, __alBuiltin).
    const recorder = path.join(tempDir("al-node-modules-"), "record.cjs");
    fs.writeFileSync(recorder, 'process.on("exit", () => require("node:fs").writeFileSync(process.env.AL_NODE_MODULES, process.moduleLoadList.join("\\n")));\n');
    for (const args of [["tools", "."], ["search", "echo", "."]]) {
      // Twice: the code cache's entries for this command line (its flags name them) are written by the first run.
      let loaded: string[] = [];
      for (let run = 0; run < 2; run++) {
        const out = path.join(tempDir("al-node-modules-"), "list.txt");
        const result = spawnSync(process.execPath, ["-r", recorder, cliPath, ...args], { cwd: agent, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", AL_NODE_MODULES: out } });
        expect(result.status, result.stderr).toBe(0);
        loaded = fs.readFileSync(out, "utf8").split("\n");
      }
      expect(loaded.length, args.join(" ")).toBeGreaterThan(50);
      // Nor zlib (the code cache's CRC, only for a file changed since its entry) or worker_threads (the bin says it is the main thread).
      const unused = ["NativeModule internal/modules/esm/module_job", "NativeModule internal/fs/streams", "NativeModule internal/crypto/webcrypto", "NativeModule zlib", "NativeModule worker_threads"];
      expect(unused.filter((name) => loaded.includes(name)), args.join(" ")).toEqual([]);
    }
  });

  it("tools and search on a current artifact load no compiler, bundler, validator, database or encoder", () => {
    for (const args of [["tools", "."], ["search", "echo", "."], ["tools", ".", "--format", "json"]]) {
      const run = recordedRun(args);
      expect(run.status, args.join(" ")).toBe(0);
      expect(HEAVY.filter((name) => run.packages.has(name)), args.join(" ")).toEqual([]);
      expect(run.packages.has("dist/build/compile.js"), args.join(" ")).toBe(false);
      // Nor jsonc-parser: a JSON text that parses needs it only to locate a problem.
      expect(run.packages.has("jsonc-parser"), args.join(" ")).toBe(false);
    }
  });

  it("compile of an agent without authored tools loads no esbuild (nothing to bundle), one with a tool does", () => {
    const coreOnly = tempDir();
    fs.writeFileSync(path.join(coreOnly, "agent.md"), "---\nname: core-only\n---\nUse the core tools.\n");
    const support = coldSupportCompile();
    for (const root of [coreOnly, support.root]) {
      const run = root === coreOnly ? loadedBy(["compile", ".", "--no-cache"], root) : support.run;
      expect(run.status, run.stderr).toBe(0);
      expect(fs.existsSync(path.join(root, ".assemblyline", "build", "manifest.json"))).toBe(true);
      expect(run.packages.has("esbuild"), root).toBe(root !== coreOnly);
    }
  }, 120_000);

  it("call on a current artifact loads no compiler, bundler or TypeScript (the sandbox entry is prebuilt)", () => {
    const run = recordedRun(CALL_ECHO);
    expect(run.status, run.stdout).toBe(0);
    expect(JSON.parse(run.stdout).output).toEqual({ message: "hi" });
    expect(["typescript", "ts-morph", "@ts-morph/common", "esbuild", "gpt-tokenizer", "chokidar", "jsonc-parser"].filter((name) => run.packages.has(name))).toEqual([]);
    expect(run.packages.has("dist/build/compile.js")).toBe(false);
  }, 120_000);

  it("every command but the language server runs the toolchain's code from the CLI bundle, compile and its worker included (scripts/build-cli-bundle.mjs)", () => {
    const generated = tempDir("al-worker-loads-");
    // Large enough that the main thread cannot analyse every folder before the worker has loaded
    // (it steals the unclaimed ones; with POOL_THRESHOLD + 2 plugins it once took them all under
    // load, and the worker was stopped before its script loaded).
    generateAgent(generated, { plugins: POOL_THRESHOLD * 6, tools: 2 });
    const worker = { ASSEMBLY_LINE_ANALYSIS_WORKER: "1" };
    // The runs of --help, tools, search, call and the support agent's cold compile are the ones
    // the tests above read (one process per command line for the file: recordedRun, coldSupportCompile).
    const runs: readonly (readonly [readonly string[], NodeJS.ProcessEnv, () => ReturnType<typeof loadedBy>])[] = [
      [["--help"], {}, () => recordedRun(["--help"])],
      [["tools", "."], {}, () => recordedRun(["tools", "."])],
      [["search", "echo", "."], {}, () => recordedRun(["search", "echo", "."])],
      [CALL_ECHO, {}, () => recordedRun(CALL_ECHO)],
      [["compile", ".", "--no-cache"], {}, () => coldSupportCompile().run],
      // The analysis worker: its script in dist/ (the module the pool starts) runs its module from the bundle.
      [["compile", ".", "--no-package", "--no-cache"], worker, () => loadedBy(["compile", ".", "--no-package", "--no-cache"], generated, worker)],
    ];
    for (const [args, env, runOf] of runs) {
      const run = runOf();
      expect(run.status, `${args.join(" ")}: ${run.stderr}`).toBe(0);
      // The bin, the code cache it installs, then the bundle: not one of the other modules tsc emitted.
      expect(run.files[0], args.join(" ")).toBe("bin/assembly-line.cjs");
      // A compile parses with the bundle's minified TypeScript, never the installed file; a call
      // first starts its sandbox process with the early start's own small file (cli/early-call.ts).
      // A host command on a current artifact runs from the host bundle alone.
      const parses = args[0] === "compile";
      const calls = args[0] === "call";
      const host = ["tools", "search", "call"].includes(args[0]!);
      const runs = host ? "cli-bundle/host.cjs" : "cli-bundle/assembly-line.cjs";
      // The bin first asks whether this Node.js is supported (cli/version.ts, its own small file).
      expect(run.files.indexOf("cli-bundle/version.cjs"), args.join(" ")).toBeLessThan(run.files.indexOf("cli-bundle/code-cache.cjs"));
      expect(new Set(run.files.slice(1)), args.join(" ")).toEqual(new Set(["cli-bundle/version.cjs", ...(calls ? ["cli-bundle/early-call.cjs"] : []), "cli-bundle/code-cache.cjs", runs, ...(parses ? [TYPESCRIPT_COPY] : []), ...(env === worker ? ["compiler/analysis-worker-thread.js"] : [])]));
      if (calls) expect(run.files[2], args.join(" ")).toBe("cli-bundle/early-call.cjs");
      expect(run.files.indexOf("cli-bundle/code-cache.cjs"), args.join(" ")).toBeLessThan(run.files.indexOf(runs));
      expect(run.packages.has("@ts-morph/common"), args.join(" ")).toBe(false);
      // The support agent's config values are scanned for secrets with secretlint's preset, which
      // runs from the CLI bundle (its code from the code cache), not as an ES module Node 20
      // compiles at every start (compiler/config/secret-scan.ts).
      if (parses && env !== worker) expect([run.packages.has(SECRETLINT_PRESET), run.fromNodeModules.has(SECRETLINT_PRESET)], args.join(" ")).toEqual([true, false]);
      if (env === worker) expect(run.packages.has("dist/compiler/analysis-worker-thread.js")).toBe(true);
    }
  }, 120_000);

  it("every toolchain module of the CLI bundle and the host bundle runs inside an initialiser named by its path (what the tests above read)", () => {
    for (const file of [bundle, hostBundle]) {
      const code = fs.readFileSync(file, "utf8");
      const initialisers = new Set([...code.matchAll(INITIALISER)].map((match) => match[1]!));
      const own = ownModules(file);
      expect(own.length, file).toBeGreaterThan(100);
      expect(own.filter((source) => !initialisers.has(source)), file).toEqual([]);
      // And every dynamic import goes through the bin's importer (the build checks it too).
      expect(code.match(/(?<![\w$'"`])import\(/g), file).toBeNull();
    }
  });

  it("the host bundle holds no compile: no analysis, schema checks, lockfile, packaging of tools nor editor (the build checks it too)", () => {
    const own = ownModules(hostBundle);
    const compile = own.filter((source) => /^(?:build\/(?:compile|emit-artifact)\.ts|compiler\/(?:analyze-agent\.ts|static-analysis\/|validation\/)|lockfile\/|packaging\/(?:bundle-tools|incremental-bundler)\.ts|editor\/)/.test(source));
    expect(compile).toEqual([]);
    // What it does hold: the host commands' entry and the runtime.
    expect(own).toEqual(expect.arrayContaining(["cli/host-main.ts", "runtime-min/runtime.ts", "runtime-min/catalog-view.ts"]));
    expect(own).not.toContain("cli/main.ts");
    // The CLI bundle holds everything, the host commands' entry aside.
    expect(ownModules(bundle)).toEqual(expect.arrayContaining(["cli/main.ts", "build/compile.ts", "runtime-min/runtime.ts"]));
  });

  it("the early start of a call (early-call.cjs, loaded before the sandbox process is spawned) holds no diagnostics catalogue and nothing of the compiler", () => {
    // esbuild names each module it joins in a `// path` line (the file has no source map).
    const modules = [...fs.readFileSync(path.join(repoRoot, "dist", "cli-bundle", "early-call.cjs"), "utf8").matchAll(/^\/\/ ((?:cli|common|compiler|diagnostics|runtime-min|build|lockfile|contract)\/[\w./-]+\.ts)$/gm)].map((match) => match[1]);
    expect(modules).toEqual(expect.arrayContaining(["cli/early-call.ts", "runtime-min/execution/early-start.ts", "runtime-min/sandbox/sandbox-spawn.ts", "runtime-min/execution/workspace.ts"]));
    expect(modules.filter((module) => /^(?:diagnostics|compiler|build|lockfile)\//.test(module!))).toEqual([]);
  });

  it("a changed input still compiles first (the inputs record no longer holds)", () => {
    // A copy of the agent compiled in beforeAll (its artifact current) instead of a compile of a new copy.
    const root = path.join(tempDir("al-agent-"), path.basename(agent));
    fs.cpSync(agent, root, { recursive: true, preserveTimestamps: true });
    const echo = path.join(root, "plugins/example/ai.assemblyline");
    for (const file of ["index.ts", "echo.ts"]) fs.writeFileSync(path.join(echo, file), fs.readFileSync(path.join(echo, file), "utf8").replace("Echo a message back to the caller.", "Echo it back."));
    const run = loadedBy(["tools", ".", "--format", "json"], root);
    expect(run.status).toBe(0);
    // The compile driver ran (build/compile.js), from the CLI bundle the host bundle loaded for it, and the lock moved on.
    expect(run.packages.has("dist/build/compile.js")).toBe(true);
    expect(run.files).toEqual(expect.arrayContaining(["cli-bundle/host.cjs", "cli-bundle/assembly-line.cjs"]));
    expect(run.files.indexOf("cli-bundle/host.cjs")).toBeLessThan(run.files.indexOf("cli-bundle/assembly-line.cjs"));
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toContain("Echo it back.");
    expect(JSON.parse(run.stdout).tools.find((tool: { name: string }) => tool.name === "echo").description).toBe("Echo it back.");
  }, 120_000);
});

describe("tools and search", () => {
  it("keep token counts in .assemblyline/cache/tool-tokens.json and count new texts", () => {
    const cache = path.join(agent, TOOL_TOKENS_CACHE_FILE);
    const counts = () => (runCliJson(["tools", agent]).json as { tools: { name: string; tokens: number }[]; tokens: number });
    const before = counts();
    const stored = JSON.parse(fs.readFileSync(cache, "utf8")) as { encoding: string; counts: Record<string, number> };
    expect(stored.encoding).toBe("o200k_base");
    expect(Object.keys(stored.counts)).toHaveLength(before.tools.length);
    // The cached counts are the ones printed: a planted count shows up...
    const planted = { ...stored, counts: Object.fromEntries(Object.entries(stored.counts).map(([key, value]) => [key, value + 1000])) };
    fs.writeFileSync(cache, JSON.stringify(planted));
    expect(counts().tokens).toBe(before.tokens + 1000 * before.tools.length);
    // ...and a cache of another encoding, or a damaged one, is ignored and rewritten.
    fs.writeFileSync(cache, JSON.stringify({ ...planted, encoding: "cl100k_base" }));
    expect(counts().tokens).toBe(before.tokens);
    fs.writeFileSync(cache, "{");
    expect(counts().tokens).toBe(before.tokens);
    expect(JSON.parse(fs.readFileSync(cache, "utf8")).counts).toEqual(stored.counts);
  });

  it("without --run open no state database; with --run they use the run's state", () => {
    const root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    expect(runCli(["tools", root]).status).toBe(0);
    expect(runCli(["search", "echo", root]).status).toBe(0);
    expect(fs.existsSync(path.join(root, ".assemblyline", "state.db"))).toBe(false);
    expect(runCli(["tools", root, "--run", "run-1"]).status).toBe(0);
    expect(fs.existsSync(path.join(root, ".assemblyline", "state.db"))).toBe(true);
  }, 120_000);

  it("read the artifact of the configuration's outDir, like call", () => {
    const root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    fs.writeFileSync(path.join(root, "assembly-line.config.json"), '{ "outDir": "build-out" }\n');
    expect(runCli(["compile", root]).status).toBe(0);
    expect(fs.existsSync(path.join(root, "build-out", "manifest.json"))).toBe(true);
    for (const command of [["tools", root], ["search", "echo", root]]) {
      expect(runCli(command).status, command[0]).toBe(0);
    }
    // Nothing was compiled into the default place: they used build-out.
    expect(fs.existsSync(path.join(root, ".assemblyline", "build"))).toBe(false);
    // And they verify that artifact: a bundle changed there is refused.
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "build-out", "manifest.json"), "utf8")) as { surfaces: Record<string, { tools: Record<string, { bundle: string }> }> };
    const bundle = path.join(root, "build-out", manifest.surfaces["."]!.tools["echo"]!.bundle);
    fs.appendFileSync(bundle, "\n// changed\n");
    for (const command of [["tools", root], ["search", "echo", root]]) {
      const run = runCliJson(command);
      expect(run.status, command[0]).toBe(1);
      expect(run.json.diagnostics[0]).toMatchObject({ code: "AL8012" });
    }
    // --no-project-config: the default artifact place again (compiled first).
    expect(runCli(["tools", root, "--no-project-config"]).status).toBe(0);
    expect(fs.existsSync(path.join(root, ".assemblyline", "build", "manifest.json"))).toBe(true);
  }, 120_000);
});

describe("a usage error under a configuration that sets format: json", () => {
  it("prints the one JSON document compile would print (AL9001, exit 2)", () => {
    const root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    fs.writeFileSync(path.join(root, "assembly-line.config.json"), '{ "format": "json" }\n');
    const inside = runCli(["compile", "--max-warnings", "many"], { cwd: root });
    expect(inside.status).toBe(2);
    expect(JSON.parse(inside.stdout)).toMatchObject({ ok: false, diagnostics: [{ code: "AL9001" }] });
    const byRoot = runCli(["compile", root, "--target", "nope"]);
    expect(byRoot.status).toBe(2);
    expect(JSON.parse(byRoot.stdout)).toMatchObject({ ok: false, diagnostics: [{ code: "AL9001" }] });
    // --format and --no-config still decide.
    expect(runCli(["compile", root, "--target", "nope", "--format", "pretty"]).stdout).toBe("");
    expect(runCli(["compile", root, "--no-config", "--target", "nope"]).stdout).toBe("");
  });
});
