/**
 * Whether this code runs from the CLI bundle (`dist/cli-bundle/assembly-line.cjs`, made by
 * scripts/build-cli-bundle.mjs) through its own stubs — the bin and the worker threads' scripts
 * in `dist/` — and which stubs those are. The toolchain's identities (the inputs record's,
 * `cli/inputs-record.ts`; the analysis cache's, `compiler/static-analysis/analysis-cache.ts`)
 * then stand for the code that runs with the bundle's folder and the stubs, instead of listing
 * and `stat`ing the ~200 files `dist/` holds for the layers, which do not run (issue 14 item 3;
 * docs/performance.md, "The test suite's budget", helper-98).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Inside the CLI bundle (esbuild's `define`, scripts/build-cli-bundle.mjs): JSON of the stubs in
 * `dist/` that start it (the bin and the worker threads' scripts, relative to `dist/`) and of
 * `mark`, how each of them begins (after the bin's `#!` line). Not defined outside the bundle
 * (tests, `tsc`'s `dist/`).
 */
declare const ASSEMBLY_LINE_BUNDLE_STUBS: string | undefined;

/**
 * The stubs that start the CLI bundle, as absolute paths under `distRoot` (the `dist/` folder),
 * when this code runs from the bundle and every one of them is still the bundle's stub;
 * `undefined` otherwise: outside the bundle, or when a `tsc` run alone has written a stub back as
 * the unbundled module (whose layers then run). Never throws.
 */
export function bundleStubs(distRoot: string): string[] | undefined {
  if (typeof ASSEMBLY_LINE_BUNDLE_STUBS !== "string") return undefined;
  const defined = JSON.parse(ASSEMBLY_LINE_BUNDLE_STUBS) as { readonly mark: string; readonly stubs: readonly string[] };
  const stubs = defined.stubs.map((stub) => path.join(distRoot, stub));
  for (const stub of stubs) {
    let head: string;
    try {
      const fd = fs.openSync(stub, "r");
      try {
        const buffer = Buffer.alloc(256);
        head = buffer.toString("utf8", 0, fs.readSync(fd, buffer, 0, buffer.length, 0));
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
    if (!head.replace(/^#![^\n]*\n/, "").startsWith(defined.mark)) return undefined;
  }
  return stubs;
}
