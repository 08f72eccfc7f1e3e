/**
 * The capability snapshot of one surface (seed "Execution Model"; DESIGN §6).
 *
 * A surface sees the framework defaults plus the tools of the plugins its own `agent.md`
 * selects — the manifest already holds exactly those per surface, so a child never sees its
 * parent's plugins. Rules applied here, in order:
 * 1. Core tools start with their default visibility (`CORE_TOOL_SPECS`).
 * 2. A plugin's `disabled: true` descriptor (`surface.disabledCoreTools`) removes a core default;
 *    host core-tool policy `disabled` removes one too. Policy `approval` gates a built-in.
 * 3. Every authored tool of the surface is callable; `visible` ones start in the snapshot,
 *    `deferred` ones are found by `tool_search`, `hidden` ones are never listed or found.
 *    An authored tool may take a core tool's name only when a plugin disabled that core
 *    default; otherwise the built-in keeps the name and an `authored_shadows_core` warning
 *    is reported (the compiler should have refused it).
 * 3b. A surface with subagents also gets the framework's `delegate` tool, always visible, whose
 *    schema names exactly this surface's own children (issue 13 item 1); other surfaces do not.
 * 4. `promoted` (`useTool(name)`) and `activated` (this run's `tool_search` pages) load known
 *    deferred tools into the snapshot with their full schemas. Anything else named there is
 *    reported as a warning and ignored; a hidden tool can never be promoted.
 */
import { distance } from "fastest-levenshtein";
import type { ArtifactManifest, ArtifactSurface, ArtifactTool, ManifestApproval } from "../../contract/manifest.js";
import { childSurfacesOf, DELEGATE_TOOL_NAME, isCoreToolName, type CoreToolSpec } from "../../contract/core-catalog.js";
import { surfaceToolSet } from "../../contract/surface-tool-set.js";
import type {
  CapabilitySnapshot,
  CatalogTool,
  DisabledCoreTool,
  SnapshotOptions,
  SnapshotTool,
  SnapshotWarning,
  ToolResolution,
} from "./types.js";
import { byCodeUnits } from "../../common/compare.js";
import { sideEffectOrDefault } from "../../contract/approval.js";

/** Thrown when the requested surface id is not in the manifest (a host usage error). */
export class UnknownSurfaceError extends Error {
  readonly surfaceId: string;
  /** Surface ids the manifest has, sorted. */
  readonly surfaces: readonly string[];
  constructor(surfaceId: string, surfaces: readonly string[]) {
    const near = nearNames(surfaceId, surfaces);
    const hint = near.length > 0 ? ` Did you mean ${near.map((s) => `"${s}"`).join(" or ")}?` : "";
    super(`The artifact has no surface "${surfaceId}"; its surfaces are ${surfaces.map((s) => `"${s}"`).join(", ")}.${hint}`);
    this.name = "UnknownSurfaceError";
    this.surfaceId = surfaceId;
    this.surfaces = surfaces;
  }
}

type Entry =
  | { readonly kind: "core"; readonly spec: CoreToolSpec; readonly approval?: ManifestApproval }
  | { readonly kind: "authored"; readonly tool: ArtifactTool };

interface SurfaceTools {
  readonly entries: ReadonlyMap<string, Entry>;
  readonly disabled: ReadonlyMap<string, DisabledCoreTool>;
  readonly loaded: ReadonlySet<string>;
  readonly warnings: SnapshotWarning[];
}


function nearNames(name: string, candidates: readonly string[]): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3));
  return candidates
    .map((candidate) => ({ candidate, d: distance(name, candidate) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d || byCodeUnits(a.candidate, b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate);
}

/** Returns the surface, or throws `UnknownSurfaceError`. */
export function getSurface(manifest: ArtifactManifest, surfaceId: string): ArtifactSurface {
  if (Object.prototype.hasOwnProperty.call(manifest.surfaces, surfaceId)) {
    const surface = manifest.surfaces[surfaceId];
    if (surface) return surface;
  }
  throw new UnknownSurfaceError(surfaceId, Object.keys(manifest.surfaces).sort(byCodeUnits));
}

function collectDisabled(options: SnapshotOptions, surface: ArtifactSurface, warnings: SnapshotWarning[]): Map<string, DisabledCoreTool> {
  const disabled = new Map<string, DisabledCoreTool>();
  for (const name of [...surface.disabledCoreTools].sort(byCodeUnits)) {
    if (!isCoreToolName(name)) {
      warnings.push({ code: "unknown_disabled_core_tool", name, message: `A plugin disables "${name}", which is not a core tool; nothing was removed.` });
      continue;
    }
    disabled.set(name, { name, by: "plugin" });
  }
  for (const name of [...(options.coreToolPolicy?.disabled ?? [])].sort(byCodeUnits)) {
    if (!isCoreToolName(name)) {
      warnings.push({ code: "unknown_policy_tool", name, message: `Host core-tool policy disables "${name}", which is not a core tool; host policy applies to built-ins only.` });
      continue;
    }
    if (!disabled.has(name)) disabled.set(name, { name, by: "host" });
  }
  return disabled;
}

function collectEntries(options: SnapshotOptions, surface: ArtifactSurface, disabled: ReadonlyMap<string, DisabledCoreTool>, warnings: SnapshotWarning[]): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const approvals = options.coreToolPolicy?.approval ?? {};
  for (const name of Object.keys(approvals).sort(byCodeUnits)) {
    if (!isCoreToolName(name)) {
      warnings.push({ code: "unknown_policy_tool", name, message: `Host core-tool policy approval-gates "${name}", which is not a core tool; authored tools keep their locked approval policy.` });
    }
  }
  const authored = Object.keys(surface.tools).flatMap((name) => {
    const tool = surface.tools[name];
    return tool ? [{ name, tool }] : [];
  });
  // Which tools the surface offers is contract/surface-tool-set.ts's rule, shared with the compiler.
  const set = surfaceToolSet({
    removed: new Map([...disabled].map(([name, entry]) => [name, entry.by])),
    authored,
    children: childSurfacesOf(options.manifest.surfaces, options.surfaceId).map((child) => child.name),
  });
  for (const spec of set.core) {
    const given = Object.prototype.hasOwnProperty.call(approvals, spec.name) ? approvals[spec.name] : undefined;
    // As approvalRequired(reason, sideEffect = "external") (seed "Tool implementation"): a host
    // rule without a side effect (a plain-JS host) gets the same default.
    const approval = given ? { reason: String(given.reason ?? ""), sideEffect: sideEffectOrDefault(given.sideEffect) } : undefined;
    entries.set(spec.name, approval ? { kind: "core", spec, approval } : { kind: "core", spec });
  }
  for (const { name, tool } of set.authored) entries.set(name, { kind: "authored", tool });
  for (const { tool: { name, tool }, by } of set.shadowed) {
    warnings.push({
      code: "authored_shadows_core",
      name,
      message:
        by === "core"
          ? `Capability "${tool.capability}" contributes "${name}", the name of a core tool that no plugin disabled; the built-in keeps the name. Disable the core default with \`disabled: true\` to replace it.`
          : `Capability "${tool.capability}" contributes "delegate", the framework's delegation tool on a surface with subagents; the framework tool keeps the name.`,
    });
  }
  if (set.delegate) entries.set(DELEGATE_TOOL_NAME, { kind: "core", spec: set.delegate });
  return entries;
}

function visibilityOf(entry: Entry): "visible" | "deferred" | "hidden" {
  return entry.kind === "core" ? entry.spec.visibility : entry.tool.visibility;
}

function collectLoaded(options: SnapshotOptions, entries: ReadonlyMap<string, Entry>, warnings: SnapshotWarning[]): Set<string> {
  const loaded = new Set<string>();
  for (const [name, entry] of entries) if (visibilityOf(entry) === "visible") loaded.add(name);
  for (const name of [...new Set(options.promoted ?? [])].sort(byCodeUnits)) {
    const entry = entries.get(name);
    if (!entry) {
      warnings.push({ code: "unknown_promotion", name, message: `useTool("${name}") names no tool available on this surface; nothing was promoted.` });
    } else if (visibilityOf(entry) === "hidden") {
      warnings.push({ code: "promotion_not_allowed", name, message: `useTool("${name}") names a hidden tool; hidden tools are never listed, so it was not promoted.` });
    } else {
      loaded.add(name);
    }
  }
  for (const name of [...new Set(options.activated ?? [])].sort(byCodeUnits)) {
    const entry = entries.get(name);
    if (!entry || visibilityOf(entry) === "hidden") {
      warnings.push({ code: "unknown_activation", name, message: `The run activated "${name}", which is not a listed tool on this surface; it was ignored.` });
    } else {
      loaded.add(name);
    }
  }
  return loaded;
}

function surfaceTools(options: SnapshotOptions): SurfaceTools {
  const surface = getSurface(options.manifest, options.surfaceId);
  const warnings: SnapshotWarning[] = [];
  const disabled = collectDisabled(options, surface, warnings);
  const entries = collectEntries(options, surface, disabled, warnings);
  const loaded = collectLoaded(options, entries, warnings);
  return { entries, disabled, loaded, warnings };
}

function toCatalogTool(name: string, entry: Entry): CatalogTool {
  if (entry.kind === "core") {
    const { spec } = entry;
    return { name, description: spec.description, inputSchema: spec.inputSchema, source: "core", visibility: spec.visibility, tags: spec.tags, aliases: spec.aliases };
  }
  const { tool } = entry;
  const listed: CatalogTool = {
    name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    source: `plugin:${tool.capability}`,
    visibility: tool.visibility === "deferred" ? "deferred" : "visible",
    tags: tool.tags,
    aliases: tool.aliases,
  };
  return tool.namespace === undefined ? listed : { ...listed, namespace: tool.namespace };
}

function toSnapshotTool(tool: CatalogTool): SnapshotTool {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, source: tool.source, visibility: tool.visibility };
}

/**
 * Builds the capability snapshot of `options.surfaceId`.
 *
 * @returns `tools` (what the model starts with), `catalog` (everything listable and callable,
 *   for `tool_search`), `hidden` and `disabled` names, and `warnings` about host-supplied names
 *   that were ignored. All lists are sorted by name in code-unit order.
 * @throws UnknownSurfaceError when the manifest has no such surface.
 */
export function buildSnapshot(options: SnapshotOptions): CapabilitySnapshot {
  const { entries, disabled, loaded, warnings } = surfaceTools(options);
  const catalog: CatalogTool[] = [];
  const hidden: string[] = [];
  for (const name of [...entries.keys()].sort(byCodeUnits)) {
    const entry = entries.get(name) as Entry;
    if (visibilityOf(entry) === "hidden") hidden.push(name);
    else catalog.push(toCatalogTool(name, entry));
  }
  return {
    surfaceId: options.surfaceId,
    tools: catalog.filter((tool) => loaded.has(tool.name)).map(toSnapshotTool),
    catalog,
    hidden,
    disabled: [...disabled.values()].sort((a, b) => byCodeUnits(a.name, b.name)),
    warnings,
  };
}

function resolveEntry(name: string, entry: Entry, loaded: ReadonlySet<string>): ToolResolution {
  if (entry.kind === "core") {
    const { spec, approval } = entry;
    const base = { kind: "core" as const, name, visibility: spec.visibility, loaded: loaded.has(name), implementer: spec.implementer };
    return approval ? { ...base, approval } : base;
  }
  const { tool } = entry;
  const approval = tool.needsApproval ? { approval: tool.needsApproval } : {};
  if (tool.visibility === "hidden") return { kind: "hidden", name, tool, capability: tool.capability, ...approval };
  return { kind: "authored", name, tool, capability: tool.capability, visibility: tool.visibility, loaded: loaded.has(name), ...approval };
}

/**
 * Creates a resolver for the dispatcher: what a tool name means on this surface and which
 * approval policy applies (the locked `needsApproval` of an authored tool; host core-tool
 * policy for a built-in). Build it once per snapshot and call it per tool call.
 *
 * @throws UnknownSurfaceError when the manifest has no such surface.
 */
export function createToolResolver(options: SnapshotOptions): (name: string) => ToolResolution {
  const { entries, disabled, loaded } = surfaceTools(options);
  const listedNames = [...entries.entries()].filter(([, entry]) => visibilityOf(entry) !== "hidden").map(([name]) => name).sort(byCodeUnits);
  return (name) => {
    const entry = entries.get(name);
    if (entry) return resolveEntry(name, entry, loaded);
    const off = disabled.get(name);
    if (off) {
      const why = off.by === "plugin" ? "a plugin of this surface disabled it (`disabled: true`)" : "the host's core-tool policy disabled it";
      return { kind: "disabled", name, by: off.by, message: `The core tool "${name}" is not available on surface "${options.surfaceId}": ${why}.` };
    }
    const suggestions = nearNames(name, listedNames);
    const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?` : " Use tool_search to find tools.";
    return { kind: "unknown", name, suggestions, message: `No tool named "${name}" on surface "${options.surfaceId}".${hint}` };
  };
}

/** One-shot form of {@link createToolResolver}. */
export function resolveTool(options: SnapshotOptions, name: string): ToolResolution {
  return createToolResolver(options)(name);
}
