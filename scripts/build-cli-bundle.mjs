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
 * - The compile path stays as `tsc` built it: every module of `build/`, `compiler/`,
 *   `packaging/`, `lockfile/` and `editor/` is imported from `dist/` — except the few the host
 *   commands run on every start ({@link HOST_PATH_MODULES}). Those layers find files next to
 *   themselves (worker scripts, `schemas/`, the authoring API) and make up the toolchain's
 *   identity in the inputs record (cli/inputs-record.ts), so they are not moved.
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

/** Layers whose modules stay in `dist/` (the compile path and the language server). */
const COMPILE_LAYERS = ["build", "compiler", "packaging", "lockfile", "editor"];

/**
 * Modules of those layers that every host command runs (the project configuration's search,
 * the target ids of `--target`'s help, token counts and their cache, bundle integrity): bundled, since loading
 * them from `dist/` would also load a second copy of the diagnostics catalogue they import.
 * Their own `import()`s (the configuration's validator, YAML and JSON parsers) stay in `dist/`.
 */
const HOST_PATH_MODULES = new Set([
  "build/project-config/load-project-config.ts",
  "build/project-config/types.ts",
  "build/token-count-cache.ts",
  "compiler/providers/profile.ts",
  "compiler/providers/tokens.ts",
  "packaging/integrity.ts",
]);

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
      if (!COMPILE_LAYERS.includes(layer) || HOST_PATH_MODULES.has(relative)) return undefined;
      let target = posix(path.relative(outdir, emitted(source)));
      if (!target.startsWith(".")) target = `./${target}`;
      return { path: target, external: true };
    });
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await fs.promises.readFile(args.path, "utf8");
      const own = posix(path.relative(outdir, emitted(args.path)));
      // The module's own file in dist/, resolved against the chunk it ends up in (all chunks sit in outdir).
      const contents = text.replace(/\bimport\.meta\.url\b/g, `new URL(${JSON.stringify(own)}, import.meta.url).href`);
      return { contents, loader: "ts" };
    });
  },
};

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { "assembly-line": path.join(root, "bin/assembly-line.ts") },
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
