/**
 * The compile's model-facing checks (issue 11 items 1 and 2): every tool of every surface
 * against the chosen provider profiles (`targets`), and each surface's initial snapshot
 * against its `tokenBudget`. A compile that asks for neither pays nothing: the profiles run
 * only with targets, and the tokenizer is loaded only with a budget.
 */
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import { checkProviderTargets } from "../compiler/providers/check-targets.js";
import { checkTokenBudget, type TokenBudget } from "../compiler/providers/token-budget.js";
import { loadTokenCounter } from "../compiler/providers/tokens.js";
import { surfaceTools } from "../compiler/providers/surface-tools.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";

/** Diagnostics of `targets` and `tokenBudget` over the analysed agent (none when neither is set). */
export async function checkModelFacingRules(analysis: AgentAnalysis, options: { readonly targets?: readonly string[]; readonly tokenBudget?: TokenBudget }): Promise<Diagnostic[]> {
  const targets = options.targets ?? [];
  if (targets.length === 0 && options.tokenBudget === undefined) return [];
  if (analysis.agent.surfaces.length === 0) return [];
  const surfaces = surfaceTools(analysis);
  const diagnostics = targets.length > 0 ? checkProviderTargets(analysis, targets, surfaces) : [];
  if (options.tokenBudget !== undefined) {
    const count = await loadTokenCounter();
    diagnostics.push(...checkTokenBudget(surfaces, options.tokenBudget, count, analysis.agent.surfaces[0]!.agentFile));
  }
  return diagnostics;
}
