/**
 * Test helper: one ES module file holding a host entry (`cli-entry.ts`) and every repository
 * source it imports, bundled by esbuild from the TypeScript sources, so tests that start many
 * host processes still need no build but stop paying for `ts-loader.mjs` in each of them. Through
 * the loader a process resolves and loads about 150 modules one by one over the hooks thread and
 * compiles each as its own ES module: a `call` of the echo tool costs about 0.87 s of CPU that
 * way, against 0.62 s from the bundle (mean of five each, side by side).
 *
 * The bundle runs the same code the loader would: the same esbuild transform of each file
 * (TypeScript stripped, target node20, no tsconfig read, as `ts-loader.mjs` transforms), packages
 * left to Node to load from node_modules, dynamic imports of sources still evaluated only when
 * reached. What a bundle would change is where a module thinks it is: each file's
 * `import.meta.url` is replaced by its own source file's URL, so what it finds beside itself (the
 * package root, a prebuilt sandbox entry, `createRequire`) is what it finds from the sources. A
 * source that uses any other `import.meta` property fails the bundle, rather than silently
 * getting the bundle's location.
 *
 * The file is written once per content into `node_modules/.cache/al-source-bundle/` (inside the
 * repository, so the bundle's package imports resolve from its node_modules), named by a hash of
 * its text: a changed source makes a new file, and processes that bundle side by side write the
 * same bytes (through a temporary file renamed into place).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import { repoRoot } from "../../helpers/temp-tree.js";

const cacheDir = path.join(repoRoot, "node_modules", ".cache", "al-source-bundle");

/** Replaces `import.meta.url` in each repository source with that file's own URL. */
const ownImportMetaUrl: esbuild.Plugin = {
  name: "own-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      const source = fs.readFileSync(args.path, "utf8");
      const contents = source.replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href));
      const other = /\bimport\.meta\b/.exec(contents);
      if (other) {
        throw new Error(`${args.path} uses import.meta other than import.meta.url, which the source bundle would point at the bundle: give it its own replacement in source-bundle.ts.`);
      }
      return { contents, loader: "ts" };
    });
  },
};

/** Bundles `entry` (an absolute path of a TypeScript source) as described above; returns the bundle's absolute path. */
export async function bundleSources(entry: string): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    // What ts-loader.mjs's esbuild.transform uses: no tsconfig.json (its paths and class-field settings).
    tsconfigRaw: "{}",
    write: false,
    logLevel: "silent",
    plugins: [ownImportMetaUrl],
    outfile: path.join(cacheDir, "bundle.mjs"),
  });
  const text = result.outputFiles[0]!.text;
  const file = path.join(cacheDir, `${path.basename(entry, path.extname(entry))}-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.mjs`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(cacheDir, { recursive: true });
    const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    fs.writeFileSync(temporary, text);
    fs.renameSync(temporary, file);
    pruneOlderBundles(file);
  }
  return file;
}

/**
 * Removes this entry's bundles of other sources (`<entry>-<hash>.mjs`) not written for an hour:
 * one is left per change of the sources, about 0.6 MB each (helper-70). A test process of the
 * same run builds the same bytes, so the hour only spares another checkout's run in progress.
 */
function pruneOlderBundles(current: string): void {
  const prefix = `${path.basename(current).replace(/-[0-9a-f]{16}\.mjs$/, "")}-`;
  const cutoff = Date.now() - 60 * 60 * 1000;
  for (const name of fs.readdirSync(cacheDir)) {
    const file = path.join(cacheDir, name);
    if (file === current || !name.startsWith(prefix) || !/^[\w.-]+-[0-9a-f]{16}\.mjs$/.test(name)) continue;
    try {
      if (fs.statSync(file).mtimeMs < cutoff) fs.rmSync(file, { force: true });
    } catch {
      // Gone already (another test process pruned it): nothing to do.
    }
  }
}
