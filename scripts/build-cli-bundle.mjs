/**
 * Bundles the `assembly-line` binary's code into one CommonJS file, `dist/cli-bundle/assembly-line.cjs`
 * (issue 14 items 1 and 3; docs/performance.md "The CLI bundle"). Part of `npm run build`, after the JavaScript of `dist/` (`build-dist.mjs`).
 *
 * Node 20 pays for every ES module it loads: resolving its specifier (stat and realpath calls,
 * a package.json lookup), reading it and compiling it, and it has no code cache for ES modules
 * (`module.enableCompileCache` is Node ≥ 22.1). A CommonJS file can be compiled from V8's cached
 * code (`common/code-cache.ts`), so the toolchain's code is one such file:
 *
 * - **One file, initialised on use.** The entry exports four loaders: `run` (the CLI:
 *   `bin/run.ts`, the language server included), `analysisWorker` and `schemaWorker` (the
 *   compile's worker threads' scripts) and `agentWorker` (the language server's whole-agent
 *   analysis). Each loads its module with `import()`, so esbuild wraps every module in an
 *   initialiser that runs on first use: a command still runs only the modules it uses (and
 *   `test/startup/startup-cli.test.ts` checks which, from V8's coverage of those initialisers),
 *   while the file is read and compiled from the code cache once. The entry also exports
 *   `compiler` (`build/compile.ts`), for the host bundle.
 * - **The host bundle**, `host.cjs`: the host commands (`tools`, `search`, `call`, `approve`)
 *   from their own entry (`bin/run-host.ts`, `cli/host-main.ts`), without the compile's code,
 *   whose functions every start of the CLI bundle creates (esbuild hoists them to its top level)
 *   and the code cache holds; it takes the compiler from the CLI bundle when a host command must
 *   compile first (docs/performance.md "The host bundle"). The build fails if it holds a module
 *   of {@link NOT_IN_HOST_BUNDLE}.
 * - **The stubs.** The package's `bin`, `dist/bin/assembly-line.cjs` (a CommonJS file, beside
 *   the unbundled entry `build-dist.mjs` emits), and the worker scripts in `dist/`
 *   (`compiler/analysis-worker-thread.js`, `compiler/validation/schema-worker-thread.js`, which
 *   `compiler/helper-worker.ts` starts; they become small ES modules) install the code cache
 *   (`code-cache.cjs`) with the bundle's folder, give the bundle an importer ({@link IMPORTER}),
 *   and `require` the bundle. The bin answers `--version` (or `-v`) alone first, with
 *   `version.cjs` (`cli/version.ts` bundled alone), before any of that. `build-dist.mjs` (or `tsc`) alone writes the
 *   unbundled worker scripts back (still correct, only slower to start) until this script runs
 *   again; the bin keeps running the last bundle this script wrote.
 * - **`import()`** inside a `vm.Script` compiled with cached data fails on Node 20 (and warns
 *   that it is experimental), so the bundle's dynamic imports of what stays outside it (npm
 *   packages loaded on few paths, a tool's bundle, a configuration file, the language server)
 *   call the stub's importer instead: an `import()` in an ES module, resolving a relative
 *   specifier against the bundle's own folder. The build fails if one is left.
 * - **npm packages**: the few every host command loads are joined in ({@link BUNDLED_PACKAGES});
 *   the rest are `require`d (or imported) from `node_modules/`, as before, except TypeScript:
 *   the parser loads a minified copy of ts-morph's TypeScript written beside the bundle
 *   (`typescript.cjs`, see below), which the stubs name to the code cache.
 * - **All ASCII**: the bundle and the copy hold only ASCII characters, so the code cache reads
 *   them as Latin-1 bytes rather than through Node's UTF-8 decoder (see {@link asciiOnly}).
 * - `import.meta.url` in a bundled module is replaced by the URL of that module's own file in
 *   `dist/` (e.g. `dist/runtime-min/sandbox/child-script.js`), so everything a module finds
 *   relative to itself — the prebuilt sandbox child, the package root, `jsonc-parser` —
 *   is found exactly as before. The language server (`editor/lsp/`) is in the bundle too since
 *   helper-101 (see {@link DIST_LAYERS}); its whole-agent analysis worker has a stub like the compile's.
 * - A source map (`assembly-line.cjs.map`) maps the bundle to the TypeScript sources: run with
 *   `node --enable-source-maps` to see source positions in stack traces (the code cache then
 *   leaves the bundle to Node, which reads the map).
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build as esbuildBuild, version as esbuildVersion } from "esbuild";
import { buildIsCurrent, forgetBuildKey, writeBuildKey } from "./build-key.mjs";
import { cliBundleKey, openCliBundleCache } from "./cli-bundle-cache.mjs";
import { typescriptNamesUsed } from "./trim-typescript.mjs";
import { TYPESCRIPT_COPY_OPTIONS, writeTypeScriptCopy } from "./typescript-copy.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, "dist");
const outdir = path.join(dist, "cli-bundle");

/**
 * Layers whose modules stay in `dist/`: none since helper-101 (6 December). The language server
 * (`editor/lsp/`, with the editor engine) used to stay as `build-dist.mjs` built it: 346
 * ES modules of `dist/` to its first diagnostics, the compiler front end among them a second time, read and compiled without
 * a code cache on every start of `assembly-line lsp` (docs/performance.md, "The language
 * server's first diagnostics"). The TypeScript plugin has its own bundle (build-ts-plugin.mjs).
 */
const DIST_LAYERS = [];

/**
 * The compile's worker threads' scripts (compiler/helper-worker.ts starts `<name>.js` beside the
 * module that asks), by the name of the bundle's loader that runs each.
 */
const WORKER_SCRIPTS = {
  analysisWorker: "compiler/analysis-worker-thread.ts",
  schemaWorker: "compiler/validation/schema-worker-thread.ts",
  // The language server's whole-agent analysis (editor/lsp/agent-runner.ts starts it).
  agentWorker: "editor/lsp/agent-worker.ts",
};

/** The global through which the bundle imports what stays outside it (set by every stub). */
const IMPORTER = 'Symbol.for("assembly-line.import")';

/**
 * The host commands, which the bin runs from the host bundle: read from the module
 * `build-dist.mjs` emitted (cli/commands/host-commands.ts, where they are registered), which `npm run build`
 * writes before this script runs.
 */
const { HOST_COMMANDS } = await import(pathToFileURL(path.join(dist, "cli", "commands", "host-commands.js")).href);

/** The package's bin (package.json `bin`), written into `dist/bin/` by {@link writeBin}. */
const BIN_STUB = "assembly-line.cjs";

/** How every stub this script writes begins (after the bin's `#!` line). */
const STUB_MARK = "// Written by scripts/build-cli-bundle.mjs";

/**
 * npm packages joined into the bundle, with what they require: the host commands load them on
 * every start, and together they are about 120 CommonJS files (ajv alone is 95); and `yaml`,
 * which every compile loads for agent.md's front matter (74 files: about 20 ms of each compile's
 * start when loaded from node_modules/, docs/performance.md "Thirteenth round"); and
 * better-sqlite3's JavaScript, which every `call` loads (its native addon stays in its package
 * folder: the state store names it, `runtime-min/state/state-store.ts`); and secretlint's preset,
 * which every compile that reports a diagnostic loads to mask them (an ES module, compiled at
 * every start outside the bundle: about 22 ms; `compiler/config/secret-scan.ts`). cosmiconfig is joined
 * but what it loads lazily stays out ({@link COSMICONFIG_LAZY}). Every other package — large and
 * used on few paths (typescript, esbuild, the token encoder) — is imported from `node_modules/`.
 */
const BUNDLED_PACKAGES = new Set(["commander", "ajv", "ajv-formats", "ssri", "minisearch", "picomatch", "canonicalize", "picocolors", "fastest-levenshtein", "yaml", "cosmiconfig", "better-sqlite3", "@secretlint/secretlint-rule-preset-recommend"]);

/**
 * What cosmiconfig (bundled: every command searches the project configuration with it) loads
 * only inside a loader we do not use or on a fallback path (`import-fresh`, when `import()` of a
 * JavaScript configuration fails): left in `node_modules/` and `require`d when asked, resolved
 * from cosmiconfig's own folder as before (`__alCosmiconfigRequire` in the banner), since they
 * are its dependencies, not ours, and may be installed only beside it. Its `import()` of a
 * JavaScript configuration goes through the stub's importer like the bundle's own (the rewrite
 * below).
 */
const COSMICONFIG_LAZY = new Set(["import-fresh", "parse-json", "js-yaml", "typescript"]);

/** cosmiconfig's loaders, whose `require`s of {@link COSMICONFIG_LAZY} are rewritten. */
const COSMICONFIG_LOADERS = path.join("node_modules", "cosmiconfig", "dist", "loaders.js");


const posix = (file) => file.split(path.sep).join("/");

/** The source file of a relative import: `./x.js` names `./x.ts` in the sources. */
function sourceOf(importer, specifier) {
  const target = path.resolve(path.dirname(importer), specifier);
  if (target.endsWith(".js")) {
    const ts = `${target.slice(0, -3)}.ts`;
    if (fs.existsSync(ts)) return ts;
  }
  return target;
}

/** The file `build-dist.mjs` emitted for a source file of the repository. */
function emitted(source) {
  return path.join(dist, path.relative(root, source)).replace(/\.ts$/, ".js");
}

/** Keeps the language server (`editor/`) in `dist/` and gives each bundled module its own `import.meta.url`. */
const keepLayout = {
  name: "keep-layout",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.importer.includes(`${path.sep}node_modules${path.sep}cosmiconfig${path.sep}`) && COSMICONFIG_LAZY.has(args.path)) return { path: args.path, external: true };
      if (args.path.startsWith("node:") || args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const name = args.path.startsWith("@") ? args.path.split("/").slice(0, 2).join("/") : args.path.split("/")[0];
      return BUNDLED_PACKAGES.has(name) ? undefined : { path: args.path, external: true };
    });
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!args.importer.startsWith(root + path.sep) || args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = sourceOf(args.importer, args.path);
      const relative = posix(path.relative(root, source));
      const layer = relative.split("/")[0];
      if (!DIST_LAYERS.includes(layer)) return undefined;
      let target = posix(path.relative(outdir, emitted(source)));
      if (!target.startsWith(".")) target = `./${target}`;
      return { path: target, external: true };
    });
    build.onLoad({ filter: /[\\/]cosmiconfig[\\/]dist[\\/]loaders\.js$/ }, async (args) => {
      if (!args.path.endsWith(COSMICONFIG_LOADERS)) return undefined;
      let contents = await fs.promises.readFile(args.path, "utf8");
      for (const name of COSMICONFIG_LAZY) {
        const call = `require('${name}')`;
        if (!contents.includes(call)) throw new Error(`scripts/build-cli-bundle.mjs: cosmiconfig's loaders changed: ${args.path} no longer holds ${call}`);
        contents = contents.replaceAll(call, `__alCosmiconfigRequire('${name}')`);
      }
      // cosmiconfig parses every JSON file it finds with parse-json, whose first use loads it and
      // five more packages (@babel/code-frame among them): about 30–80 ms of every command run
      // where the working directory holds a package.json (its meta configuration search reads
      // it). parse-json returns what JSON.parse returns; only its errors are its own. So JSON.parse
      // first, and parse-json only for a text JSON.parse rejects, which then throws its error.
      const parseJsonLoad = "parseJson = __alCosmiconfigRequire('parse-json');";
      if (!contents.includes(parseJsonLoad)) throw new Error(`scripts/build-cli-bundle.mjs: cosmiconfig's loaders changed: ${args.path} no longer holds ${parseJsonLoad}`);
      contents = contents.replace(
        parseJsonLoad,
        "parseJson = (text, ...rest) => { try { return JSON.parse(text); } catch { return __alCosmiconfigRequire('parse-json')(text, ...rest); } };",
      );
      return { contents, loader: "js" };
    });
    build.onLoad({ filter: /\.ts$/ }, withOwnModuleUrl);
  },
};

/**
 * esbuild `onLoad` of a TypeScript source of the repository: its text with `import.meta.url`
 * replaced by `__alModuleUrl("<the module's own file in dist/, relative to the bundle's folder>")`
 * (the banner defines `__alModuleUrl`), so a bundled module finds the files beside its own.
 */
async function withOwnModuleUrl(args) {
  if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
  const text = await fs.promises.readFile(args.path, "utf8");
  const own = posix(path.relative(outdir, emitted(args.path)));
  // (Not inside a string literal on its line: an odd number of double quotes before it.)
  const contents = text.replace(/\bimport\.meta\.url\b/g, (match, offset) => {
    const before = text.slice(text.lastIndexOf("\n", offset) + 1, offset);
    return (before.split('"').length - 1) % 2 === 1 ? match : `__alModuleUrl(${JSON.stringify(own)})`;
  });
  return { contents, loader: "ts" };
}

/**
 * The up-to-date check (`./build-key.mjs`, as `tsc -b` has one): every file esbuild and this
 * script read, the folders holding them, and every file this script wrote are recorded in
 * `build-key.json` beside the bundle; when all of them are as recorded (and this script, esbuild
 * and Node are the same), the build is skipped, about 5 s of every `npm test`'s pretest build and
 * of every `npm pack`. `--force` builds anyway.
 */
const keyFile = path.join(outdir, "build-key.json");
const requireForKey = createRequire(import.meta.url);
const installedTypeScriptFile = createRequire(createRequire(requireForKey.resolve("ts-morph")).resolve("@ts-morph/common")).resolve("./typescript.js");
const keyStamp = { esbuild: esbuildVersion, node: process.version };
// package.json and the lock: a dependency changed (its resolution included) changes the lock.
const scriptInputs = [fileURLToPath(import.meta.url), fileURLToPath(new URL("./build-key.mjs", import.meta.url)), fileURLToPath(new URL("./trim-typescript.mjs", import.meta.url)), fileURLToPath(new URL("./typescript-copy.mjs", import.meta.url)), fileURLToPath(new URL("./cli-bundle-cache.mjs", import.meta.url)), path.join(dist, "cli", "commands", "host-commands.js"), installedTypeScriptFile, path.join(root, "package.json"), path.join(root, "package-lock.json")];
if (!process.argv.includes("--force") && buildIsCurrent(keyFile, keyStamp)) process.exit(0);
forgetBuildKey(keyFile);
/** TypeScript, for the trim of the copy and {@link checkRouted}: loaded only when this run bundles (not when the per-user build answers, below). */
let ts;
const loadTypeScript = async () => (ts ??= (await import("typescript")).default);

/** Every file an esbuild build of this script read (its metafile's inputs), for the key. */
const readByEsbuild = new Set();
/** esbuild's `build`, recording what it read. */
async function build(options) {
  const result = await esbuildBuild({ ...options, metafile: true });
  for (const input of Object.keys(result.metafile?.inputs ?? {})) readByEsbuild.add(path.resolve(options.absWorkingDir ?? process.cwd(), input));
  return result;
}

// Everything but the TypeScript copy and its key (made again only when its source changed, below).
for (const name of fs.existsSync(outdir) ? fs.readdirSync(outdir) : []) if (name !== "typescript.cjs" && name !== "typescript.cjs.key") fs.rmSync(path.join(outdir, name), { recursive: true, force: true });
const bundle = path.join(outdir, "assembly-line.cjs");

/**
 * The bundle's TypeScript: the copy ts-morph embeds (what compiler/static-analysis/typescript.ts
 * loads outside the bundle, resolved the same way), cut down to the parser
 * (scripts/trim-typescript.mjs) and minified by esbuild into `typescript.cjs` beside the bundle:
 * the parser in 0.83 MB instead of 9 MB, so every process that parses reads, checks and
 * deserialises (from the code cache) less (docs/performance.md, "Ninth round", and "Incremental
 * compiles with packaging", thirteenth and fourteenth rounds).
 * Its licence comment stays at its head. The bundle learns where the copy is, relative to the
 * parser module's own file in dist/, and the size of the file it was made from (it loads the
 * installed file instead when that size changed), through `define`.
 */
const requireHere = createRequire(import.meta.url);
const installedTypeScript = createRequire(createRequire(requireHere.resolve("ts-morph")).resolve("@ts-morph/common")).resolve("./typescript.js");
const typescriptCopy = path.join(outdir, "typescript.cjs");
// Only the parser is kept (scripts/trim-typescript.mjs): what the compiler's sources read of `ts`
// and whatever that, and every statement that runs at load, reaches.
const typescriptNames = typescriptNamesUsed(
  fs
    .readdirSync(path.join(root, "compiler"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8")),
);
const trimScript = fileURLToPath(new URL("./trim-typescript.mjs", import.meta.url));
const copyScript = fileURLToPath(new URL("./typescript-copy.mjs", import.meta.url));
// Made again only when what it is made from changed (about 15 s of every build otherwise): the
// installed file (path, size, mtime), esbuild's version and the copy's options, the trimming
// script and the names kept, kept beside the copy. Otherwise copied from the user's per-user
// copy of the same content, or made and kept there (./typescript-copy.mjs): a fresh clone does
// not trim again.
const typescriptSource = fs.statSync(installedTypeScript);
const typescriptKey = JSON.stringify({ source: installedTypeScript, size: typescriptSource.size, mtimeMs: typescriptSource.mtimeMs, esbuild: esbuildVersion, options: TYPESCRIPT_COPY_OPTIONS, trim: fs.readFileSync(trimScript, "utf8"), copy: fs.readFileSync(copyScript, "utf8"), names: typescriptNames });
const typescriptKeyFile = `${typescriptCopy}.key`;
const readIfFile = (file) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);
if (!fs.existsSync(typescriptCopy) || readIfFile(typescriptKeyFile) !== typescriptKey) {
  fs.rmSync(typescriptKeyFile, { force: true });
  // The installed file is among the build key's inputs already (scriptInputs); the trimmed text goes to esbuild on stdin.
  await writeTypeScriptCopy({ installedTypeScript, names: typescriptNames, outfile: typescriptCopy, build: esbuildBuild, esbuildVersion, loadTypeScript });
  fs.writeFileSync(typescriptKeyFile, typescriptKey);
}
const parserModule = emitted(path.join(root, "compiler", "static-analysis", "typescript.ts"));
const typescriptDefines = {
  ASSEMBLY_LINE_TYPESCRIPT_COPY: JSON.stringify(posix(path.relative(path.dirname(parserModule), typescriptCopy))),
  ASSEMBLY_LINE_TYPESCRIPT_SOURCE_BYTES: String(fs.statSync(installedTypeScript).size),
  // The stubs written below, relative to dist/, and how each begins: the toolchain's identity
  // when the bundle runs (cli/inputs-record.ts, bundleStubs).
  ASSEMBLY_LINE_BUNDLE_STUBS: JSON.stringify(JSON.stringify({ mark: STUB_MARK, stubs: [`bin/${BIN_STUB}`, ...Object.values(WORKER_SCRIPTS).map((script) => posix(path.relative(dist, emitted(path.join(root, script)))))] })),
};
/**
 * The files this script writes but the TypeScript copy and the key, absolute: every file of the
 * bundle's folder, the bin and the worker scripts' stubs. A per-user build (./cli-bundle-cache.mjs)
 * writes nothing else.
 */
const isBuildOutput = (file) =>
  (path.dirname(file) === outdir && !["build-key.json", "typescript.cjs", "typescript.cjs.key"].includes(path.basename(file))) ||
  file === path.join(dist, "bin", BIN_STUB) ||
  Object.values(WORKER_SCRIPTS).some((script) => file === emitted(path.join(root, script)));

/**
 * An earlier build wrote the bin as an ES module over the unbundled entry: that stub would load
 * files this build no longer writes, so it goes (the next build that emits the entry writes it back).
 */
function removeOldBin() {
  const oldBin = path.join(dist, "bin", "assembly-line.js");
  if (readIfFile(oldBin)?.replace(/^#![^\n]*\n/, "").startsWith(STUB_MARK)) fs.rmSync(oldBin);
}

// The same build kept per user (./cli-bundle-cache.mjs): a fresh clone of the same sources (the
// pre-commit test's, a new checkout's `pretest`) writes its files instead of bundling, about 5 s
// of CPU, then its key as a build would. `--force` bundles (and keeps the result).
const userBuilds = await openCliBundleCache(root, cliBundleKey(root, keyStamp, process.cwd(), scriptInputs));
const restored = process.argv.includes("--force") ? undefined : userBuilds?.restore(isBuildOutput);
if (restored !== undefined) {
  removeOldBin();
  const kept = fs.readdirSync(outdir).filter((name) => name !== "build-key.json").map((name) => path.join(outdir, name));
  writeBuildKey(keyFile, keyStamp, [...scriptInputs, ...restored.inputs], [...kept, ...restored.written]);
  process.exit(0);
}
await loadTypeScript();

/** What {@link asciiOnly} writes before a non-ASCII character's code point. */
const NON_ASCII_MARK = "<non-ascii ";

/**
 * esbuild turns `import * as path from "node:path"` into `__toESM(require("node:path"), 1)`: a
 * new object with a getter per export, so every `path.join` in the compile's hot loops is a
 * getter call (about 3 % of a cold compile's main-thread samples were property loads, and the
 * getters showed up in profiles). Node's built-in modules never replace their exports, so the
 * bundle takes their values once instead, as plain properties (`__alBuiltin` in the banner): one
 * namespace per module, shared by every module that imports it (`node:fs` was copied 50 times),
 * and an export Node defines with a getter (`fs.promises`, `fs.ReadStream`, …, which load more of
 * Node when first read) stays a getter, read when used (copying `node:fs` read them all: about
 * 1 ms of every start, loading Node's streams and `fs/promises`).
 */
const BUILTIN_NAMESPACE = /__toESM\(require\("(node:[\w/]+)"\)(?:, 1)?\)/g;

/** The banner's lines that define `__alBuiltin` ({@link BUILTIN_NAMESPACE}), in every file this script bundles. */
const BUILTIN_BANNER = [
  // A Node built-in module as a namespace of plain values, one per module (see BUILTIN_NAMESPACE).
  "const __alBuiltins = new Map();",
  "const __alBuiltin = (mod) => { let ns = __alBuiltins.get(mod); if (ns) return ns; ns = { default: mod }; for (const key of Object.getOwnPropertyNames(mod)) { if (key === \"default\") continue; const own = Object.getOwnPropertyDescriptor(mod, key); if (\"value\" in own) ns[key] = own.value; else Object.defineProperty(ns, key, { enumerable: true, get: () => mod[key] }); } __alBuiltins.set(mod, ns); return ns; };",
];

/**
 * `text` with every built-in module's namespace taken once ({@link BUILTIN_NAMESPACE}); throws,
 * failing the build, if one was left (esbuild wrote it in another form).
 */
function builtinsTakenOnce(text, file) {
  const rewritten = text.replace(BUILTIN_NAMESPACE, '__alBuiltin(require("$1"))');
  if (/__toESM\(require\("node:/.test(rewritten)) throw new Error(`scripts/build-cli-bundle.mjs: a built-in module's namespace in ${file} was not rewritten`);
  return rewritten;
}

/** Rewrites the file `file` as {@link builtinsTakenOnce} says (for the small files the stubs load first, where it saves about 2 ms of a `call`'s early start). */
function takeBuiltinsOnce(file) {
  fs.writeFileSync(file, builtinsTakenOnce(fs.readFileSync(file, "utf8"), file));
}

/** The host bundle (see {@link buildBundle}): what the bin runs for these commands. */
const hostBundle = path.join(outdir, "host.cjs");

/**
 * What the host bundle must not hold: the compile itself (its orchestration, the analysis, the
 * schema checks, the lockfile and the packaging of tools) and the editor. It takes the compiler
 * from the CLI bundle when a host command must compile first; the small modules the host
 * commands share with the compile (the project configuration, the token counts, the SRI of a
 * lock) stay in. {@link buildBundle} fails the build if one of these got in.
 */
const NOT_IN_HOST_BUNDLE = ["build/compile.ts", "build/emit-artifact.ts", "compiler/analyze-agent.ts", "compiler/static-analysis/", "compiler/validation/", "lockfile/", "packaging/bundle-tools.ts", "packaging/incremental-bundler.ts", "editor/"];

/**
 * Bundles `entry` (TypeScript, resolved from the repository's root) with what it imports into
 * one CommonJS file, `outfile`: built-in module namespaces taken once ({@link BUILTIN_NAMESPACE}),
 * all ASCII ({@link asciiOnly}), every dynamic import routed to the bin's importer
 * ({@link checkRouted}). Throws, failing the build, when a check fails or the bundle holds a
 * module whose path starts with one of `forbidden`.
 */
async function buildBundle(entry, outfile, forbidden = []) {
  await build({
    stdin: { contents: entry, resolveDir: root, sourcefile: "cli-bundle-entry.ts", loader: "ts" },
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    // All ASCII (non-ASCII characters escaped, outside comments), so that the code cache reads the
    // bundle as Latin-1 without a UTF-8 decode (common/code-cache.ts, readLargeAsciiModules).
    charset: "ascii",
    sourcemap: "linked",
    // The bundled packages' licence comments, in one file beside the bundle.
    legalComments: "linked",
    banner: {
      js: [
        "const __alPath = require(\"node:path\"), __alUrl = require(\"node:url\");",
        // A bundled module's own file in dist/ (its import.meta.url), from the bundle's folder.
        "const __alModuleUrl = (file) => __alUrl.pathToFileURL(__alPath.join(__dirname, file)).href;",
        // What the bundle imports from outside it, through the stub's importer (see above).
        `const __alImport = (specifier) => globalThis[${IMPORTER}](specifier.startsWith(".") ? __alModuleUrl(specifier) : specifier);`,
        // A dependency of cosmiconfig, resolved from cosmiconfig's own folder (see COSMICONFIG_LAZY).
        "const __alCosmiconfigRequire = (id) => require(\"node:module\").createRequire(require.resolve(\"cosmiconfig\"))(id);",
        ...BUILTIN_BANNER,
      ].join("\n"),
    },
    define: typescriptDefines,
    logLevel: "warning",
    plugins: [keepLayout],
  });
  // Every `import(` left in the code (not in a string: a quote, or a name, before it) goes to the importer.
  const code = builtinsTakenOnce(fs.readFileSync(outfile, "utf8"), outfile);
  const ascii = asciiOnly(code, outfile);
  const routed = ascii.replace(/(?<![\w$.'"`])import\(/g, "__alImport(");
  checkRouted(routed, ascii.length === routed.length ? 0 : (routed.length - ascii.length) / "__al".length, outfile);
  const { sources } = JSON.parse(fs.readFileSync(`${outfile}.map`, "utf8"));
  const held = sources.map((source) => posix(path.relative(root, path.resolve(path.dirname(outfile), source)))).filter((source) => forbidden.some((prefix) => source.startsWith(prefix)));
  if (held.length > 0) throw new Error(`scripts/build-cli-bundle.mjs: ${outfile} holds ${held.join(", ")}`);
  fs.writeFileSync(outfile, routed);
}

// The CLI bundle: every command (bin/run.ts), the workers' modules, and the compiler the host
// bundle takes from it.
await buildBundle(
  [
    'export const run = (argv: readonly string[], earlyStart?: import("./runtime-min/execution/early-start.ts").EarlySandboxStart) => import("./bin/run.ts").then((cli) => cli.run(argv, earlyStart));',
    'export const compiler = () => import("./build/compile.ts");',
    'export const sourceMaps = () => import("./packaging/bundle-source-map.ts");',
    ...Object.entries(WORKER_SCRIPTS).map(([name, script]) => `export const ${name} = () => import("./${script}");`),
  ].join("\n"),
  bundle,
);
// The host bundle: the host commands alone (bin/run-host.ts), given the CLI bundle's compiler
// and source maps.
await buildBundle(
  [
    'type EarlySandboxStart = import("./runtime-min/execution/early-start.ts").EarlySandboxStart;',
    'type CliBundle = { compiler: () => Promise<typeof import("./build/compile.ts")>; sourceMaps: () => Promise<typeof import("./packaging/bundle-source-map.ts")> };',
    'export const run = (argv: readonly string[], earlyStart: EarlySandboxStart | undefined, cliBundle: () => CliBundle) =>',
    '  import("./bin/run-host.ts").then((host) => host.runHost(argv, earlyStart, () => cliBundle().compiler(), () => cliBundle().sourceMaps()));',
  ].join("\n"),
  hostBundle,
  NOT_IN_HOST_BUNDLE,
);

/**
 * The bundle's text with every non-ASCII character left (esbuild's `charset: "ascii"` escapes
 * them in code, not in the comments it keeps) written as {@link NON_ASCII_MARK}`U+XXXX>`, so
 * that the file is all ASCII and the code cache reads it as Latin-1 (about 10 ms less per
 * start than Node's UTF-8 decode into a two-byte string). {@link checkRouted} fails the build
 * if a mark landed anywhere but in a comment.
 */
function asciiOnly(text, file) {
  if (text.includes(NON_ASCII_MARK)) throw new Error(`scripts/build-cli-bundle.mjs: ${file} already holds '${NON_ASCII_MARK}'`);
  return text.replace(/[^\x00-\x7f]/gu, (char) => `${NON_ASCII_MARK}U+${char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}>`);
}

/**
 * Checks the rewrites with TypeScript's parser, since text is not code: no `import(` call is
 * left, and every rewrite made a call of the importer (none landed in a string, a template or a
 * comment, where it would have changed the text); no {@link asciiOnly} mark is in a literal, a
 * template or a name (only comments may hold one). Throws, failing the build, otherwise.
 */
function checkRouted(text, rewrites, file) {
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  let imports = 0;
  let calls = 0;
  const marked = [];
  const visit = (node) => {
    if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) imports++;
      else if (ts.isIdentifier(node.expression) && node.expression.text === "__alImport") calls++;
    }
    const token = ts.isLiteralKind(node.kind) || ts.isTemplateLiteralKind(node.kind) || ts.isIdentifier(node) || ts.isPrivateIdentifier(node);
    if (token && node.getText(sourceFile).includes(NON_ASCII_MARK)) marked.push(sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  if (marked.length > 0) throw new Error(`scripts/build-cli-bundle.mjs: a non-ASCII character outside a comment in ${file} (line ${marked.join(", ")}); write it as a \\u escape`);
  if (imports > 0) throw new Error(`scripts/build-cli-bundle.mjs: ${imports} import() left in ${file}`);
  // The banner's own `__alImport` is a definition, not a call.
  if (calls !== rewrites) throw new Error(`scripts/build-cli-bundle.mjs: ${rewrites} import( rewritten in ${file}, but ${calls} calls of the importer: one was not code`);
}

/**
 * Bundles the source file `source` (relative to the repository) with what it imports into one
 * CommonJS file, `outfile`; its `import.meta.url` is the URL of `outfile` itself.
 */
async function buildCommonJs(source, outfile, options = {}) {
  await build({
    entryPoints: [path.join(root, source)],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    logLevel: "warning",
    banner: { js: ['const __alOwnUrl = require("node:url").pathToFileURL(__filename).href;', ...BUILTIN_BANNER].join("\n") },
    define: { "import.meta.url": "__alOwnUrl" },
    ...options,
  });
  takeBuiltinsOnce(outfile);
}

// Before this script wrote CommonJS files for the stubs, they were ES modules of these names.
for (const old of ["code-cache.js", "code-cache.js.map", "version.js"]) fs.rmSync(path.join(outdir, old), { force: true });

// The code cache the stubs install before they load the bundle: one CommonJS file
// (common/code-cache.ts and what it imports) instead of four ES modules from dist/common/. The bin
// `require`s it; the worker stubs load it with `createRequire`.
const codeCache = path.join(outdir, "code-cache.cjs");
await buildCommonJs("common/code-cache.ts", codeCache, { sourcemap: "linked" });

// `cli/version.ts` alone, as a small file of its own: the bin prints `--version` with it,
// without the code cache and the bundle (docs/performance.md, "Start-up": about 20 ms of a 50 ms
// `--version`). The version is still read from package.json when asked, by the same function.
const versionModule = path.join(outdir, "version.cjs");
await buildCommonJs("cli/version.ts", versionModule);

// The early start of `call` (cli/early-call.ts and what it imports), a small file of its own:
// the bin starts the call's sandbox process with it before it loads the bundle (docs/performance.md,
// "`call`: what runs side by side"). Its modules find the prebuilt child entry beside their own
// files in dist/, as in the bundle.
const earlyCallModule = path.join(outdir, "early-call.cjs");
await build({
  entryPoints: [path.join(root, "cli", "early-call.ts")],
  outfile: earlyCallModule,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // The sandbox's child entry bundles itself with esbuild only under the TypeScript sources
  // (runtime-min/sandbox/child-script.ts); from dist/ it is prebuilt, so esbuild is never reached
  // here (and bundling it would only warn about its own `require.resolve`).
  external: ["esbuild"],
  logLevel: "warning",
  banner: { js: ['const __alModuleUrl = (file) => require("node:url").pathToFileURL(require("node:path").join(__dirname, file)).href;', ...BUILTIN_BANNER].join("\n") },
  plugins: [
    {
      name: "own-module-url",
      setup(early) {
        early.onLoad({ filter: /\.ts$/ }, withOwnModuleUrl);
        // What these modules import for what the early start does not call (the diagnostics
        // catalogue, for the runtime's errors) has no effect on import: left out of this file.
        early.onResolve({ filter: /^\.\.?\// }, async (args) => {
          if (args.pluginData?.resolving) return undefined;
          const resolved = await early.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { resolving: true } });
          return resolved.errors.length > 0 ? undefined : { path: resolved.path, sideEffects: false };
        });
      },
    },
  ],
});

takeBuiltinsOnce(earlyCallModule);

/** `target` relative to the folder of `file`, as a specifier (`./x`, `../x`). */
function specifierFrom(file, target) {
  const relative = posix(path.relative(path.dirname(file), target));
  return relative.startsWith(".") ? relative : `./${relative}`;
}

/**
 * The package's bin, `dist/bin/assembly-line.cjs`: a CommonJS file, since an ES module as the
 * entry costs Node's ES module loader and the built-in modules' ES facades (about 4 ms of every
 * start, docs/performance.md "Eighteenth round"). `--version` (or `-v`) alone prints the version
 * first, without the code cache and the bundle (what commander prints for it: the version and a
 * line end, exit code 0); anything else asks first whether this Node.js is supported
 * (`nodeVersionProblem`, from the same small file: one line on stderr and exit code 2 when not), then installs the code cache, which keeps the bundle's entry
 * per kind of run (common/code-cache.ts, commandKind), gives the bundle its importer, starts a
 * \`call\`'s sandbox process early (`early-call.cjs`, handed to the CLI and discarded when it is done)
 * and runs the CLI: a host command ({@link HOST_COMMANDS}) from the host bundle, with a loader of
 * the CLI bundle, anything else from the CLI bundle. The module `build-dist.mjs` emits beside it, `dist/bin/assembly-line.js`, stays the
 * unbundled entry (which starts nothing early).
 */
function writeBin(file) {
  fs.writeFileSync(
    file,
    `#!/usr/bin/env node
${STUB_MARK}: the CLI, run from the bundle (docs/performance.md "The CLI bundle").
"use strict";
const args = process.argv.slice(2);
let version;
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  try {
    version = require(${JSON.stringify(specifierFrom(file, versionModule))}).toolVersion();
  } catch {
    // Commander answers instead, as it would without this shortcut.
  }
}
// Anything else first asks whether this Node.js is one the package supports (its package.json
// "engines", cli/version.ts nodeVersionProblem): an old Node gets one line and exit code 2.
let unsupported;
if (version === undefined) {
  try {
    unsupported = require(${JSON.stringify(specifierFrom(file, versionModule))}).nodeVersionProblem();
  } catch {
    unsupported = undefined;
  }
}
if (version !== undefined) process.stdout.write(\`\${version}\\n\`);
else if (unsupported !== undefined) {
  process.stderr.write(\`assembly-line: \${unsupported}\\n\`);
  process.exitCode = 2;
} else {
  // A \`call\` starts its tool's sandbox process first, so it boots while the CLI loads
  // (cli/early-call.ts). Only a head start: without it the call starts its process as before.
  let early;
  if (args[0] === "call") {
    try {
      early = require(${JSON.stringify(specifierFrom(file, earlyCallModule))}).startCallEarly(args);
    } catch {
      early = undefined;
    }
  }
  const path = require("node:path");
  const { commandKind, installCodeCache } = require(${JSON.stringify(specifierFrom(file, codeCache))});
  // The bin is the process's main thread, which writes the cache (said here: no need to ask worker_threads).
  installCodeCache({ save: true, kind: commandKind(args), folders: [path.join(__dirname, ${JSON.stringify(posix(path.relative(path.dirname(file), outdir)))})], modules: [path.join(__dirname, ${JSON.stringify(posix(path.relative(path.dirname(file), typescriptCopy)))})] });
  globalThis[${IMPORTER}] = (specifier) => import(specifier);
  // The host commands run from the host bundle, which takes the compiler from the CLI bundle
  // only when one of them must compile first (docs/performance.md, "The host bundle").
  const cliBundle = () => require(${JSON.stringify(specifierFrom(file, bundle))});
  const hostCommand = ${JSON.stringify(HOST_COMMANDS)}.includes(args[0]);
  let settled = false;
  (hostCommand ? require(${JSON.stringify(specifierFrom(file, hostBundle))}).run(args, early, cliBundle) : cliBundle().run(args, early))
    .then(
      (code) => {
        settled = true;
        early?.discard();
        process.exitCode = code;
      },
      (error) => {
        settled = true;
        early?.discard();
        throw error;
      },
    );
  // A command whose work never settled when nothing was left to run must not pass for a success
  // (as an ES module's unsettled top-level await exits with 13, which this bin was before). Only
  // when the event loop drains: an explicit \`process.exit\` (the language server's) decides itself.
  process.once("beforeExit", () => {
    if (settled) return;
    early?.discard();
    process.stderr.write("assembly-line: the command stopped before it finished.\\n");
    process.exitCode = 13;
  });
  // Also when something calls \`process.exit\` before the command settled (a project configuration
  // may): the early process ends and the empty run folder it made goes (discard is synchronous).
  if (early !== undefined) process.once("exit", () => early.discard());
}
`,
  );
  fs.chmodSync(file, 0o755);
}

/**
 * A worker's script in dist/ (the module `compiler/helper-worker.ts` starts, an ES module):
 * installs the code cache (the main thread writes it), gives the bundle its importer and runs
 * the worker's module from the bundle with `body`.
 */
function writeWorkerStub(file, body) {
  fs.writeFileSync(
    file,
    `${STUB_MARK}: this worker's script, run from the bundle (docs/performance.md "The CLI bundle").
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const { installCodeCache } = require(${JSON.stringify(specifierFrom(file, codeCache))});
installCodeCache({ save: false, kind: "compile", folders: [fileURLToPath(new URL(${JSON.stringify(`${posix(path.relative(path.dirname(file), outdir))}/`)}, import.meta.url))], modules: [fileURLToPath(new URL(${JSON.stringify(posix(path.relative(path.dirname(file), typescriptCopy)))}, import.meta.url))] });
globalThis[${IMPORTER}] = (specifier) => import(specifier);
const bundle = require(${JSON.stringify(specifierFrom(file, bundle))});
${body}
`,
  );
  fs.rmSync(`${file}.map`, { force: true });
}

writeBin(path.join(dist, "bin", BIN_STUB));
removeOldBin();
const workerStubs = Object.entries(WORKER_SCRIPTS).map(([name, script]) => {
  const file = emitted(path.join(root, script));
  writeWorkerStub(file, `await bundle.${name}();`);
  return file;
});

// The key of this build (see keyFile above): written last, so a build that failed leaves none.
const written = [...fs.readdirSync(outdir).filter((name) => name !== "build-key.json").map((name) => path.join(outdir, name)), path.join(dist, "bin", BIN_STUB), ...workerStubs];
writeBuildKey(keyFile, keyStamp, [...scriptInputs, ...readByEsbuild], written);
userBuilds?.store([...readByEsbuild], written.filter(isBuildOutput));
