/**
 * The project configuration in the tsserver plugin (DESIGN §7: the editor shows what `compile`
 * reports, and `compile` applies the configuration found for the agent). tsserver asks for
 * diagnostics synchronously, and the configuration loads asynchronously (cosmiconfig, a
 * JavaScript or TypeScript configuration is imported), as do the token counts of `tokenBudget`:
 * so the plugin loads them after an answer, for the agent it was about, and when they change
 * what the open files show, asks the editor to ask again (as for the collisions it reads late).
 *
 * The rule is compile's: the configuration is found from the agent root upwards
 * (`build/project-config/`), its settings are `build/compile-settings.ts`'s; `rules` go to the
 * engine ({@link EditorEngine.setProjectRules}), `targets` and `tokenBudget` are checked over
 * the engine's analysis of the whole agent (`build/model-facing-checks.ts`), with the rules
 * applied to what they report, as `compile` applies them (`build/severity-rules.ts`).
 * `maxWarnings` is a whole-compile limit, not a problem of a file: left to `compile`.
 */
import { editorSettingsOf } from "../../build/compile-settings.js";
import { checkModelFacingRules } from "../../build/model-facing-checks.js";
import { loadProjectConfig } from "../../build/project-config/load-project-config.js";
import type { RuleSetting } from "../../build/project-config/types.js";
import { applySeverityRules } from "../../build/severity-rules.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { BufferSource, EditorEngine } from "../engine/index.js";

/** What the configuration of one agent adds to the plugin's answers. */
export interface AgentSettings {
  /** The configuration's `rules` (`{}` without one, or with an invalid one). */
  readonly rules: Readonly<Record<string, RuleSetting>>;
  /** What `targets` and `tokenBudget` report, by absolute file, with the rules applied. */
  readonly modelFacing: ReadonlyMap<string, readonly Diagnostic[]>;
  /** An invalid configuration's errors (absolute files): tsserver has no place for them but its log. */
  readonly problems: readonly Diagnostic[];
}

/**
 * Loads the configuration of the agent at `root` (absolute) and checks `targets` and
 * `tokenBudget` over `engine`'s analysis of the agent from `buffers`. Writes nothing (the token
 * counts are read from the agent's cache, not saved). Never throws for a bad configuration: its
 * errors are {@link AgentSettings.problems}, and the agent's files are then shown without it.
 */
export async function loadAgentSettings(engine: EditorEngine, root: string, buffers: BufferSource): Promise<AgentSettings> {
  const loaded = await loadProjectConfig(root);
  const valid = loaded.diagnostics.length === 0;
  // Not `maxWarnings`: a limit on the whole compile, not a problem of a file (`editorSettingsOf`).
  const settings = valid ? editorSettingsOf(loaded.config) : {};
  const rules = settings.rules ?? {};
  const modelFacing = new Map<string, Diagnostic[]>();
  if (settings.targets !== undefined || settings.tokenBudget !== undefined) {
    const analysis = engine.analyzeAgent(root, buffers);
    const found = await checkModelFacingRules(analysis, { ...settings, root, saveCache: false });
    for (const diagnostic of applySeverityRules(found, rules)) modelFacing.set(diagnostic.file, [...(modelFacing.get(diagnostic.file) ?? []), diagnostic]);
  }
  return { rules, modelFacing, problems: loaded.diagnostics };
}

/** The settings of an agent without a configuration (what the answers hold before any load). */
const NO_SETTINGS: AgentSettings = { rules: {}, modelFacing: new Map(), problems: [] };

/**
 * A key that differs when two {@link AgentSettings} would change the answers differently;
 * `undefined` (not loaded yet) is the same as no configuration, so that loading none asks
 * the editor for nothing.
 */
export function agentSettingsKey(given: AgentSettings | undefined): string {
  const settings = given ?? NO_SETTINGS;
  return JSON.stringify([Object.entries(settings.rules).sort(), [...settings.modelFacing].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), settings.problems]);
}
