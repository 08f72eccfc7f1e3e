/**
 * The `diff` package (word diffs of contract review, the unified diff of `compile --check`),
 * loaded on first use (issue 14 item 1): a compile whose lock needs no diff, the common case,
 * does not pay for loading it. Its package entry has a CommonJS build, so `require` loads it
 * synchronously.
 */
import { createRequire } from "node:module";

let loaded: typeof import("diff") | undefined;

/** The `diff` package's API. */
export function diffPackage(): typeof import("diff") {
  loaded ??= createRequire(import.meta.url)("diff") as typeof import("diff");
  return loaded;
}
