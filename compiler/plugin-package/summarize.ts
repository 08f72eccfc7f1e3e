/**
 * Plain summaries of a loaded {@link PluginPackage}, for `assembly-line validate <pluginDir>`
 * (DESIGN §7: `plugin: { name, rejected, skills, mcpServers, tools }`) and for tests.
 */
import * as path from "node:path";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { PluginPackage } from "../model.js";

/** The manifest outcome in the corpus vocabulary (Agent Plugins v1 §5.2, §8.1). */
export type ManifestOutcome = "valid" | "valid-with-warnings" | "rejected";

/** What `validate` prints about a plugin (the lead adds `tools` from static analysis). */
export interface PluginPackageSummary {
  readonly name: string | null;
  readonly version: string | null;
  readonly rejected: boolean;
  readonly manifest: ManifestOutcome;
  /** Names of loaded skills, sorted. */
  readonly skills: readonly string[];
  /** Names of loaded MCP servers, sorted. */
  readonly mcpServers: readonly string[];
  readonly skippedSkills: readonly string[];
  readonly skippedMcpServers: readonly string[];
  readonly skillsStatus: PluginPackage["skillsStatus"];
  readonly mcpStatus: PluginPackage["mcpStatus"];
  /** Entry file relative to the plugin root with `/` (e.g. `ai.assemblyline/index.ts`), or null. */
  readonly entryFile: string | null;
}

/** Diagnostics about plugin.json itself that did not reject the plugin (unknown fields, non-object extensions, duplicate keys). */
export function manifestWarnings(pkg: PluginPackage): Diagnostic[] {
  const manifestFile = path.join(pkg.root, "plugin.json");
  return pkg.diagnostics.filter((d) => d.file === manifestFile && d.severity === "warning");
}

/** `rejected`, `valid-with-warnings` (loads, but the manifest has a reported problem) or `valid`. */
export function manifestOutcome(pkg: PluginPackage): ManifestOutcome {
  if (pkg.rejected) return "rejected";
  return manifestWarnings(pkg).length > 0 ? "valid-with-warnings" : "valid";
}

/** Summarizes `pkg` as plain JSON-ready data (no absolute paths). */
export function summarizePluginPackage(pkg: PluginPackage): PluginPackageSummary {
  return {
    name: pkg.name ?? null,
    version: pkg.version ?? null,
    rejected: pkg.rejected,
    manifest: manifestOutcome(pkg),
    skills: pkg.skills.map((skill) => skill.name),
    mcpServers: pkg.mcpServers.map((server) => server.name),
    skippedSkills: (pkg.skippedSkills ?? []).map((skill) => skill.name),
    skippedMcpServers: (pkg.skippedMcpServers ?? []).map((server) => server.name),
    skillsStatus: pkg.skillsStatus,
    mcpStatus: pkg.mcpStatus,
    entryFile: pkg.entryFile ? path.relative(pkg.root, pkg.entryFile).split(path.sep).join("/") : null,
  };
}
