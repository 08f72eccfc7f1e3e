/**
 * The compile settings a project configuration gives, with `compile`'s flags over them: what,
 * beside the agent's own files, decides whether a compile refuses (docs/configuration.md: `rules`,
 * `maxWarnings`, `targets`, `tokenBudget`). One rule for every command that compiles: `compile`
 * itself (`cli/compile-targets.ts`), `review` (`cli/commands/review.ts`), the host commands'
 * compile-first step (`cli/ensure-artifact.ts`, bound by `cli/commands/host-report.ts`),
 * `validate`'s `targets` (`cli/commands/validate.ts`) and the editor (`editor/engine`, `editor/lsp`,
 * `editor/ts-plugin`: docs/editor.md), so none of them writes a lock, passes a tree or shows a
 * file otherwise than `compile` with the same configuration (new-user trial 129, finding 6).
 * In `build/`, below both the CLI and the editor (layers: docs/where-rules-live.md).
 *
 * Kept free of runtime imports beyond `node:path`: the host commands load it on every start,
 * and a host command on a current artifact loads no compiler (docs/performance.md).
 */
import type { SourceLocation } from "../common/positions.js";
import type { TokenBudget } from "../compiler/providers/token-budget.js";
import type { WarningLimit } from "./severity-rules.js";
import { shownFile, type ProjectConfig, type RuleSetting } from "./project-config/types.js";

/** The settings of {@link compileSettingsOf}: fields of `CompileOptions` (`build/compile.ts`) of the same names. */
export interface CompileSettings {
  /** `rules`: severity per code. */
  readonly rules?: Readonly<Record<string, RuleSetting>>;
  /** `--max-warnings` / `maxWarnings`, with where it came from (AL9115 says so). */
  readonly maxWarnings?: WarningLimit;
  /** `--target` / `targets`: provider profile ids. */
  readonly targets?: readonly string[];
  /** `--token-budget` / `tokenBudget`. */
  readonly tokenBudget?: TokenBudget;
  /** Where the configuration wrote `targets` and `tokenBudget` (a flag's have no place in a file). */
  readonly settingLocations?: Readonly<Record<string, SourceLocation>>;
}

/** The flags of `compile` (and `validate`, `review`) that win over the configuration's settings. */
export interface CompileSettingFlags {
  /** `--target ID`…: wins over `targets` of the configuration (an empty list is no flag). */
  readonly target?: readonly string[];
  /** `--token-budget N`: wins over `tokenBudget`. */
  readonly tokenBudget?: number;
  /** `--max-warnings N`: wins over `maxWarnings`. */
  readonly maxWarnings?: number;
}

/**
 * The compile settings of `config` with `flags` over them (flags win; docs/configuration.md).
 * Only the settings given appear (an empty `rules` or `targets` is left out), so a configuration
 * that sets none gives `{}`.
 */
export function compileSettingsOf(config: ProjectConfig, flags: CompileSettingFlags = {}): CompileSettings {
  const maxWarnings: WarningLimit | undefined =
    flags.maxWarnings !== undefined
      ? { limit: flags.maxWarnings, source: "--max-warnings" }
      : config.maxWarnings !== undefined
        ? { limit: config.maxWarnings, source: `maxWarnings in ${config.file === undefined ? "the configuration" : shownFile(config.file)}` }
        : undefined;
  const targetsFlag = flags.target !== undefined && flags.target.length > 0;
  const targets = targetsFlag ? flags.target : config.targets;
  const tokenBudget = flags.tokenBudget ?? config.tokenBudget;
  const settingLocations = Object.fromEntries(
    Object.entries(config.locations ?? {}).filter(([pointer]) => (!targetsFlag && pointer.startsWith("/targets/")) || (flags.tokenBudget === undefined && pointer.startsWith("/tokenBudget/"))),
  );
  return {
    ...(Object.keys(config.rules).length > 0 ? { rules: config.rules } : {}),
    ...(maxWarnings ? { maxWarnings } : {}),
    ...(targets && targets.length > 0 ? { targets } : {}),
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    ...(Object.keys(settingLocations).length > 0 ? { settingLocations } : {}),
  };
}

/**
 * The settings an editor applies to what it shows for a file (DESIGN §7: what `compile` reports
 * for the file): `compile`'s from {@link compileSettingsOf}, but `maxWarnings`, a limit on the
 * whole compile whose AL9115 belongs to no file (`compile` keeps the count). One rule for the
 * language server (`editor/lsp/agent-diagnostics.ts`) and the tsserver plugin
 * (`editor/ts-plugin/project-settings.ts`).
 */
export function editorSettingsOf(config: ProjectConfig): Omit<CompileSettings, "maxWarnings"> {
  const { maxWarnings: _wholeCompileLimit, ...settings } = compileSettingsOf(config);
  return settings;
}

/**
 * A key that differs whenever the settings could change a compile's verdict: the rules, the
 * warning limit (its number), the targets and the token budget, with object keys sorted. Where
 * the settings are written (`settingLocations`, the limit's source) changes only where a
 * diagnostic points, not whether there is one, and is left out. The inputs record
 * (`cli/inputs-record.ts`) keeps it: a record made under other settings does not vouch for these.
 */
export function compileSettingsKey(settings: Pick<CompileSettings, "rules" | "maxWarnings" | "targets" | "tokenBudget">): string {
  const sorted = (value: Readonly<Record<string, unknown>> | undefined): [string, unknown][] | undefined =>
    value === undefined ? undefined : Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const budget = settings.tokenBudget;
  return JSON.stringify([
    sorted(settings.rules && Object.keys(settings.rules).length > 0 ? settings.rules : undefined) ?? null,
    settings.maxWarnings?.limit ?? null,
    settings.targets && settings.targets.length > 0 ? [...settings.targets] : null,
    budget === undefined ? null : typeof budget === "number" ? budget : sorted(budget),
  ]);
}
