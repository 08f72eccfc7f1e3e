/**
 * Where in the agent's own files a stale `plugins.lock` differs (new-user trial 119/120): AL6002
 * is reported on `plugins.lock`, which a pull request that forgot to compile does not change, so
 * its GitHub annotation lands on no line of the diff. For `--format github|sarif`, each changed
 * tool field is also reported as a notice (AL6218) where its value is written: the descriptor in
 * the plugin's entry, or the capability's `config` in `agent.md`.
 */
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { fileStart } from "../common/positions.js";
import { escapePointerSegment } from "../common/json-pointer.js";
import { locateValue } from "../compiler/model.js";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import type { LockfileCheckReport } from "../lockfile/check-lockfile.js";

/** At most this many notices per capability: a renamed plugin changes every field of every tool. */
const MAX_PER_CAPABILITY = 10;

/**
 * One AL6218 notice per changed tool of an out-of-date lock (`report.status === "out-of-date"`),
 * placed where the analysed agent writes the value the lock holds otherwise: a tool's
 * descriptor member in the plugin's entry (`tools.<name>.<field>`; a tool the lock lacks at its
 * descriptor), or its `config` at the capability's key in `agent.md`. Changes without a place
 * of their own (a tool the lock still has and the entry no longer does, a bundle's integrity, a
 * package's version or content) are left to AL6002, which names the fix command: the notice's
 * words name no agent, so the notices of agents that share a plugin package are one annotation
 * (new-user trial 125). Diagnostics hold absolute paths, as the analysis's do. Never throws.
 */
export function staleLockPlaces(report: LockfileCheckReport, analysis: AgentAnalysis): Diagnostic[] {
  if (report.status !== "out-of-date") return [];
  const out: Diagnostic[] = [];
  for (const group of report.groups) {
    if (group.surface === undefined || group.capability === undefined) continue;
    const capability = analysis.capabilities.find((c) => c.surface.id === group.surface && c.resolved.request.key === group.capability);
    const entry = capability?.entry;
    if (capability === undefined || entry?.entry === undefined) continue;
    const seen = new Set<string>();
    for (const change of group.changes) {
      // surfaces, <surface>, capabilities, <key>, tools, <tool>, <field>, …
      const [, , , , tools, tool, field] = change.segments;
      // A bundle's integrity follows any change of the plugin's content, and a --no-package
      // compile carries none over for a changed plugin: no place of its own.
      if (tools !== "tools" || typeof tool !== "string" || (change.kind === "removed" && field === undefined) || field === "bundle") continue;
      const place = `${tool}\0${String(field ?? "")}`;
      if (seen.has(place) || seen.size >= MAX_PER_CAPABILITY) continue;
      seen.add(place);
      const what = field === undefined ? `tool '${tool}' is not in plugins.lock` : `${change.path} differs from plugins.lock`;
      const location =
        field === "config"
          ? capability.resolved.request.location
          : locateValue(entry.entry, `/tools/${escapePointerSegment(tool)}${field === undefined ? "" : `/${escapePointerSegment(String(field))}`}`, fileStart(entry.file)).value;
      // The property path in the file it is placed in: the entry's descriptor member, or the capability's config in agent.md.
      const at = field === "config" ? ["capabilities", capability.resolved.request.key, "config"] : ["tools", tool, ...(field === undefined ? [] : [String(field)])];
      out.push(createDiagnostic(Diagnostics.LockfileStaleHere, location, [what], { path: at }));
    }
  }
  return out;
}
