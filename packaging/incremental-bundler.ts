/**
 * An esbuild build function for `compile --watch` (issue 10 item 4): the first build of a set
 * of entry points creates an esbuild `context()`, later builds of the same set call its
 * `rebuild()`, which re-reads and re-parses only the files that changed (esbuild's incremental
 * build). A compile of more than `BUILD_BATCH` bundles builds them in batches
 * (`./bundle-tools.ts`), so a context is kept per batch; after a compile's last batch, the
 * contexts it did not build (a tool added or removed changes a batch's set) are disposed. The
 * options, and so the bytes, are exactly those of a one-off build: watch output equals
 * `compile` output.
 */
import * as esbuild from "esbuild";
import type { BuildFunction } from "./bundle-tools.js";
import { withServiceMemoryLimit } from "./esbuild-service.js";

/** A {@link BuildFunction} backed by one reusable esbuild context; `dispose()` frees it. */
export interface IncrementalBundler {
  readonly build: BuildFunction;
  /** How many times a new context was created (1 while the bundle set stays the same). */
  readonly contexts: () => number;
  dispose(): Promise<void>;
}

/** Creates an {@link IncrementalBundler} (no esbuild work happens until the first build). */
export function createIncrementalBundler(): IncrementalBundler {
  type Context = esbuild.BuildContext<esbuild.BuildOptions & { write: false }>;
  /** The last compile's contexts (by their options) that this compile has not built yet. */
  let previous = new Map<string, Context>();
  /** This compile's contexts. */
  let current = new Map<string, Context>();
  let created = 0;
  const dispose = async (context: Context): Promise<void> => {
    try {
      await context.dispose();
    } catch {
      // Already stopped: nothing to free.
    }
  };
  return {
    async build(options, batch = { index: 0, count: 1 }) {
      // A compile that stopped before its last batch: what it built counts as the last compile's.
      if (batch.index === 0 && current.size > 0) {
        for (const [key, context] of current) previous.set(key, context);
        current = new Map();
      }
      // Everything but the plugin instances (recreated by each compile, equal in behaviour).
      const key = JSON.stringify({ ...options, plugins: undefined });
      let context = previous.get(key) ?? current.get(key);
      previous.delete(key);
      try {
        if (context === undefined) {
          context = await withServiceMemoryLimit(() => esbuild.context(options));
          created++;
        }
        current.set(key, context);
        return await context.rebuild();
      } finally {
        // The compile's last batch: the contexts it did not build are of bundle sets gone.
        if (batch.index === batch.count - 1) {
          for (const stale of previous.values()) await dispose(stale);
          previous = current;
          current = new Map();
        }
      }
    },
    contexts: () => created,
    async dispose() {
      for (const context of [...previous.values(), ...current.values()]) await dispose(context);
      previous = new Map();
      current = new Map();
    },
  };
}
