/**
 * The whole-agent half of the language server: what `assembly-line compile --check
 * --no-package` reports for an agent, read through the editor's overlay host (unsaved buffers
 * win over the disk), grouped by absolute file. It covers the files the per-file engine does
 * not: `agent.md` (front matter and capability config, at their YAML positions),
 * `plugin.json`, `mcp.json`, `SKILL.md` and `plugins.lock` (a missing or stale lock, with the
 * CLI's code and message). It applies the project configuration found for the agent as `compile`
 * does (`build/compile-settings.ts`: `rules`, `targets`, `tokenBudget`; not `maxWarnings`, a
 * whole-compile limit) and reports an invalid one at its file. Writes nothing.
 */
import * as path from "node:path";
import { compileAgent } from "../../build/compile.js";
import { editorSettingsOf } from "../../build/compile-settings.js";
import { loadProjectConfig } from "../../build/project-config/load-project-config.js";
import type { RuleSetting } from "../../build/project-config/types.js";
import type { CompilerHost } from "../../common/host.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";

/** Diagnostics of one agent by absolute file path (files with none are absent). */
export type DiagnosticsByFile = ReadonlyMap<string, readonly Diagnostic[]>;

/** What one whole-agent analysis found: its diagnostics, and the plugin folders it read outside the agent root. */
export interface AgentDiagnostics {
  readonly byFile: DiagnosticsByFile;
  /**
   * Absolute folders of the agent's plugin packages that lie outside its root, sorted: a
   * workspace's own plugin package read through its `node_modules` link, a package hoisted to a
   * workspace root's `node_modules`, a local `source` above the agent (`compiler/agent/resolve-capabilities.ts`).
   * A change there can stale the agent's `plugins.lock`, so the language server watches them and
   * analyses the agent again when one changes (new-user trial 120).
   */
  readonly outside: readonly string[];
  /**
   * The project configuration's `rules` the analysis applied (`{}` when there is none, or it is
   * invalid): the server gives them to the per-file engine, so that open files follow them too.
   */
  readonly rules: Readonly<Record<string, RuleSetting>>;
  /**
   * The absolute configuration file found for the agent (a valid one, or the one whose errors
   * are reported), if any: a change to it analyses the agent again, as a change to `agent.md` does.
   */
  readonly configFile?: string;
}

/**
 * Codes the editor leaves out: "plugins.lock was not checked because the inputs have errors"
 * is what `--check` says instead of a diff; in the editor the input errors are already shown
 * where they are, and `compile` itself (which the editor mirrors) never reports it.
 */
const NOT_SHOWN: ReadonlySet<string> = new Set([Diagnostics.LockfileNotChecked.code]);

/**
 * Analyses the agent at `root` (absolute) as `compile --check --no-package` does and returns
 * its diagnostics by absolute file, with absolute paths in `file` and `related[].file`, and
 * the plugin folders it read outside `root` ({@link AgentDiagnostics.outside}).
 * Diagnostics without a file (a root that is not a folder) are attached to `root/agent.md`.
 * Fix-it commands name the root relative to the working directory, as the CLI's do.
 * Never throws for bad input.
 */
export async function analyzeAgentDiagnostics(host: CompilerHost, root: string): Promise<AgentDiagnostics> {
  const loaded = await loadProjectConfig(root);
  // An invalid configuration: its errors at the configuration file, where `compile` reports
  // them; the agent's files are analysed without it (compile would stop there and say nothing
  // of them, but in the editor they keep their diagnostics while the configuration is fixed).
  const valid = loaded.diagnostics.length === 0;
  // Not `maxWarnings`: a limit on the whole compile, not a problem of a file (`editorSettingsOf`).
  const settings = valid ? editorSettingsOf(loaded.config) : {};
  const result = await compileAgent({ root, host, check: true, package: false, ...settings });
  const byFile = new Map<string, Diagnostic[]>();
  for (const reported of [...loaded.diagnostics.map((d) => ({ ...d, file: path.relative(root, d.file) })), ...result.diagnostics]) {
    if (NOT_SHOWN.has(reported.code)) continue;
    const file = reported.file === "" ? path.join(root, "agent.md") : path.resolve(root, reported.file);
    const diagnostic: Diagnostic = {
      ...reported,
      file,
      ...(reported.related ? { related: reported.related.map((r) => ({ ...r, file: r.file === "" ? "" : path.resolve(root, r.file) })) } : {}),
    };
    const list = byFile.get(file) ?? [];
    list.push(diagnostic);
    byFile.set(file, list);
  }
  const outside = new Set<string>();
  for (const { source } of result.analysis.capabilities.map((capability) => capability.resolved)) {
    const relative = path.relative(root, source.dir);
    if (relative.startsWith("..") || path.isAbsolute(relative)) outside.add(path.resolve(source.dir));
  }
  const configFile = loaded.config.file ?? loaded.diagnostics.find((d) => d.file !== "" && d.file !== root)?.file;
  return { byFile, outside: [...outside].sort(), rules: settings.rules ?? {}, ...(configFile !== undefined ? { configFile } : {}) };
}
