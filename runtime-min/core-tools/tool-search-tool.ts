/**
 * The `tool_search` core tool (seed "Execution Model": "tool_search finds and activates
 * matching deferred framework, authored, and connection tools. Their complete schemas appear
 * on the next model call … only tools on the returned page are activated").
 *
 * It searches the surface's whole listable catalogue (visible and deferred tools; never
 * hidden or disabled ones), so `""` browses the complete catalogue as the seed says. Each
 * result says `name`, `description`, `source`, `visibility`, `tags`, `aliases` (and
 * `namespace`); schemas are not repeated here, they arrive with the next snapshot. The page's
 * deferred tools are activated through `ctx.activateTools` and the `tool_search.activated`
 * event.
 */
import type { ArtifactManifest } from "../../contract/manifest.js";
import { ToolCallError } from "../failures.js";
import { createToolSearchIndex, type SearchableTool, type ToolSearchIndex } from "../search/tool-search-index.js";
import { buildSnapshot, UnknownSurfaceError } from "../snapshot/build-snapshot.js";
import type { CoreToolPolicy } from "../snapshot/types.js";
import { optionalInteger, pickSpec, requiredString } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";

type IndexedTool = SearchableTool & { readonly source?: string };

const cache = new WeakMap<ArtifactManifest, Map<string, ToolSearchIndex<IndexedTool>>>();

function policyKey(surfaceId: string, policy: CoreToolPolicy | undefined): string {
  const disabled = [...(policy?.disabled ?? [])].sort();
  return JSON.stringify([surfaceId, disabled]);
}

/**
 * The index `tool_search` uses for `ctx`: `ctx.toolSearchIndex` when the engine supplies one,
 * else one built from the manifest's catalogue of `ctx.surfaceId` (cached per manifest
 * object, surface and disabled set).
 */
export function searchIndexFor(ctx: CoreToolContext): ToolSearchIndex<IndexedTool> {
  if (ctx.toolSearchIndex) return ctx.toolSearchIndex;
  const key = policyKey(ctx.surfaceId, ctx.coreToolPolicy);
  let perManifest = cache.get(ctx.manifest);
  if (!perManifest) cache.set(ctx.manifest, (perManifest = new Map()));
  let index = perManifest.get(key);
  if (!index) {
    try {
      const policy = ctx.coreToolPolicy;
      index = createToolSearchIndex(buildSnapshot(policy ? { manifest: ctx.manifest, surfaceId: ctx.surfaceId, coreToolPolicy: policy } : { manifest: ctx.manifest, surfaceId: ctx.surfaceId }).catalog);
    } catch (error) {
      if (error instanceof UnknownSurfaceError) throw new ToolCallError("configuration_error", error.message, { cause: error });
      throw error;
    }
    perManifest.set(key, index);
  }
  return index;
}

function resultJson(tool: IndexedTool): CoreJson {
  const base = {
    name: tool.name,
    description: tool.description,
    source: tool.source ?? "core",
    visibility: tool.visibility ?? "visible",
    tags: [...(tool.tags ?? [])],
    aliases: [...(tool.aliases ?? [])],
  };
  return tool.namespace === undefined ? base : { ...base, namespace: tool.namespace };
}

/** `tool_search`: `{ tools, totalMatches, hasMore, nextOffset? }`; activates the page's deferred tools. */
export async function toolSearchTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const query = requiredString(input, "query");
  const limit = optionalInteger(input, "limit", 8);
  const offset = optionalInteger(input, "offset", 0);
  if (offset < 0) throw new ToolCallError("invalid_input", `offset must be 0 or the nextOffset of the previous page, got ${offset}.`);
  const page = searchIndexFor(ctx).search(query, { limit, offset });
  const activated = page.tools.filter((tool) => tool.visibility === "deferred").map((tool) => tool.name).sort();
  if (activated.length > 0) {
    await ctx.activateTools?.(activated);
    await ctx.emit("tool_search.activated", { names: activated });
  }
  const result = { tools: page.tools.map(resultJson), totalMatches: page.totalMatches, hasMore: page.hasMore };
  return page.nextOffset === undefined ? result : { ...result, nextOffset: page.nextOffset };
}

/** The `tool_search` core tool. */
export const toolSearchCoreTool: CoreTool = { ...pickSpec("tool_search"), execute: toolSearchTool };
