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
import type { ValidatedTool } from "../validation/validate-plugin.js";
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
  /** The authored tool and its capability (absent for core tools). */
  readonly authored?: { readonly tool: ValidatedTool; readonly capability: CapabilityAnalysis };
}

/** One surface and the tools it may send. */
export interface SurfaceTools {
  readonly surface: Surface;
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
    const removed = new Map(capabilities.flatMap((c) => c.plugin.disabled.map((d) => [d.name, "plugin"] as const)));
    const offered = capabilities.flatMap((capability) => capability.plugin.tools.map((tool) => ({ name: tool.name, tool, capability })));
    // Which tools the surface offers is contract/surface-tool-set.ts's rule, shared with the runtime's snapshot.
    const set = surfaceToolSet({ removed, authored: offered, children: childSurfacesOf(parents, surface.id).map((child) => child.name) });
    const core: SurfaceTool[] = [...set.core, ...(set.delegate ? [set.delegate] : [])].map((spec) => ({
      name: spec.name,
      description: spec.description,
      inputSchema: spec.inputSchema as JsonObject,
      visibility: spec.visibility,
      source: "core",
    }));
    const authored: SurfaceTool[] = set.authored
      .filter(({ tool }) => tool.visibility !== "hidden")
      .map(({ tool, capability }) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, visibility: tool.visibility as "visible" | "deferred", source: capability.resolved.request.key, authored: { tool, capability } }));
    return { surface, tools: [...core, ...authored] };
  });
}
