/**
 * `assembly-line validate <pluginDir> [--target ID]... [--config FILE | --no-config] [--format pretty|json]`
 * (DESIGN §7): one plugin package checked on its own, as a plugin author does before publishing.
 * `--target` (repeatable, as `compile --target`), else the project configuration's `targets`
 * (found from the plugin folder upwards, as `compile` finds it from the agent root), checks every
 * tool against each provider profile with `compile`'s diagnostics at the same places (new-user
 * trial 129, finding 8: checking a package against OpenAI-strict, Claude or Gemini meant building
 * an agent around it). The configuration's `rules` apply to the diagnostics as they do for `compile`.
 *
 * Exit codes: 0 — no errors (warnings allowed); 1 — the plugin (or the project configuration) has errors.
 */
import * as path from "node:path";
import { toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import { createNodeHost } from "../../common/host.js";
import { hasErrors, relativizeDiagnostic } from "../../diagnostics/diagnostic.js";
import { validatePackage } from "../../compiler/validate-package.js";
import { loadProjectConfig } from "../../build/project-config/load-project-config.js";
import { applySeverityRules } from "../../build/severity-rules.js";
import { configSelection, type ConfigFlags } from "../config-selection.js";
import { compileSettingsOf } from "../../build/compile-settings.js";
import { printDiagnostics, printJson } from "../output.js";

/** Flags of `validate`. */
export interface ValidateFlags extends ConfigFlags {
  readonly format: "pretty" | "json";
  /** `--target ID` (repeatable): wins over `targets` of the configuration. */
  readonly target?: readonly string[];
}

/** Runs `validate`; resolves to 0 when the plugin has no errors, else 1. */
export async function runValidate(pluginDirArgument: string, flags: ValidateFlags): Promise<number> {
  const pluginDir = path.resolve(pluginDirArgument);
  const loaded = await loadProjectConfig(pluginDir, configSelection(flags));
  if (loaded.diagnostics.length > 0) {
    const shown = loaded.diagnostics.map((d) => relativizeDiagnostic(d, pluginDir, path.relative));
    if (flags.format === "json") printJson({ ok: false, diagnostics: shown.map(toJsonDiagnostic) });
    else printDiagnostics(shown, pluginDir);
    return 1;
  }
  // The targets as `compile` takes them (the flag over the configuration, and where the file writes each).
  const settings = compileSettingsOf(loaded.config, flags.target === undefined ? {} : { target: flags.target });
  const written = settings.settingLocations ?? {};
  const targets = settings.targets ?? [];
  const result = validatePackage(createNodeHost(), pluginDir, { targets, targetWrittenAt: (id) => written[`/targets/${targets.indexOf(id)}`] });
  const diagnostics = settings.rules ? applySeverityRules(result.diagnostics, settings.rules) : result.diagnostics;
  const ok = !hasErrors(diagnostics) && !result.plugin.rejected;
  if (flags.format === "json") {
    printJson({ ok, diagnostics: diagnostics.map(toJsonDiagnostic), plugin: result.plugin });
  } else {
    printDiagnostics(diagnostics, pluginDir);
    const { plugin } = result;
    const name = plugin.name ?? path.basename(pluginDir);
    if (plugin.rejected) process.stderr.write(`${name}: rejected (Agent Plugins v1): no component is loaded.\n`);
    else {
      const list = (items: readonly string[]) => (items.length > 0 ? items.join(", ") : "none");
      const checked = targets.length > 0 ? ` (targets: ${targets.join(", ")})` : "";
      process.stdout.write(`${name}: ${ok ? "ok" : "has errors"}${checked}\n  tools: ${list(plugin.tools)}\n  skills: ${list(plugin.skills)}\n  MCP servers: ${list(plugin.mcpServers)}\n`);
    }
  }
  return ok ? 0 : 1;
}
