/**
 * Source positions for a tool bundle's stack frames (new-user trial helper-64, M41: a tool's
 * TypeError pointed at `.assemblyline/bundles/<hash>.mjs:22:26`, not at the author's `hello.ts`).
 *
 * Bundles carry no source map: a `//# sourceMappingURL` comment, or maps in the artifact, would
 * change every bundle's bytes (and so every lock) or double the artifact's files for what only a
 * stack trace needs. Instead the map is made when a stack is shown: the tool's one bundle is built
 * again, as `bundleTools` builds it, with esbuild's external map (which adds no comment), and the
 * map is used only when the bundle esbuild writes is byte for byte the one the artifact holds
 * (the same SRI): then the map describes that very file. Anything else (the sources changed since
 * the compile, an installed plugin that moved, a build error) gives no map, and the stack is shown
 * as it is.
 */
import * as path from "node:path";
import { SourceMap, type SourceMapPayload } from "node:module";
import * as esbuild from "esbuild";
import { createNodeHost } from "../common/host.js";
import { findInstalledPackage } from "../compiler/agent/resolve-capabilities.js";
import type { LockedSource } from "../contract/lockfile-types.js";
import { DEFAULT_ARTIFACT_DIR } from "../contract/manifest.js";
import { createCorePathRewriter, locateAuthoringCore } from "./authoring-core.js";
import { buildOptions } from "./bundle-tools.js";
import { withServiceMemoryLimit } from "./esbuild-service.js";
import { bundleIntegrity } from "./integrity.js";
import { BUNDLE_EXTENSION, planBundles, type PackagingTool } from "./plan-bundles.js";

/** Where a position of a bundle was written in the sources. */
export interface SourcePosition {
  /** Absolute path of the source file. */
  readonly file: string;
  /** 1-based, as in a stack frame. */
  readonly line: number;
  readonly column: number;
}

/** Maps a bundle's positions (1-based line and column, as a stack frame gives them) to the sources. */
export type BundlePositionMap = (line: number, column: number) => SourcePosition | undefined;

/**
 * The position map of the bundle of `tool`, when building it again gives exactly the bytes whose
 * SRI is `integrity` (the artifact's); `undefined` otherwise. Never throws.
 * @param root absolute agent root (esbuild's working directory, as in `bundleTools`).
 */
export async function bundlePositionMap(root: string, tool: PackagingTool, integrity: string): Promise<BundlePositionMap | undefined> {
  try {
    const planned = planBundles([tool]).bundles[0];
    if (!planned) return undefined;
    const core = locateAuthoringCore();
    const outdir = path.join(root, DEFAULT_ARTIFACT_DIR);
    const settings = { ...buildOptions(root, outdir, [planned], core), sourcemap: "external" as const, sourcesContent: false };
    const result = await withServiceMemoryLimit(() => esbuild.build(settings));
    const bundleFile = path.join(outdir, `${planned.name}${BUNDLE_EXTENSION}`);
    const bundle = result.outputFiles.find((file) => file.path === bundleFile);
    const map = result.outputFiles.find((file) => file.path === `${bundleFile}.map`);
    if (!bundle || !map || bundleIntegrity(createCorePathRewriter(root, core)(bundle.contents)) !== integrity) return undefined;
    const sourceMap = new SourceMap(JSON.parse(map.text) as SourceMapPayload);
    const mapDir = path.dirname(map.path);
    return (line, column) => {
      const entry = sourceMap.findEntry(line - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
      // esbuild names sources relative to the map's folder; the authoring API is not the author's code.
      const file = path.resolve(mapDir, entry.originalSource);
      if (file === core.file) return undefined;
      return { file, line: entry.originalLine + 1, column: entry.originalColumn + 1 };
    };
  } catch {
    return undefined;
  }
}

/** A locked tool as plugins.lock names it: where its plugin and definition are, and its bundle's SRI. */
export interface LockedBundleTool {
  /** `"."` or `"subagents/<name>"`. */
  readonly surfaceId: string;
  readonly capability: string;
  readonly toolName: string;
  /** The capability's `source` in the lock. */
  readonly source: LockedSource;
  /** The tool's `definition` in the lock (plugin-relative, `./…`). */
  readonly definition: string;
  /** The SRI of the bundle that ran (the artifact's). */
  readonly integrity: string;
}

/**
 * {@link bundlePositionMap} for a tool as the lock names it: a local plugin at its path in the
 * lock (relative to the agent root), an installed one found as the compile finds it
 * (`findInstalledPackage`, from the surface's folder up). `undefined` when the plugin is not
 * there or the map does not describe that bundle. Never throws.
 * @param root absolute agent root.
 */
export async function lockedToolPositionMap(root: string, tool: LockedBundleTool): Promise<BundlePositionMap | undefined> {
  const surfaceDir = tool.surfaceId === "." ? root : path.join(root, tool.surfaceId);
  const pluginRoot = tool.source.type === "local" ? path.resolve(root, tool.source.path) : findInstalledPackage(createNodeHost(), surfaceDir, tool.source.name)?.dir;
  if (pluginRoot === undefined) return undefined;
  const packaging: PackagingTool = { surfaceId: tool.surfaceId, capability: tool.capability, toolName: tool.toolName, pluginRoot, definitionFile: path.resolve(pluginRoot, tool.definition) };
  return bundlePositionMap(root, packaging, tool.integrity);
}
