/**
 * Bundles the tsserver plugin (`editor/ts-plugin/index.ts` and the ESM engine it imports) into
 * ONE CommonJS file, `dist/editor/ts-plugin.cjs`: tsserver loads plugins with `require()`.
 * Third-party packages stay `require()`s of this package's own dependencies (npm installs them
 * next to it); our modules are bundled. Part of `npm run build`.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

await build({
  entryPoints: [path.join(root, "editor/ts-plugin/index.ts")],
  outfile: path.join(root, "dist/editor/ts-plugin.cjs"),
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  packages: "external",
  // Our ESM modules find files next to themselves through import.meta.url (the schemas, the
  // package root); in the CommonJS bundle that is the bundle's own location.
  define: { "import.meta.url": "__assemblyLineModuleUrl" },
  banner: { js: 'const __assemblyLineModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  sourcemap: true,
  logLevel: "warning",
});
