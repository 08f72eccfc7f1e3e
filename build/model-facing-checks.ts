/**
 * The compile's model-facing checks (issue 11 items 1 and 2): every tool of every surface
 * against the chosen provider profiles (`targets`), and each surface's initial snapshot
 * against its `tokenBudget`. A compile that asks for neither pays nothing: the profiles run
 * only with targets, and the tokenizer is loaded only with a budget, and then only for tool
 * texts whose counts are not in the agent's token-count cache (`./token-count-cache.ts`).
 */
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import { checkProviderTargets } from "../compiler/providers/check-targets.js";
import { checkTokenBudget, type TokenBudget } from "../compiler/providers/token-budget.js";
import { surfaceTools } from "../compiler/providers/surface-tools.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceLocation } from "../common/positions.js";
import { childPointer } from "../common/json-pointer.js";
import { BUDGET_TOKENS_CACHE_FILE, withCachedTokenCounts } from "./token-count-cache.js";

/** What the checks are asked for, and how the token-count cache is used. */
export interface ModelFacingOptions {
  /** `--target` / `targets`: provider profile ids. */
  readonly targets?: readonly string[];
  /** `--token-budget` / `tokenBudget`. */
  readonly tokenBudget?: TokenBudget;
  /** Where the configuration wrote them (`CompileOptions.settingLocations`). */
  readonly settingLocations?: Readonly<Record<string, SourceLocation>>;
  /** The absolute agent root, whose `.assemblyline/cache/` holds the counts. */
  readonly root: string;
  /** `false` (`--no-cache`): count every tool with the encoder. Default `true`. */
  readonly readCache?: boolean;
  /** Whether to write the counts used to the cache (not under `--check`, only in an agent root). */
  readonly saveCache: boolean;
}

/**
 * Diagnostics of `targets` and `tokenBudget` over the analysed agent (none when neither is
 * set). The counts are the encoder's whether or not they come from the cache.
 */
export async function checkModelFacingRules(analysis: AgentAnalysis, options: ModelFacingOptions): Promise<Diagnostic[]> {
  const targets = options.targets ?? [];
  if (targets.length === 0 && options.tokenBudget === undefined) return [];
  if (analysis.agent.surfaces.length === 0) return [];
  const surfaces = surfaceTools(analysis);
  const written = options.settingLocations ?? {};
  const targetAt = (id: string): SourceLocation | undefined => written[`/targets/${targets.indexOf(id)}`];
  const diagnostics = targets.length > 0 ? checkProviderTargets(analysis, targets, surfaces, targetAt) : [];
  const budget = options.tokenBudget;
  if (budget !== undefined) {
    const rootAgentFile = analysis.agent.surfaces[0]!.agentFile;
    const overruns = await withCachedTokenCounts(options.root, (count) => checkTokenBudget(surfaces, budget, count, rootAgentFile, (key) => written[childPointer("/tokenBudget", key)]), {
      file: BUDGET_TOKENS_CACHE_FILE,
      read: options.readCache !== false,
      save: options.saveCache,
    });
    diagnostics.push(...overruns);
  }
  return diagnostics;
}
