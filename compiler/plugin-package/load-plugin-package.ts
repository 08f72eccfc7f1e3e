/**
 * Loads one Agent Plugins v1 package: the stage entry of `compiler/plugin-package/`.
 *
 * Order (Agent Plugins v1 §5.1: the manifest is loaded and validated before any component):
 * 1. the plugin root must be a directory; its real path is the containment boundary (§4.1);
 * 2. `plugin.json` (`./manifest.ts`); if it is rejected, nothing else is read (§5.2, §11.3);
 * 3. the components at their fixed locations, each with its own failure boundary: `skills/`
 *    (`./skills.ts`) and `mcp.json` (`./mcp.ts`) (§6, §7);
 * 4. the `ai.assemblyline/` extension directory and its entry (`./extension-directory.ts`, §8.2).
 *
 * Everything is read through the {@link CompilerHost}; nothing is executed or fetched.
 */
import * as path from "node:path";
import { createDiagnostic, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { didYouMean } from "../../common/did-you-mean.js";
import { fileStart, folderStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";
import type { PluginPackage } from "../model.js";
import { findExtensionEntry } from "./extension-directory.js";
import { loadManifest } from "./manifest.js";
import { loadMcpConfig } from "./mcp.js";
import { discoverSkills } from "./skills.js";

/**
 * Loads the plugin package whose root directory is `pluginRoot`.
 *
 * @param host file access (the CLI's node host, or an editor overlay).
 * @param pluginRoot absolute path of the plugin directory (a relative path is resolved against
 *   the process working directory). It may itself be a symlink (npm workspaces, `npm link`).
 * @returns plain data: the manifest, loaded and skipped skills and MCP servers with their
 *   statuses, the Assembly Line entry file, and every diagnostic (sorted; files absolute).
 *   `rejected` is true when the spec refuses the whole plugin; components are then
 *   `not-discovered`. Never throws on any input.
 */
export function loadPluginPackage(host: CompilerHost, pluginRoot: string): PluginPackage {
  const root = path.resolve(pluginRoot);
  const rootReal = host.realpath(root);
  if (rootReal === undefined || host.kind(rootReal) !== "directory") {
    const problem = rootReal === undefined ? (host.kind(root) === "symlink" ? "is a broken symbolic link" : "does not exist") : "is not a directory";
    // A root that is not there is named as the folder it was meant to be (`plugins/helo/`, not
    // `plugins/helo:1:1`), with a near-miss sibling folder when there is one (README trial of 6 December, C9).
    const missing = problem === "does not exist";
    const nearMiss = missing ? siblingFolderHint(host, root) : undefined;
    return rejectedPackage(root, undefined, undefined, [createDiagnostic(Diagnostics.PluginRootNotDirectory, missing ? folderStart(root) : fileStart(root), [root, problem], nearMiss === undefined ? {} : { hint: nearMiss })]);
  }
  const manifest = loadManifest(host, root, rootReal);
  if (manifest.rejected) return rejectedPackage(root, manifest.name, manifest.version, manifest.diagnostics);

  const skills = discoverSkills(host, root, rootReal);
  const mcp = loadMcpConfig(host, root, rootReal, { version: manifest.agentPluginsVersion!, schemaLocation: manifest.schemaLocation });
  const extension = findExtensionEntry(host, root, rootReal);
  return {
    root,
    name: manifest.name,
    version: manifest.version,
    ...(manifest.displayName !== undefined ? { displayName: manifest.displayName } : {}),
    ...(manifest.icon !== undefined ? { icon: manifest.icon } : {}),
    rejected: false,
    manifest: manifest.manifest,
    skills: skills.skills,
    mcpServers: mcp.servers,
    mcpStatus: mcp.status,
    skillsStatus: skills.status,
    entryFile: extension.entryFile,
    skippedSkills: skills.skipped,
    skippedMcpServers: mcp.skipped,
    diagnostics: sortDiagnostics([...manifest.diagnostics, ...skills.diagnostics, ...mcp.diagnostics, ...extension.diagnostics]),
  };
}

function rejectedPackage(root: string, name: string | undefined, version: string | undefined, diagnostics: readonly Diagnostic[]): PluginPackage {
  return {
    root,
    name,
    version,
    rejected: true,
    manifest: undefined,
    skills: [],
    mcpServers: [],
    mcpStatus: "not-discovered",
    skillsStatus: "not-discovered",
    entryFile: undefined,
    skippedSkills: [],
    skippedMcpServers: [],
    diagnostics: sortDiagnostics(diagnostics),
  };
}

/**
 * "Did you mean '<sibling>'?" for a plugin root that does not exist when a folder beside it has
 * a near-miss name (`plugins/helo` for `plugins/hello`), else `undefined`.
 */
function siblingFolderHint(host: CompilerHost, root: string): string | undefined {
  const siblings = host.readDirectory(path.dirname(root))?.filter((entry) => entry.kind === "directory" || entry.kind === "symlink").map((entry) => entry.name) ?? [];
  const near = didYouMean(path.basename(root), siblings, {}, 2);
  return near === undefined ? undefined : `Did you mean '${near}', the folder beside it? Pass the directory that contains plugin.json.`;
}
