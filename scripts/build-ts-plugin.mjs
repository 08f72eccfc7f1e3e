/**
 * Bundles the tsserver plugin (`editor/ts-plugin/index.ts` and the ESM engine it imports) into
 * ONE CommonJS file, `dist/editor/ts-plugin.cjs`: tsserver loads plugins with `require()`.
 * Third-party packages stay `require()`s of this package's own dependencies (npm installs them
 * next to it); our modules are bundled. Part of `npm run build`.
 *
 * What a bundled module finds beside itself, it finds as in `dist/` (as the CLI bundle's do,
 * scripts/build-cli-bundle.mjs): its `import.meta.url` is the URL of its own file in `dist/`
 * (`dist/contract/precompiled-validators.js`, …), so the precompiled ajv validators
 * (`dist/contract/precompiled/`) are loaded instead of compiled, and the parser loads the CLI
 * bundle's minified TypeScript (`dist/cli-bundle/typescript.cjs`, 1.1 MB) instead of ts-morph's
 * 9 MB copy, through the same `define`s the CLI bundle gives `compiler/static-analysis/typescript.ts`
 * (the copy is used only while the installed file has the size it was made from, and only when
 * it exists; else the installed file loads). Before helper-106 the bundle's own URL stood for
 * every module's: both were missed, about 0.35 s of CPU of tsserver's first diagnostics of an
 * entry (docs/performance.md, "The tsserver plugin's first answer").
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, "dist");
const outfile = path.join(dist, "editor/ts-plugin.cjs");
const posix = (file) => file.split(path.sep).join("/");

/** The file `build-dist.mjs` emits for a source file of the repository. */
const emitted = (source) => path.join(dist, path.relative(root, source)).replace(/\.ts$/, ".js");

/**
 * esbuild `onLoad` of a TypeScript source of the repository: its text with `import.meta.url`
 * replaced by `__alModuleUrl("<its own file in dist/, relative to the bundle's folder>")`
 * (the banner defines `__alModuleUrl`). Not inside a string literal on its line (an odd number
 * of double quotes before it), as in scripts/build-cli-bundle.mjs.
 */
const ownModuleUrl = {
  name: "own-module-url",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await fs.promises.readFile(args.path, "utf8");
      const own = posix(path.relative(path.dirname(outfile), emitted(args.path)));
      const contents = text.replace(/\bimport\.meta\.url\b/g, (match, offset) => {
        const before = text.slice(text.lastIndexOf("\n", offset) + 1, offset);
        return (before.split('"').length - 1) % 2 === 1 ? match : `__alModuleUrl(${JSON.stringify(own)})`;
      });
      return { contents, loader: "ts" };
    });
  },
};

// Where the CLI bundle writes the minified parser, and the size of the file it is made from
// (scripts/build-cli-bundle.mjs: `typescriptCopy`, `installedTypeScript`).
const requireHere = createRequire(import.meta.url);
const installedTypeScript = createRequire(createRequire(requireHere.resolve("ts-morph")).resolve("@ts-morph/common")).resolve("./typescript.js");
const parserModule = emitted(path.join(root, "compiler/static-analysis/typescript.ts"));
const typescriptCopy = path.join(dist, "cli-bundle/typescript.cjs");

await build({
  entryPoints: [path.join(root, "editor/ts-plugin/index.ts")],
  outfile,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  packages: "external",
  plugins: [ownModuleUrl],
  define: {
    ASSEMBLY_LINE_TYPESCRIPT_COPY: JSON.stringify(posix(path.relative(path.dirname(parserModule), typescriptCopy))),
    ASSEMBLY_LINE_TYPESCRIPT_SOURCE_BYTES: String(fs.statSync(installedTypeScript).size),
  },
  banner: { js: 'const __alModuleUrl = (own) => require("node:url").pathToFileURL(require("node:path").join(__dirname, own)).href;' },
  sourcemap: true,
  logLevel: "warning",
});
