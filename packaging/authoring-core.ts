/**
 * Where the authoring API that tool code imports as `@assemblyline-agents/core` lives, so every
 * bundle carries its own copy (DESIGN §6: self-contained bundles).
 *
 * The module is found relative to this file: `../runtime-min/authoring/index.ts` when the
 * toolchain runs from source (vitest), `../runtime-min/authoring/index.js` when it runs from
 * `dist/`. Both bundle to the same bytes (tsc only erases types; esbuild reprints either), which
 * `test/packaging/authoring-core.test.ts` checks.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The import specifier tool code uses for the authoring API. */
export const AUTHORING_CORE_SPECIFIER = "@assemblyline-agents/core";

/**
 * How bundles name the authoring API module, in esbuild's `namespace:path` style for a module
 * that is not a file of the agent (see {@link createCorePathRewriter}).
 */
export const BUNDLED_CORE_NAME = `assemblyline-core:${AUTHORING_CORE_SPECIFIER}`;

/** The authoring API module to bundle: its absolute path and the esbuild loader for it. */
export interface AuthoringCoreModule {
  readonly file: string;
  readonly loader: "js" | "ts";
}

/**
 * Locates the authoring API module next to this toolchain.
 *
 * @returns the compiled `.js` (from `dist/`) or the `.ts` source (from source), whichever exists.
 * @throws Error when neither exists (a broken installation); `bundleTools` reports it as AL7009.
 */
export function locateAuthoringCore(): AuthoringCoreModule {
  for (const loader of ["js", "ts"] as const) {
    const file = fileURLToPath(new URL(`../runtime-min/authoring/index.${loader}`, import.meta.url));
    if (fs.existsSync(file)) return { file, loader };
  }
  throw new Error(
    `the authoring API module was not found next to the toolchain (${fileURLToPath(new URL("../runtime-min/authoring/", import.meta.url))}index.js or index.ts)`,
  );
}

/**
 * Returns a function that replaces, in one bundle's bytes, the path by which esbuild names the
 * authoring API module with its specifier.
 *
 * Why: esbuild resolves the specifier through its native `alias` option (no plugin callback per
 * import, which matters with thousands of definitions) and names every bundled module by its
 * path relative to the agent root — in a `// <path>` comment above the module's code, and as
 * the key of a lazily initialised module (`__esm({ "<path>"() {…} })`). For the authoring API
 * that path leads from the agent to wherever this toolchain is installed, so bundle bytes would
 * change when either moves. Exactly those two spellings are rewritten, to
 * `// assemblyline-core:@assemblyline-agents/core` and `"assemblyline-core:@assemblyline-agents/core"`
 * ({@link BUNDLED_CORE_NAME}); the determinism tests fail if esbuild ever prints the path
 * another way.
 *
 * @param root the agent root (esbuild's working directory).
 * @param core the module esbuild bundled.
 */
export function createCorePathRewriter(root: string, core: AuthoringCoreModule): (bytes: Uint8Array) => Uint8Array {
  const native = path.relative(root, core.file);
  const spellings = [...new Set([native.split(path.sep).join("/"), native])];
  const replacements = spellings.flatMap((shown) => [
    [`// ${shown}\n`, `// ${BUNDLED_CORE_NAME}\n`],
    [JSON.stringify(shown), JSON.stringify(BUNDLED_CORE_NAME)],
  ]);
  return (bytes) => {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (!spellings.some((shown) => buffer.includes(shown))) return bytes;
    let text = buffer.toString("utf8");
    for (const [from, to] of replacements) text = text.split(from!).join(to!);
    return Buffer.from(text, "utf8");
  };
}
