/**
 * An esbuild build function for `compile --watch` (issue 10 item 4): the first build creates an
 * esbuild `context()`, later builds with the same entry points call its `rebuild()`, which
 * re-reads and re-parses only the files that changed (esbuild's incremental build). When the
 * set of bundles changes (a tool added or removed), the context is replaced. The options, and
 * so the bytes, are exactly those of a one-off build: watch output equals `compile` output.
 */
import * as esbuild from "esbuild";
import type { BuildFunction } from "./bundle-tools.js";

/** A {@link BuildFunction} backed by one reusable esbuild context; `dispose()` frees it. */
export interface IncrementalBundler {
  readonly build: BuildFunction;
  /** How many times a new context was created (1 while the bundle set stays the same). */
  readonly contexts: () => number;
  dispose(): Promise<void>;
}

/** Creates an {@link IncrementalBundler} (no esbuild work happens until the first build). */
export function createIncrementalBundler(): IncrementalBundler {
  let context: esbuild.BuildContext<esbuild.BuildOptions & { write: false }> | undefined;
  let key: string | undefined;
  let created = 0;
  return {
    async build(options) {
      // Everything but the plugin instances (recreated by each compile, equal in behaviour).
      const next = JSON.stringify({ ...options, plugins: undefined });
      if (context === undefined || next !== key) {
        await context?.dispose();
        context = undefined;
        context = await esbuild.context(options);
        key = next;
        created++;
      }
      return context.rebuild();
    },
    contexts: () => created,
    async dispose() {
      await context?.dispose();
      context = undefined;
    },
  };
}
