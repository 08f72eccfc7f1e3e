/**
 * Bundles the `assembly-line` binary's start-up path into a few ES modules (issue 14 item 3;
 * docs/performance.md "The CLI bundle"). Part of `npm run build`, after `tsc`.
 *
 * Node 20 pays for every ES module it loads: resolving its specifier (stat and realpath calls,
 * a package.json lookup), reading it and compiling it. A host command loads 80–150 of the
 * toolchain's small modules, which costs about a third of `tools` and of a whole `call echo`.
 * esbuild joins them, with code splitting, so each command still loads only what it uses
 * (every `import()` of the sources stays a separate chunk):
 *
 * - Entry: `bin/assembly-line.ts` (bundled from the TypeScript sources, so the result never
 *   depends on what an earlier build left in `dist/`) → `dist/cli-bundle/assembly-line.js`,
 *   chunks beside it. `dist/bin/assembly-line.js` (the package's `bin`) is replaced by a
 *   two-line module that imports it.
 * - The compile path (`build/`, `compiler/`, `packaging/`, `lockfile/`) is bundled too: a compile
 *   loaded ~160 of its modules from `dist/`, each a resolve, a read and a compile (Node 20 has no
 *   code cache for ES modules). What stays as `tsc` built it: `editor/` (the language server,
 *   loaded by `assembly-line lsp` and by the TypeScript plugin) and the worker threads' scripts,
 *   which are found next to the modules that start them and load their own modules from `dist/`.
 * - npm packages: the few every host command loads are joined in ({@link BUNDLED_PACKAGES});
 *   the rest are imported from `node_modules/`, as before.
 * - `import.meta.url` in a bundled module is replaced by the URL of that module's own file in
 *   `dist/` (e.g. `dist/runtime-min/sandbox/child-script.js`), so everything a module finds
 *   relative to itself — the prebuilt sandbox child, the package root, `@babel/code-frame` —
 *   is found exactly as before.
 * - Source maps (`*.js.map`) map the chunks to the TypeScript sources: run with
 *   `node --enable-source-maps` to see source positions in stack traces.
 *
 * `test/startup/startup-cli.test.ts` checks what each command loads from the bundle and that
 * the compile path is still loaded from `dist/`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, "dist");
const outdir = path.join(dist, "cli-bundle");

/** Layers whose modules stay in `dist/`: the language server (editor/), loaded on its own paths. */
const DIST_LAYERS = ["editor"];

/**
 * The compile's worker threads' scripts (compiler/helper-worker.ts starts `<name>.js` beside the
 * module that asks): bundled as entries of their own, sharing chunks with the CLI, and each
 * `dist/` script replaced by a module importing its entry, so a worker loads a few chunks instead
 * of its ~100 modules before it can help.
 */
const WORKER_SCRIPTS = ["compiler/analysis-worker-thread.ts", "compiler/validation/schema-worker-thread.ts"];

/**
 * npm packages joined into the bundle, with what they require: the host commands load them on
 * every start, and together they are about 120 CommonJS files (ajv alone is 95). Every other
 * package — native (better-sqlite3), large and used on few paths (typescript, esbuild, the token
 * encoder), or loading optional tools lazily (cosmiconfig) — is imported from `node_modules/`.
 */
const BUNDLED_PACKAGES = new Set(["commander", "ajv", "ajv-formats", "ssri", "minisearch", "picomatch", "canonicalize", "picocolors", "fastest-levenshtein"]);

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

/** The file `tsc` emitted for a source file of the repository. */
function emitted(source) {
  return path.join(dist, path.relative(root, source)).replace(/\.ts$/, ".js");
}

/** Keeps the compile layers in `dist/` and gives each bundled module its own `import.meta.url`. */
const keepLayout = {
  name: "keep-layout",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
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
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await fs.promises.readFile(args.path, "utf8");
      const own = posix(path.relative(outdir, emitted(args.path)));
      // The module's own file in dist/, resolved against the chunk it ends up in (all chunks sit in outdir).
      // (Not inside a string literal on its line: an odd number of double quotes before it.)
      const contents = text.replace(/\bimport\.meta\.url\b/g, (match, offset) => {
        const before = text.slice(text.lastIndexOf("\n", offset) + 1, offset);
        return (before.split('"').length - 1) % 2 === 1 ? match : `new URL(${JSON.stringify(own)}, import.meta.url).href`;
      });
      return { contents, loader: "ts" };
    });
  },
};

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    "assembly-line": path.join(root, "bin/assembly-line.ts"),
    ...Object.fromEntries(WORKER_SCRIPTS.map((script) => [path.basename(script, ".ts"), path.join(root, script)])),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  // The bundled packages' licence comments, in one file beside the chunks.
  legalComments: "linked",
  // CommonJS packages in ES module chunks: their require() of Node's modules needs a require.
  banner: { js: 'import { createRequire as __alCreateRequire } from "node:module"; const require = __alCreateRequire(import.meta.url);' },
  logLevel: "warning",
  plugins: [keepLayout],
});

// The package's bin: the bundle's entry. `tsc` writes the unbundled entry here again on its next
// run (still correct, only slower to start) until this script runs again.
const bin = path.join(dist, "bin", "assembly-line.js");
fs.writeFileSync(
  bin,
  `#!/usr/bin/env node
// Written by scripts/build-cli-bundle.mjs: the CLI's start-up path, bundled (docs/performance.md).
import "../cli-bundle/assembly-line.js";
`,
);
fs.rmSync(`${bin}.map`, { force: true });

// Each worker script in dist/: its bundled entry (tsc writes the unbundled one back, as for the bin).
for (const script of WORKER_SCRIPTS) {
  const file = emitted(path.join(root, script));
  const entry = posix(path.relative(path.dirname(file), path.join(outdir, `${path.basename(script, ".ts")}.js`)));
  fs.writeFileSync(file, `// Written by scripts/build-cli-bundle.mjs: this worker's bundled entry (docs/performance.md).\nimport "${entry}";\n`);
  fs.rmSync(`${file}.map`, { force: true });
}
