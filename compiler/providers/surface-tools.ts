/**
 * The tools each surface may send a model, computed from the front end's analysis by the rule the
 * runtime's capability snapshot applies (`contract/surface-tool-set.ts`, seed "Execution Model"):
 * the core tools no plugin of the surface disabled, the framework's `delegate` on a surface with
 * subagents (issue 13 item 1), plus the surface's authored tools. Visible tools form the initial
 * snapshot; deferred authored tools are kept (they reach the model once activated); hidden tools
 * are never sent to a model and are left out.
 */
import type { AgentAnalysis, CapabilityAnalysis } from "../analyze-agent.js";
import type { Surface } from "../model.js";
import type { ValidatedPlugin, ValidatedTool } from "../validation/validate-plugin.js";
import type { JsonObject } from "../../common/json-value.js";
import { childSurfacesOf } from "../../contract/core-catalog.js";
import { surfaceToolSet } from "../../contract/surface-tool-set.js";

/** One tool a model may be sent. */
export interface SurfaceTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly visibility: "visible" | "deferred";
  /** `core` for a built-in; else the capability key that provides it. */
  readonly source: string;
  /** The authored tool and its capability's entry, where the tool's schema is written (absent for core tools). */
  readonly authored?: { readonly tool: ValidatedTool; readonly capability: Pick<CapabilityAnalysis, "entry"> };
}

/** One surface and the tools it may send. */
export interface SurfaceTools {
  /** Its id (`.`, `subagents/<name>`) and `agent.md`, where its own findings are reported. */
  readonly surface: Pick<Surface, "id" | "agentFile">;
  /** Core tools first (catalog order), then authored tools by name. */
  readonly tools: readonly SurfaceTool[];
}

/** The initial snapshot: the tools every request starts with (visibility `visible`). */
export function initialSnapshot(surface: SurfaceTools): SurfaceTool[] {
  return surface.tools.filter((tool) => tool.visibility === "visible");
}

/** Every surface of the analysis, root first, with the tools it may send. */
export function surfaceTools(analysis: AgentAnalysis): SurfaceTools[] {
  const parents = Object.fromEntries(analysis.agent.surfaces.map((surface) => [surface.id, { parent: surface.parent }]));
  return analysis.agent.surfaces.map((surface) => {
    const capabilities = analysis.capabilities.filter((c) => c.surface.id === surface.id);
    const selected = capabilities.map((capability) => ({ key: capability.resolved.request.key, plugin: capability.plugin, capability }));
    return toolsOfSurface(surface, selected, childSurfacesOf(parents, surface.id).map((child) => child.name));
  });
}

/**
 * The tools a surface that selects `plugin` alone may send (no subagents): what `validate
 * --target` checks a plugin package as, before any agent selects it (new-user trial 129,
 * finding 8). `surface` says where the surface's own findings are reported (the plugin's entry).
 */
export function pluginSurfaceTools(surface: Pick<Surface, "id" | "agentFile">, key: string, plugin: Pick<ValidatedPlugin, "tools" | "disabled">, capability: Pick<CapabilityAnalysis, "entry">): SurfaceTools {
  return toolsOfSurface(surface, [{ key, plugin, capability }], []);
}

/** The tools of one surface selecting these plugins, with these children (by the runtime's rule). */
function toolsOfSurface(
  surface: Pick<Surface, "id" | "agentFile">,
  selected: readonly { readonly key: string; readonly plugin: Pick<ValidatedPlugin, "tools" | "disabled">; readonly capability: Pick<CapabilityAnalysis, "entry"> }[],
  children: readonly string[],
): SurfaceTools {
  const removed = new Map(selected.flatMap(({ plugin }) => plugin.disabled.map((d) => [d.name, "plugin"] as const)));
  const offered = selected.flatMap(({ key, plugin, capability }) => plugin.tools.map((tool) => ({ name: tool.name, tool, capability, key })));
  // Which tools the surface offers is contract/surface-tool-set.ts's rule, shared with the runtime's snapshot.
  const set = surfaceToolSet({ removed, authored: offered, children });
  const core: SurfaceTool[] = [...set.core, ...(set.delegate ? [set.delegate] : [])].map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema as JsonObject,
    visibility: spec.visibility,
    source: "core",
  }));
  const authored: SurfaceTool[] = set.authored
    .filter(({ tool }) => tool.visibility !== "hidden")
    .map(({ tool, capability, key }) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, visibility: tool.visibility as "visible" | "deferred", source: key, authored: { tool, capability } }));
  return { surface, tools: [...core, ...authored] };
}
