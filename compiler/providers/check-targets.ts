/**
 * `compile --target ID…` (issue 11 item 1): checks every tool a model may be sent on every
 * surface against each chosen provider profile, and reports what the target would refuse
 * (error), silently drop (warning), accept only after a known rewrite (info) or leaves
 * undocumented (warning), at the exact property path of the tool's input schema.
 *
 * Core tools count toward the per-request caps (they are in the snapshot); their schemas are
 * the runtime's, not the agent's, so they are not judged keyword by keyword.
 */
import type { AgentAnalysis } from "../analyze-agent.js";
import { locateValue, type LocatedValue } from "../model.js";
import { createDiagnostic, dedupeDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics, type DiagnosticMessage } from "../../diagnostics/catalog/index.js";
import { fileStart, type SourceLocation } from "../../common/positions.js";
import { escapePointerSegment } from "../../common/json-pointer.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { checkToolDefinition, type ToolFinding } from "./check-tool.js";
import { isTargetId, profileOf, type ProviderProfile } from "./index.js";
import { unknownTargetHint } from "./profile.js";
export { unknownTargetHint } from "./profile.js";
import { initialSnapshot, surfaceTools, type SurfaceTool, type SurfaceTools } from "./surface-tools.js";

/**
 * Diagnostics for `targets` over the analysed agent. An unknown id is reported once (AL4712,
 * with a "did you mean"); a repeated id is checked once. Never throws.
 *
 * @param surfaces the surfaces' tools, when the caller already computed them.
 * @param writtenAt where a target id was written (the project configuration's `targets` entry),
 *   for AL4712; the root agent.md's start when it gives none (a `--target` flag, the API).
 */
export function checkProviderTargets(analysis: AgentAnalysis, targets: readonly string[], surfaces: readonly SurfaceTools[] = surfaceTools(analysis), writtenAt: (id: string) => SourceLocation | undefined = () => undefined): Diagnostic[] {
  const rootAgent = analysis.agent.surfaces[0]?.agentFile ?? analysis.root;
  return checkSurfaceTargets(surfaces, targets, (id) => writtenAt(id) ?? fileStart(rootAgent));
}

/**
 * Diagnostics for `targets` over the given surfaces' tools: what {@link checkProviderTargets}
 * reports for an agent, and `validate --target` for one plugin package (a surface that selects
 * it alone, `pluginSurfaceTools`). An unknown id is AL4712 at `unknownAt(id)`. Never throws.
 */
export function checkSurfaceTargets(surfaces: readonly SurfaceTools[], targets: readonly string[], unknownAt: (id: string) => SourceLocation): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const profiles: ProviderProfile[] = [];
  for (const id of [...new Set(targets)]) {
    if (isTargetId(id)) {
      profiles.push(profileOf(id));
      continue;
    }
    diagnostics.push(createDiagnostic(Diagnostics.ProviderUnknownTarget, unknownAt(id), [id], { hint: unknownTargetHint(id) }));
  }
  for (const profile of profiles) {
    for (const surface of surfaces) {
      for (const tool of surface.tools) {
        if (!tool.authored) continue;
        for (const finding of checkToolDefinition(profile, tool)) diagnostics.push(toolDiagnostic(profile, tool, finding));
      }
      diagnostics.push(...surfaceDiagnostics(profile, surface));
    }
  }
  return dedupeDiagnostics(diagnostics);
}


/** The per-request cap and budgets of one surface's initial snapshot. */
function surfaceDiagnostics(profile: ProviderProfile, surface: SurfaceTools): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = fileStart(surface.surface.agentFile);
  const snapshot = initialSnapshot(surface);
  const authored = snapshot.filter((tool) => tool.authored);
  const cap = profile.toolCap;
  if (cap) {
    const counted = cap.counts === "snapshot" ? snapshot : authored;
    if (counted.length > cap.limit) out.push(createDiagnostic(Diagnostics.ProviderToolCapExceeded, at, [surface.surface.id, counted.length, cap.what, profile.id, cap.limit, `${cap.source}, checked ${profile.version}`]));
  }
  for (const budget of profile.requestBudgets?.(authored.map((tool) => ({ name: tool.name, inputSchema: tool.inputSchema }))) ?? []) {
    // Each counted property where its plugin writes it, so the reader sees which ones count (new-user trial 129, finding 4).
    const related = (budget.counted ?? []).flatMap(({ tool: name, paths }) => {
      const tool = authored.find((t) => t.name === name)!;
      const { tool: validated, capability } = tool.authored!;
      return paths.map((path) => ({ ...locate(capability.entry?.entry, name, path, validated.location), message: `${budget.item ?? "counted"} of tool '${name}': inputSchema.${formatPropertyPath(path)}` }));
    });
    out.push(createDiagnostic(Diagnostics.ProviderRequestBudgetExceeded, at, [surface.surface.id, budget.actual, budget.what, profile.id, budget.limit, `${budget.source}, checked ${profile.version}`], { hint: budget.hint, ...(related.length > 0 ? { related } : {}) }));
  }
  return out;
}

const BY_TREATMENT: Readonly<Record<string, DiagnosticMessage>> = {
  rejected: Diagnostics.ProviderKeywordRejected,
  ignored: Diagnostics.ProviderKeywordIgnored,
  transformed: Diagnostics.ProviderKeywordTransformed,
  unverified: Diagnostics.ProviderKeywordUnverified,
};

/** One tool finding as a diagnostic at the schema value it is about. */
function toolDiagnostic(profile: ProviderProfile, tool: SurfaceTool, finding: ToolFinding): Diagnostic {
  const { tool: validated, capability } = tool.authored!;
  const cited = `${finding.source}, checked ${profile.version}`;
  if (finding.kind === "name") {
    const message = finding.treatment === "advisory" ? Diagnostics.ProviderToolNameAdvisory : Diagnostics.ProviderToolNameRejected;
    return createDiagnostic(message, validated.location, [tool.name, profile.id, `${finding.reason} (${cited})`], { path: ["tools", tool.name] });
  }
  const location = locate(capability.entry?.entry, tool.name, finding.path, validated.location);
  const path = ["tools", tool.name, "inputSchema", ...finding.path];
  const because = `${finding.reason} (${cited})`;
  switch (finding.kind) {
    case "property-optional":
      return createDiagnostic(Diagnostics.ProviderStrictPropertyOptional, location, [profile.id, tool.name, finding.subject, because], { path, hint: finding.hint });
    case "object-open":
      return createDiagnostic(Diagnostics.ProviderStrictObjectOpen, location, [profile.id, tool.name, finding.subject, because], { path, hint: finding.hint });
    case "budget":
      return createDiagnostic(Diagnostics.ProviderSchemaBudgetExceeded, location, [profile.id, tool.name, finding.actual ?? 0, finding.subject, finding.limit ?? 0, cited], { path, hint: finding.hint });
    default:
      return createDiagnostic(BY_TREATMENT[finding.treatment]!, location, [profile.id, tool.name, because], { path, hint: finding.hint });
  }
}

/** Where a path inside a tool's input schema is written in the entry (its key when it has one). */
function locate(entry: LocatedValue | undefined, toolName: string, segments: readonly (string | number)[], fallback: SourceLocation): SourceLocation {
  if (!entry) return fallback;
  const pointer = ["", ...["tools", toolName, "inputSchema", ...segments.map(String)].map(escapePointerSegment)].join("/");
  const found = locateValue(entry, pointer, fallback);
  return found.key ?? found.value;
}
