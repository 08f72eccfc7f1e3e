/**
 * The Agent Plugins v1 package loader (pipeline stage `plugin-package/`, DESIGN §1).
 *
 * ```ts
 * import { createNodeHost } from "../../common/host.js";
 * import { loadPluginPackage, summarizePluginPackage } from "./plugin-package/index.js";
 * const pkg = loadPluginPackage(createNodeHost(), "/abs/agent/plugins/example");
 * if (!pkg.rejected) analyze(pkg.entryFile);
 * ```
 */
export { loadPluginPackage } from "./load-plugin-package.js";
export { manifestOutcome, manifestWarnings, summarizePluginPackage, type ManifestOutcome, type PluginPackageSummary } from "./summarize.js";
export { isPathInside, resolvePackagePath, resolvePluginRelative, type PackagePathStatus } from "./containment.js";
export { ENTRY_FILE_NAMES, EXTENSION_NAMESPACE } from "./extension-directory.js";
export { CANONICAL_MCP_SCHEMA, CANONICAL_PLUGIN_SCHEMA, SUPPORTED_AGENT_PLUGINS_VERSION } from "./schema-ids.js";
export { pluginNameProblems, suggestPluginName } from "./plugin-name.js";
export { skillNameProblems } from "./skill-rules.js";
export { readOfficialSchema } from "./official-schemas.js";
export { parseJsonDocument, type JsonDocument } from "./json-document.js";
