/**
 * The runtime's view of each surface's tools (seed "Execution Model"; issue 5 items 1–2): the
 * capability snapshot, the dispatcher's resolver and the `tool_search` index, built from the
 * verified manifest and the runtime's host core-tool policy, plus the tools the host promoted
 * with `useTool(name)`.
 *
 * Caching: one {@link ToolCatalog} belongs to one runtime, whose manifest and core-tool policy
 * never change, so the search index is built once per surface (the cache key is the surface
 * and, through the owning runtime, the policy). Promotions change only which tools start
 * loaded, never what can be found, so they rebuild the resolver but not the index.
 */
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { ArtifactManifest } from "../../contract/manifest.js";
import { runtimeError } from "../errors.js";
import { createToolSearchIndex, type ToolSearchIndex } from "../search/tool-search-index.js";
import { buildSnapshot, createToolResolver } from "../snapshot/build-snapshot.js";
import type { CapabilitySnapshot, CatalogTool, CoreToolPolicy, SnapshotOptions, SnapshotTool, ToolResolution } from "../snapshot/types.js";
import { byCodeUnits } from "../../common/compare.js";

interface SurfaceState {
  /** Names passed to `useTool` for this surface, in promotion order. */
  readonly promoted: Set<string>;
  resolver: ((name: string) => ToolResolution) | undefined;
  index: ToolSearchIndex<CatalogTool> | undefined;
}

/** Snapshots, resolvers and search indexes of every surface of one runtime. */
export class ToolCatalog {
  private readonly surfaces = new Map<string, SurfaceState>();

  /**
   * @param manifest the verified artifact manifest.
   * @param policy the runtime's host core-tool policy (fixed for the runtime's lifetime).
   */
  constructor(
    private readonly manifest: ArtifactManifest,
    private readonly policy: CoreToolPolicy | undefined,
  ) {}

  /**
   * What `name` means on `surfaceId` for dispatch (the snapshot's resolver, cached).
   * The surface must exist (the runtime checks it first).
   */
  resolve(surfaceId: string, name: string): ToolResolution {
    const state = this.state(surfaceId);
    state.resolver ??= createToolResolver(this.options(surfaceId, state));
    return state.resolver(name);
  }

  /** The `tool_search` index of `surfaceId` (visible and deferred tools; never hidden or disabled ones). */
  searchIndex(surfaceId: string): ToolSearchIndex<CatalogTool> {
    const state = this.state(surfaceId);
    state.index ??= createToolSearchIndex(buildSnapshot(this.options(surfaceId, state)).catalog);
    return state.index;
  }

  /**
   * The capability snapshot of `surfaceId`: visible tools, promoted tools and `activated`
   * (a run's `tool_search` activations) with their full schemas.
   */
  snapshot(surfaceId: string, activated: readonly string[]): CapabilitySnapshot {
    return buildSnapshot({ ...this.options(surfaceId, this.state(surfaceId)), activated });
  }

  /**
   * Promotes a known deferred tool into the initial snapshot of `surfaceId` (`useTool`).
   * A visible tool is already there (nothing changes). Returns the tool as the snapshot lists it.
   *
   * @throws RuntimeError AL8026 when the surface has no such listed tool: unknown (with a
   *   "did you mean" among listed names), hidden, or a core tool a plugin or the host disabled.
   */
  promote(surfaceId: string, name: string): SnapshotTool {
    const state = this.state(surfaceId);
    const resolution = this.resolve(surfaceId, name);
    const why = refusal(resolution);
    if (why !== undefined) throw runtimeError(Diagnostics.ToolNotPromotable, "", [name, surfaceId, why]);
    if (!state.promoted.has(name)) {
      state.promoted.add(name);
      state.resolver = undefined;
    }
    const listed = this.snapshot(surfaceId, []).tools.find((tool) => tool.name === name);
    if (!listed) throw new Error(`Internal error: "${name}" was promoted but is not in the snapshot of "${surfaceId}".`);
    return listed;
  }

  /** Names promoted on `surfaceId`, sorted. */
  promoted(surfaceId: string): string[] {
    return [...this.state(surfaceId).promoted].sort(byCodeUnits);
  }

  private state(surfaceId: string): SurfaceState {
    let state = this.surfaces.get(surfaceId);
    if (!state) {
      state = { promoted: new Set(), resolver: undefined, index: undefined };
      this.surfaces.set(surfaceId, state);
    }
    return state;
  }

  private options(surfaceId: string, state: SurfaceState): SnapshotOptions {
    return {
      manifest: this.manifest,
      surfaceId,
      ...(this.policy ? { coreToolPolicy: this.policy } : {}),
      promoted: [...state.promoted],
    };
  }
}

/** Why `useTool` cannot promote what `resolution` found, or `undefined` when it can. */
function refusal(resolution: ToolResolution): string | undefined {
  switch (resolution.kind) {
    case "authored":
    case "core":
      return undefined;
    case "hidden":
      return "it is hidden: hidden tools are callable by the host but never listed to the model, so they cannot be promoted";
    case "disabled":
      return resolution.by === "plugin" ? "a plugin of this surface disabled it (`disabled: true`)" : "the host's core-tool policy disabled it";
    case "unknown":
      return resolution.suggestions.length > 0
        ? `no such tool; did you mean ${resolution.suggestions.map((name) => `'${name}'`).join(" or ")}?`
        : "no such tool on this surface (a surface sees the framework defaults and its own plugins only)";
  }
}

