/**
 * `assembly-line validate <pluginDir>` as a function: checks one plugin package on its own,
 * as a plugin author would before publishing (issue 2 item 6). The same stages as a compile,
 * without an agent: Agent Plugins v1 loading, static analysis of the `ai.assemblyline` entry,
 * descriptor validation, and the plugin's content hash (which must be computable to be locked).
 */
import * as path from "node:path";
import { maskDiagnostic } from "./config/credentials.js";
import { dedupeDiagnostics, hasErrors, relativizeDiagnostic, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { CompilerHost } from "../common/host.js";
import { loadPluginPackage } from "./plugin-package/load-plugin-package.js";
import { createStaticAnalyzer } from "./static-analysis/static-analyzer.js";
import { ONE_SHOT_RETENTION } from "./static-analysis/source-store.js";
import { checkSurfaceCollisions } from "./validation/collisions.js";
import { validatePlugin } from "./validation/validate-plugin.js";
import { hashPluginDirectory } from "./plugin-package/hash-plugin-directory.js";

/** The `plugin` part of `validate`'s JSON output (DESIGN §7). */
export interface PluginSummary {
  readonly name: string | null;
  /** True when the Agent Plugins v1 spec says the plugin must be rejected. */
  readonly rejected: boolean;
  /** Names of the skills that load (skipped ones are diagnostics). */
  readonly skills: readonly string[];
  /** Names of the MCP servers that load (skipped ones are diagnostics). */
  readonly mcpServers: readonly string[];
  /** Tool names declared by the entry (disabled core-tool removals included). */
  readonly tools: readonly string[];
}

/** Result of {@link validatePackage}; diagnostics are relative to the plugin directory. */
export interface PackageValidation {
  readonly ok: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly plugin: PluginSummary;
}

/** Validates the plugin package at `pluginDir` (absolute). Never throws for bad input. */
export function validatePackage(host: CompilerHost, pluginDir: string): PackageValidation {
  const pkg = loadPluginPackage(host, pluginDir);
  const diagnostics: Diagnostic[] = [...pkg.diagnostics];
  let tools: string[] = [];
  if (!pkg.rejected) {
    diagnostics.push(...hashPluginDirectory(pluginDir, host).diagnostics);
    if (pkg.entryFile) {
      const analyzer = createStaticAnalyzer(host, { retainModules: ONE_SHOT_RETENTION });
      const entry = analyzer.analyzeEntry(pkg.entryFile, pluginDir);
      diagnostics.push(...entry.diagnostics);
      const plugin = validatePlugin({
        host,
        capability: pkg.name ?? path.basename(pluginDir),
        pluginRoot: pluginDir,
        entry,
        analyzeDefinition: (file) => analyzer.analyzeDefinition(file, pluginDir),
      });
      diagnostics.push(...plugin.diagnostics, ...checkSurfaceCollisions([plugin]));
      const declared = entry.entry?.value["tools"];
      tools = declared !== null && typeof declared === "object" && !Array.isArray(declared) ? Object.keys(declared).sort() : [];
    }
  }
  const reported = sortDiagnostics(dedupeDiagnostics(diagnostics).map((d) => maskDiagnostic(relativizeDiagnostic(d, pluginDir, path.relative))));
  return {
    ok: !hasErrors(reported) && !pkg.rejected,
    diagnostics: reported,
    plugin: {
      name: pkg.name ?? null,
      rejected: pkg.rejected,
      skills: pkg.skills.map((s) => s.name),
      mcpServers: pkg.mcpServers.map((s) => s.name),
      tools,
    },
  };
}
