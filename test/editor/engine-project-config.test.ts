/**
 * The editor engine with the project configuration (DESIGN §7): the per-file answers follow the
 * configuration's `rules` once the front end sets them (`EditorEngine.setProjectRules`), and the
 * tsserver plugin's loader (`editor/ts-plugin/project-settings.ts`) finds the configuration as
 * `compile` does and adds what `targets` and `tokenBudget` report. Each is compared with the
 * compile driver itself (`build/compile.ts`) given the same configuration.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { compileSettingsOf, editorSettingsOf } from "../../build/compile-settings.js";
import { loadProjectConfig } from "../../build/project-config/load-project-config.js";
import { EMPTY_PROJECT_CONFIG } from "../../build/project-config/types.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { createEditorEngine } from "../../editor/engine/index.js";
import { agentSettingsKey, loadAgentSettings } from "../../editor/ts-plugin/project-settings.js";
import { writeTree } from "../helpers/temp-tree.js";
import { CONFIG, CONFIG_AGENT_FILES, CONFIG_AGENT_TEXTS, writeConfig } from "./config-agent.js";
import { AGENT_FILES } from "./lsp-agent.js";

const seen = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => `${d.code} ${d.severity} ${d.line}:${d.column}`);

/** What the compile driver, with the configuration found for `root`, reports for `file` (relative). */
async function compiled(root: string, file: string): Promise<string[]> {
  const loaded = await loadProjectConfig(root);
  expect(loaded.diagnostics).toEqual([]);
  const { maxWarnings: _limit, ...settings } = compileSettingsOf(loaded.config);
  const result = await compileAgent({ root, check: true, package: false, cache: false, ...settings });
  return seen(result.diagnostics.filter((d) => d.file === file));
}

describe("editor engine with the project configuration", () => {
  it("applies compile's settings but maxWarnings, a limit on the whole compile (editorSettingsOf)", () => {
    const config = { ...EMPTY_PROJECT_CONFIG, file: "/p/assembly-line.config.json", rules: { AL4032: "off" as const }, maxWarnings: 0, targets: ["gemini"], tokenBudget: 10 };
    const editor = editorSettingsOf(config);
    const { maxWarnings, ...rest } = compileSettingsOf(config);
    expect(maxWarnings).toMatchObject({ limit: 0 });
    expect(editor).toEqual(rest);
    expect(editor).not.toHaveProperty("maxWarnings");
  });

  it("applies the rules the front end sets as compile applies them, and takes them away again", async () => {
    const root = writeTree({ ...AGENT_FILES, ...CONFIG_AGENT_TEXTS }, "al-engine-config-");
    writeConfig(root, { rules: CONFIG.rules });
    const engine = createEditorEngine();
    const entry = path.join(root, CONFIG_AGENT_FILES.entry);
    const definition = path.join(root, CONFIG_AGENT_FILES.definition);
    const without = { entry: seen(engine.analyzeFile(entry).diagnostics), definition: seen(engine.analyzeFile(definition).diagnostics) };
    expect(without.entry.map((d) => d.split(" ").slice(0, 2).join(" "))).toEqual(["AL4039 warning", "AL4032 warning"]);

    expect(engine.setProjectRules(root, CONFIG.rules)).toBe(true);
    // The same rules again change nothing (the front end then republishes nothing).
    expect(engine.setProjectRules(root, { ...CONFIG.rules })).toBe(false);
    const entryNow = seen(engine.analyzeFile(entry).diagnostics);
    expect(entryNow).toEqual(await compiled(root, CONFIG_AGENT_FILES.entry));
    expect(entryNow.map((d) => d.split(" ").slice(0, 2).join(" "))).toEqual(["AL4039 error"]);
    expect(seen(engine.analyzeFile(definition).diagnostics)).toEqual(await compiled(root, CONFIG_AGENT_FILES.definition));
    expect(seen(engine.analyzeFile(definition).diagnostics)).toEqual([]);

    expect(engine.setProjectRules(root, {})).toBe(true);
    expect({ entry: seen(engine.analyzeFile(entry).diagnostics), definition: seen(engine.analyzeFile(definition).diagnostics) }).toEqual(without);
  });

  it("loads the configuration found for the agent (tsserver's loader): its rules, and what its targets and tokenBudget report, by file, as compile reports them", async () => {
    const root = writeTree({ ...AGENT_FILES, ...CONFIG_AGENT_TEXTS }, "al-engine-config-");
    writeConfig(root, CONFIG);
    const engine = createEditorEngine();
    const settings = await loadAgentSettings(engine, root, new Map());
    expect(settings.rules).toEqual(CONFIG.rules);
    expect(settings.problems).toEqual([]);
    for (const file of Object.values(CONFIG_AGENT_FILES)) {
      const absolute = path.join(root, file);
      const modelFacing = settings.modelFacing.get(absolute) ?? [];
      expect(seen(modelFacing)).toEqual((await compiled(root, file)).filter((d) => d.startsWith("AL47")));
    }
    expect([...settings.modelFacing.values()].flat().map((d) => d.code).sort()).toEqual(["AL4705", "AL4720"]);
  });

  it("finds no configuration for an agent without one, the same as not loaded yet (the tsserver plugin then asks the editor for nothing)", async () => {
    const root = writeTree({ ...AGENT_FILES, ...CONFIG_AGENT_TEXTS }, "al-engine-config-");
    expect((await loadProjectConfig(root)).config.file).toBeUndefined();
    const settings = await loadAgentSettings(createEditorEngine(), root, new Map());
    expect(agentSettingsKey(settings)).toBe(agentSettingsKey(undefined));
    expect(agentSettingsKey({ ...settings, rules: { AL4032: "off" } })).not.toBe(agentSettingsKey(undefined));
  });

  it("reports an invalid configuration as compile does, and applies none of it", async () => {
    const root = writeTree({ ...AGENT_FILES, ...CONFIG_AGENT_TEXTS }, "al-engine-config-");
    writeConfig(root, { rules: { AL4039: "sometimes" }, targets: ["gemini"] });
    const settings = await loadAgentSettings(createEditorEngine(), root, new Map());
    const loaded = await loadProjectConfig(root);
    expect(loaded.diagnostics.length).toBeGreaterThan(0);
    expect(settings.problems).toEqual(loaded.diagnostics);
    expect(settings.rules).toEqual({});
    expect(settings.modelFacing.size).toBe(0);
  });
});
