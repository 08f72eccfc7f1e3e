/**
 * `assembly-line validate <pluginDir>` as a function: checks one plugin package on its own,
 * as a plugin author would before publishing (issue 2 item 6). The same stages as a compile,
 * without an agent: Agent Plugins v1 loading, static analysis of the `ai.assemblyline` entry,
 * descriptor validation, and the plugin's content hash (which must be computable to be locked).
 * With `targets` (`validate --target`, the project configuration's `targets`), every tool is
 * checked against each provider profile as `compile --target` checks it, in a surface that
 * selects this plugin alone (new-user trial 129, finding 8).
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
import { checkSurfaceTargets } from "./providers/check-targets.js";
import { pluginSurfaceTools, type SurfaceTools } from "./providers/surface-tools.js";
import { fileStart, type SourceLocation } from "../common/positions.js";

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

/** What {@link validatePackage} checks beyond the package itself. */
export interface PackageValidationOptions {
  /** Provider profile ids every tool is checked against (`compiler/providers/`; docs/providers.md). */
  readonly targets?: readonly string[];
  /** Where a target id was written (the project configuration's `targets` entry), for AL4712; else the package's start. */
  readonly targetWrittenAt?: (id: string) => SourceLocation | undefined;
}

/**
 * Validates the plugin package at `pluginDir` (absolute). With `options.targets`, also what each
 * target refuses, drops or rewrites of its tools, at the same places `compile --target` reports
 * them; the per-request limits of a surface (a tool cap, anthropic-strict's parameter counts) are
 * counted for a surface that selects this plugin alone, with the core tools it does not disable,
 * and reported at the entry's start. Never throws for bad input.
 */
export function validatePackage(host: CompilerHost, pluginDir: string, options: PackageValidationOptions = {}): PackageValidation {
  const pkg = loadPluginPackage(host, pluginDir);
  const diagnostics: Diagnostic[] = [...pkg.diagnostics];
  let tools: string[] = [];
  // The tools a surface selecting this plugin alone may send, for the targets.
  let surface: SurfaceTools | undefined;
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
      surface = pluginSurfaceTools({ id: ".", agentFile: pkg.entryFile }, pkg.name ?? path.basename(pluginDir), plugin, { entry });
    }
  }
  const targets = options.targets ?? [];
  if (targets.length > 0) {
    const start = fileStart(pkg.entryFile ?? path.join(pluginDir, "plugin.json"));
    diagnostics.push(...checkSurfaceTargets(surface ? [surface] : [], targets, (id) => options.targetWrittenAt?.(id) ?? start));
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
