/**
 * A read-only view of a compiled agent's tool catalogue: the capability snapshot and search
 * pages of each surface, as a runtime gives them to a run that activated nothing. It is what
 * `assembly-line tools` and `search` print when no `--run` is given (issue 14 item 3): the same
 * artifact checks as `openRuntime` (`./artifact/open-artifact.ts`) and the same catalogue
 * (`./execution/tool-catalog.ts`), without the state database, the sandbox, the input
 * validator or the isolation probes, none of which a catalogue needs. A run's activations live
 * in the state database, so anything that takes a run id opens a full runtime instead.
 *
 * {@link snapshotOf} and {@link searchPageOf} are the rules `Runtime.snapshot` and
 * `Runtime.search` also use, so the two cannot disagree.
 */
import { Diagnostics } from "../diagnostics/catalog/index.js";
import type { ArtifactManifest } from "../contract/manifest.js";
import { openArtifact } from "./artifact/open-artifact.js";
import type { LoadedArtifact } from "./artifact/load-artifact.js";
import { runtimeError } from "./errors.js";
import { ToolCatalog } from "./execution/tool-catalog.js";
import type { CapabilitySnapshot, CoreToolPolicy } from "./snapshot/types.js";
import type { ToolSearchResult } from "./types.js";

/** Where the view reads: the root, the artifact directory, and the host's core-tool policy. */
export interface CatalogViewOptions {
  /** Agent root (relative to the working directory or absolute). */
  readonly root: string;
  /** Artifact directory, relative to the root or absolute (default `.assemblyline/build`). */
  readonly artifactDir?: string;
  /** The host's core-tool policy, as `RuntimeOptions.coreToolPolicy`. */
  readonly coreToolPolicy?: CoreToolPolicy;
}

/** The catalogue of a verified artifact. */
export class CatalogView {
  /** Absolute agent root. */
  readonly root: string;
  readonly artifact: LoadedArtifact;
  private readonly catalog: ToolCatalog;

  private constructor(root: string, artifact: LoadedArtifact, policy: CoreToolPolicy | undefined) {
    this.root = root;
    this.artifact = artifact;
    this.catalog = new ToolCatalog(artifact.manifest, policy);
  }

  /**
   * Loads and verifies the artifact (`openArtifact`: throws `RuntimeError` AL1024/AL1025,
   * AL6301/AL6302, AL8001–AL8014 as `openRuntime` does).
   */
  static open(options: CatalogViewOptions): CatalogView {
    const opened = openArtifact(options);
    return new CatalogView(opened.root, opened.artifact, options.coreToolPolicy);
  }

  /** The snapshot of a surface (default `"."`) before any activation. Throws `RuntimeError` AL8020 for an unknown surface. */
  snapshot(surface = "."): CapabilitySnapshot {
    return snapshotOf(this.catalog, this.artifact.manifest, surface, []);
  }

  /** One page of the surface's ranked catalogue (`""` browses by name). Throws `RuntimeError` AL8020, AL8027 (bad limit or offset). */
  search(query: string, request: { readonly surface?: string; readonly limit?: number; readonly offset?: number } = {}): ToolSearchResult {
    return searchPageOf(this.catalog, this.artifact.manifest, query, request);
  }
}

/** Throws `RuntimeError` AL8020 (with the known surfaces) when the manifest has no such surface. */
export function assertSurface(manifest: ArtifactManifest, surfaceId: string): void {
  if (!manifest.surfaces[surfaceId]) {
    // Each id quoted, so that the root's '.' reads as a name, not as the sentence's end.
    const known = Object.keys(manifest.surfaces).sort().map((id) => `'${id}'`).join(", ") || "(none)";
    throw runtimeError(Diagnostics.UnknownSurface, "", [surfaceId, known]);
  }
}

/** The snapshot of `surfaceId` with the run's `activated` tools (sorted names; `[]` without a run). Throws AL8020. */
export function snapshotOf(catalog: ToolCatalog, manifest: ArtifactManifest, surfaceId: string, activated: readonly string[]): CapabilitySnapshot {
  assertSurface(manifest, surfaceId);
  return catalog.snapshot(surfaceId, activated);
}

/** One search page of `surfaceId` (no activation). Throws `RuntimeError` AL8020, AL8027 for a bad limit or offset. */
export function searchPageOf(catalog: ToolCatalog, manifest: ArtifactManifest, query: string, request: { readonly surface?: string; readonly limit?: number; readonly offset?: number }): ToolSearchResult {
  const surfaceId = request.surface ?? ".";
  assertSurface(manifest, surfaceId);
  let page;
  try {
    page = catalog.searchIndex(surfaceId).search(String(query), {
      ...(request.limit === undefined ? {} : { limit: request.limit }),
      ...(request.offset === undefined ? {} : { offset: request.offset }),
    });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw runtimeError(Diagnostics.SearchPageInvalid, "", [error.message]);
  }
  return { tools: page.tools, totalMatches: page.totalMatches, hasMore: page.hasMore, ...(page.nextOffset === undefined ? {} : { nextOffset: page.nextOffset }) };
}
