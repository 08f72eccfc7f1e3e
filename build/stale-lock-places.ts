/**
 * Where in the agent's own files a stale `plugins.lock` differs (new-user trial 119/120): AL6002
 * is reported on `plugins.lock`, which a pull request that forgot to compile does not change, so
 * its GitHub annotation lands on no line of the diff. For `--format github|sarif`, each changed
 * tool field is also reported as a notice (AL6218) where its value is written: the descriptor in
 * the plugin's entry, or the capability's `config` in `agent.md`; and `review --format
 * github|sarif` places its changes there for the same reason (new-user trial 125).
 */
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../common/property-path.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import * as path from "node:path";
import { fileStart, rebaseFile } from "../common/positions.js";
import { escapePointerSegment } from "../common/json-pointer.js";
import { locateValue } from "../compiler/model.js";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import type { LockfileCheckReport } from "../lockfile/check-lockfile.js";
import type { ContractReview } from "../lockfile/review-contract.js";
import { lockPathOfChange } from "../lockfile/review-diagnostics.js";
import type { SourceLocation } from "../common/positions.js";

/** At most this many notices per capability: a renamed plugin changes every field of every tool. */
const MAX_PER_CAPABILITY = 10;

/**
 * One AL6218 notice per changed tool of an out-of-date lock (`report.status === "out-of-date"`),
 * placed where the analysed agent writes the value the lock holds otherwise ({@link toolFieldPlace}):
 * a tool's descriptor member in the plugin's entry (`tools.<name>.<field>`; a tool the lock lacks
 * at its descriptor), or its `config` at the capability's key in `agent.md`. Changes without a
 * place of their own (a tool the lock still has and the entry no longer does, a bundle's
 * integrity, a package's version or content) are left to AL6002, which names the fix command:
 * the notice's words name no agent, so the notices of agents that share a plugin package are one
 * annotation (new-user trial 125). Diagnostics hold absolute paths, as the analysis's do. Never throws.
 */
export function staleLockPlaces(report: LockfileCheckReport, analysis: AgentAnalysis): Diagnostic[] {
  if (report.status !== "out-of-date") return [];
  const out: Diagnostic[] = [];
  for (const group of report.groups) {
    if (group.surface === undefined || group.capability === undefined) continue;
    const seen = new Set<string>();
    for (const change of group.changes) {
      // surfaces, <surface>, capabilities, <key>, tools, <tool>, <field>, …
      const [, , , , tools, tool, field] = change.segments;
      // A bundle's integrity follows any change of the plugin's content, and a --no-package
      // compile carries none over for a changed plugin: no place of its own.
      if (tools !== "tools" || typeof tool !== "string" || (change.kind === "removed" && field === undefined) || field === "bundle") continue;
      const place = `${tool}\0${String(field ?? "")}`;
      if (seen.has(place) || seen.size >= MAX_PER_CAPABILITY) continue;
      const written = toolFieldPlace(analysis, group.surface, group.capability, tool, field === undefined ? undefined : String(field));
      if (written === undefined) break; // The capability has no analysed entry: nothing of it has a place.
      seen.add(place);
      const what = field === undefined ? `tool '${tool}' is not in plugins.lock` : `${change.path} differs from plugins.lock`;
      out.push(createDiagnostic(Diagnostics.LockfileStaleHere, written.location, [what], { path: written.path }));
    }
  }
  return out;
}

/** Where the agent writes a locked tool's value: {@link toolFieldPlace}'s answer. */
export interface ToolFieldPlace {
  /** Absolute file, line and column (and end) of the value, as the analysis located it. */
  readonly location: SourceLocation;
  /** The property path in that file: `tools.<tool>[.<field>]` in the entry, `capabilities.<key>.config` in agent.md. */
  readonly path: readonly string[];
}

/**
 * Where the analysed agent writes the value a lock holds at
 * `surfaces.<surface>.capabilities.<capability>.tools.<tool>[.<field>]`: the tool's descriptor
 * member in the plugin's entry (the descriptor itself without `field`, or when the entry does
 * not write that member, e.g. a derived `requiredConfig` or an approval gate it no longer has),
 * or the capability's key in `agent.md` for `config` (the agent's `capabilities:` config is what
 * the lock records there). `undefined` when the capability was not analysed or has no entry
 * (an MCP-only or skills-only plugin): the lock is the only place then. The one rule of where a
 * lock's tool field comes from in the sources, for AL6218 and `review`'s placed changes.
 */
export function toolFieldPlace(analysis: AgentAnalysis, surface: string, capability: string, tool: string, field?: string): ToolFieldPlace | undefined {
  const analysed = analysis.capabilities.find((c) => c.surface.id === surface && c.resolved.request.key === capability);
  const entry = analysed?.entry;
  if (analysed === undefined || entry?.entry === undefined) return undefined;
  if (field === "config") return { location: analysed.resolved.request.location, path: ["capabilities", capability, "config"] };
  const pointer = `/tools/${escapePointerSegment(tool)}${field === undefined ? "" : `/${escapePointerSegment(field)}`}`;
  return { location: locateValue(entry.entry, pointer, fileStart(entry.file)).value, path: ["tools", tool, ...(field === undefined ? [] : [field])] };
}

/**
 * `review --format github|sarif` on an out-of-date lock (a pull request that changed a plugin
 * without compiling, new-user trial 125): each change is placed where the agent writes it
 * ({@link toolFieldPlace}) instead of on the lock on disk, whose lines are the old lock's and not
 * in the pull request's diff. A change with no place in the sources (a removed tool, a package's
 * version or content) keeps its place in the lock. `diagnostics[i]` is `review.changes[i]`'s
 * (`lockfile/review-diagnostics.ts`); the result keeps that order, every file relative to `root`
 * (the agent root, absolute) with `/` separators, as reported diagnostics are (DESIGN §7).
 */
export function placeReviewInSources(review: ContractReview, diagnostics: readonly Diagnostic[], analysis: AgentAnalysis, root: string): Diagnostic[] {
  return diagnostics.map((diagnostic, index) => {
    const change = review.changes[index];
    if (change === undefined || change.tool === null || change.kind === "tool-removed") return diagnostic;
    // surfaces, <surface>, capabilities, <key>, tools, <tool>, <member>
    const member = lockPathOfChange(change)[6];
    const written = toolFieldPlace(analysis, change.surface, change.capability, change.tool, member);
    if (written === undefined) return diagnostic;
    const { endLine: _endLine, endColumn: _endColumn, ...rest } = diagnostic;
    const { file, line, column, endLine, endColumn } = written.location;
    return { ...rest, file: rebaseFile(file, (f) => path.relative(root, f)), line, column, ...(endLine !== undefined && endColumn !== undefined ? { endLine, endColumn } : {}), path: formatPropertyPath(written.path) };
  });
}
