/**
 * Building blocks of `assembly-line add <plugin> [root] [--as KEY]` (issue 3 item 7). The CLI
 * command composes them:
 *
 * 1. {@link resolvePluginSpec} — what the argument names (short name → official scope);
 * 2. {@link detectPackageManager} — npm, pnpm or yarn, from the project's lockfile;
 * 3. {@link installPackage} — the package manager installs it with an exact version;
 * 4. {@link readPluginName} / {@link validateCapabilityKey} — the key (`plugin.json` name, or `--as`);
 * 5. {@link addCapabilityToAgentMd} — `capabilities.<key>` in agent.md, formatting kept;
 * 6. then `compile` pins name, version and integrity in plugins.lock. No wrapper files.
 */
export { resolvePluginSpec, OFFICIAL_SCOPE, type PluginSpec, type ResolvePluginSpecResult } from "./resolve-plugin-spec.js";
export {
  detectPackageManager,
  installAllCommand,
  PACKAGE_MANAGER_LOCKFILES,
  type PackageManager,
  type DetectedPackageManager,
} from "./detect-package-manager.js";
export {
  installPackage,
  installArguments,
  runCommand,
  type InstallOptions,
  type InstallResult,
  type CommandRunner,
  type RunResult,
} from "./install-package.js";
export { readTarballManifest } from "./read-tarball-manifest.js";
export { readPluginName, validateCapabilityKey } from "./capability-key.js";
export { addCapabilityToAgentMd, type CapabilityEntry, type AddCapabilityResult } from "./add-capability-to-agent-md.js";
