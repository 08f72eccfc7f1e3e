/**
 * The tools each surface may send a model, computed from the front end's analysis the way the
 * runtime builds its capability snapshot (seed "Execution Model"; runtime-min/snapshot): the
 * core tools no plugin of the surface disabled, the framework's `delegate` on a surface with
 * subagents (issue 13 item 1: `delegateToolSpec` of its own children, as the snapshot adds it),
 * plus the surface's authored tools. Visible tools form the initial snapshot; deferred authored
 * tools are kept (they reach the model once activated); hidden tools are never sent to a model
 * and are left out.
 */
import type { AgentAnalysis, CapabilityAnalysis } from "../analyze-agent.js";
import type { Surface } from "../model.js";
import type { ValidatedTool } from "../validation/validate-plugin.js";
import type { JsonObject } from "../../common/json-value.js";
import { byCodeUnits } from "../../common/compare.js";
import { childSurfacesOf, CORE_TOOL_SPECS, DELEGATE_TOOL_NAME, delegateToolSpec, type CoreToolSpec } from "../../contract/core-catalog.js";

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
    // `delegate` exists only where there is someone to delegate to, and the framework's keeps the name.
    const children = childSurfacesOf(parents, surface.id).map((child) => child.name);
    const delegate: readonly CoreToolSpec[] = children.length > 0 ? [delegateToolSpec(children)] : [];
    const capabilities = analysis.capabilities.filter((c) => c.surface.id === surface.id);
    const disabled = new Set(capabilities.flatMap((c) => c.plugin.disabled.map((d) => d.name)));
    const authored: SurfaceTool[] = [];
    for (const capability of capabilities) {
      for (const tool of capability.plugin.tools) {
        if (tool.visibility === "hidden" || (delegate.length > 0 && tool.name === DELEGATE_TOOL_NAME)) continue;
        authored.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, visibility: tool.visibility, source: capability.resolved.request.key, authored: { tool, capability } });
      }
    }
    const taken = new Set(authored.map((tool) => tool.name));
    const core: SurfaceTool[] = [...CORE_TOOL_SPECS.filter((spec) => !disabled.has(spec.name) && !taken.has(spec.name)), ...delegate].map((spec) => ({
      name: spec.name,
      description: spec.description,
      inputSchema: spec.inputSchema as JsonObject,
      visibility: spec.visibility,
      source: "core",
    }));
    authored.sort((a, b) => byCodeUnits(a.name, b.name));
    return { surface, tools: [...core, ...authored] };
  });
}
