/**
 * The config's `tokenBudget` (issue 11 item 2): a number for every surface, or an object keyed
 * by surface path (`"."` for the root, `"subagents/<name>"` for a child). A surface whose
 * initial snapshot costs more tokens than its budget gets AL4720, naming its largest authored
 * tools (the ones `visibility: "deferred"` can move out of the snapshot) and the core tools'
 * share. Counts are those of `tokens.ts` (o200k_base over the tool JSON as OpenAI receives it).
 */
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, type SourceLocation } from "../../common/positions.js";
import { byCodeUnits } from "../../common/compare.js";
import { serializeCanonicalJson } from "../../common/canonical-json.js";
import { initialSnapshot, type SurfaceTool, type SurfaceTools } from "./surface-tools.js";
import { countToolTokens, tokenCountLabel, type TokenCounter } from "./tokens.js";

/**
 * A tool as the runtime sends it: an authored tool's inputSchema with its keys in canonical
 * order, as the artifact records it (the lock and the manifest are canonical JSON), so the count is the one
 * `tools` prints from the artifact (new-user trial of 6 December: the schema as written, in
 * another key order, counted a token more per tool).
 */
function asLocked(tool: SurfaceTool): SurfaceTool {
  // Core tools are sent from the catalogue as written (`contract/core-catalog.ts`), never from the artifact.
  if (tool.authored === undefined) return tool;
  return { ...tool, inputSchema: JSON.parse(serializeCanonicalJson(tool.inputSchema)) as SurfaceTool["inputSchema"] };
}

/** `tokenBudget`: one number for every surface, or budgets by surface path. */
export type TokenBudget = number | { readonly [surfacePath: string]: number };

/** How many of the largest tools an overrun names. */
export const LARGEST_TOOLS_NAMED = 3;

/**
 * Diagnostics for the surfaces over their budget (AL4720), and for budget keys that name no
 * surface (AL4721, where `writtenAt` says the key is written, else at `rootAgentFile`). Never throws.
 */
export function checkTokenBudget(surfaces: readonly SurfaceTools[], budget: TokenBudget, count: TokenCounter, rootAgentFile: string, writtenAt: (key: string) => SourceLocation | undefined = () => undefined): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const ids = surfaces.map((surface) => surface.surface.id);
  if (typeof budget !== "number") {
    for (const key of Object.keys(budget).sort(byCodeUnits)) {
      if (!ids.includes(key)) diagnostics.push(createDiagnostic(Diagnostics.TokenBudgetUnknownSurface, writtenAt(key) ?? fileStart(rootAgentFile), [key, ids.map((id) => `"${id}"`).join(", ")]));
    }
  }
  for (const surface of surfaces) {
    const id = surface.surface.id;
    const limit = typeof budget === "number" ? budget : Object.hasOwn(budget, id) ? budget[id] : undefined;
    if (limit === undefined) continue;
    const snapshot = initialSnapshot(surface);
    const counted = countToolTokens(snapshot.map(asLocked), count);
    if (counted.total <= limit) continue;
    // Authored tools are named first: they are the ones `visibility: "deferred"` can move out.
    const tools = counted.tools.map((tool, i) => ({ ...tool, core: snapshot[i]!.authored === undefined }));
    const core = tools.filter((tool) => tool.core).reduce((sum, tool) => sum + tool.tokens, 0);
    const authored = tools.filter((tool) => !tool.core).sort((a, b) => b.tokens - a.tokens || byCodeUnits(a.name, b.name));
    const largest = authored.length > 0 ? authored.slice(0, LARGEST_TOOLS_NAMED).map((tool) => `${tool.name} (${tool.tokens})`).join(", ") : "none of the surface's own tools";
    // When the core tools alone are over, deferring authored tools cannot help (new-user trial of 6 December).
    const hint = core > limit ? coreOverHint(core, snapshot.filter((tool) => tool.authored === undefined).map((tool) => tool.name)) : undefined;
    diagnostics.push(createDiagnostic(Diagnostics.TokenBudgetExceeded, fileStart(surface.surface.agentFile), [id, counted.total, tokenCountLabel(), limit, largest, core], hint ? { hint } : {}));
  }
  return diagnostics;
}

/** AL4720's hint when the core tools alone cost more than the budget. */
function coreOverHint(core: number, names: readonly string[]): string {
  const example = names.find((name) => name !== "delegate") ?? "bash";
  return `The core tools alone take ${core} tokens, more than the budget: remove those the agent does not need with a \`${example}: { disabled: true }\` descriptor in a plugin's entry (docs/agents.md), or raise tokenBudget.`;
}
