/**
 * Diagnostics of plugins.lock (AL60xx), of hashing a plugin directory for its integrity
 * (AL61xx), and of `assembly-line add` (AL62xx).
 */
import { defineMessages } from "./types.js";

export const LockfileMessages = defineMessages({
  // ───────────── plugins.lock: reading, checking, writing (AL60xx) ─────────────
  LockfileMissing: {
    code: "AL6001",
    severity: "error",
    message: "plugins.lock is missing, so there is nothing to check the agent against.",
    hint: "Run `{0}` and commit plugins.lock.",
    docs: "`compile --check` compares the committed lock with what `compile` would write and never writes one itself (issue 3 item 5).",
  },
  LockfileOutOfDate: {
    code: "AL6002",
    severity: "error",
    message: "plugins.lock does not match what `compile` would write ({0}).",
    hint: "Run `{1}` and commit plugins.lock.",
    docs: "The lock is stale (an input changed) or was edited by hand. `compile --check` compares its bytes, after CRLF→LF, with what the writer would write (issue 3 item 5).",
  },
  LockfileConflictMarkers: {
    code: "AL6003",
    severity: "error",
    message: "plugins.lock contains Git conflict markers ('{0}' on line {1}).",
    hint: "Run `{2}`: it recomputes plugins.lock from the agent's inputs. Then commit the result.",
    docs: "A merge left both sides in the lock. The lock is derived data, so the fix is to recompute it, never to pick a side by hand (issue 3 item 6).",
  },
  LockfileConflictRecomputed: {
    code: "AL6004",
    severity: "warning",
    message: "plugins.lock contained Git conflict markers; it was recomputed from the agent's inputs.",
    frame: false,
    hint: "Review the recomputed plugins.lock and commit it to finish the merge.",
    docs: "`compile` resolves a conflicted lock by recomputing it and says that it did (issue 3 item 6).",
  },
  LockfileInvalidJson: {
    code: "AL6005",
    severity: "error",
    message: "plugins.lock is not valid JSON: {0}.",
    hint: "Run `{1}` to rewrite it from the agent's inputs.",
    docs: "The lock is written by the toolchain as canonical JSON (DESIGN §5); a file that does not parse was damaged or edited by hand.",
  },
  LockfileInvalidShape: {
    code: "AL6006",
    severity: "error",
    message: "plugins.lock does not have the shape of lockfileVersion 1: {0}.",
    hint: "Run `{1}` to rewrite it from the agent's inputs.",
    docs: "Every member of the lock has a fixed type (`lockfile/types.ts`); a lock that breaks it was edited by hand or written by another tool.",
  },
  LockfileUnsupportedVersion: {
    code: "AL6007",
    severity: "error",
    message: "plugins.lock has lockfileVersion {0}, but this assembly-line understands lockfileVersion {1} only.",
    hint: "Use the assembly-line version that wrote it (or a newer one): this one only understands lockfileVersion {1}. plugins.lock was left unchanged.",
    docs: "A newer toolchain wrote the lock. Rewriting it with an older format would silently drop what the newer one recorded, so it is refused and never rewritten (issue 3 item 5).",
  },
  LockedVersionMismatch: {
    code: "AL6008",
    severity: "error",
    message: "Capability '{0}' is locked to {1}@{2}, but {1}@{3} is installed.",
    hint: "Run `{4}` to install the locked version, or `npx assembly-line add {1}@{3}` to lock the installed one.",
    docs: "The lock pins the exact published package a capability was compiled from; compiling another version would change the agent's tools behind the lock's back (issue 3 item 7).",
  },
  LockedPackageNotInstalled: {
    code: "AL6009",
    severity: "error",
    message: "Capability '{0}' is locked to {1}@{2}, which is not installed.",
    hint: "Run `{3}` to install the project's dependencies.",
    docs: "Published plugins are installed by the project's package manager; the lock names the package but does not contain it (issue 3 item 7).",
  },
  LockfileWriteFailed: {
    code: "AL6010",
    severity: "error",
    message: "plugins.lock could not be written: {0}.",
    docs: "The lock is replaced atomically (a temporary file renamed over it), so a failed write leaves the previous lock intact (issue 3 item 4).",
  },
  LockfileUnreadable: {
    code: "AL6011",
    severity: "error",
    message: "plugins.lock could not be read: {0}.",
    docs: "The path exists but is not a readable regular file.",
  },
  LockfileInvalidRecomputed: {
    code: "AL6012",
    severity: "warning",
    message: "plugins.lock {0}; it was recomputed from the agent's inputs.",
    hint: "Review the recomputed plugins.lock and commit it.",
    frame: false,
    docs: "The lock is derived data: `compile` rewrites a lock that is not valid JSON (AL6005) or not the lockfileVersion 1 shape (AL6006) and says that it did; `--check` fails on it instead.",
  },

  // ───────────── hashing a plugin directory (AL61xx) ─────────────
  PluginDirectoryMissing: {
    code: "AL6101",
    severity: "error",
    message: "The plugin directory '{0}' does not exist or is not a directory.",
    docs: "The integrity of a capability is the content hash of its plugin directory (issue 3 item 3).",
  },
  PluginSymlinkEscapes: {
    code: "AL6102",
    severity: "error",
    message: "The symlink '{0}' points outside the plugin directory (to '{1}').",
    hint: "Replace the symlink with a copy of what it points to, or move that inside the plugin: a plugin ships only what is inside its root.",
    docs: "A plugin's integrity covers its own files; content reached through an escaping symlink differs between checkouts and is not shipped with the package (issue 3 item 3, Agent Plugins v1 §4.1).",
  },
  PluginSymlinkCycle: {
    code: "AL6103",
    severity: "error",
    message: "The symlink '{0}' leads back to '{1}', which contains it, so the plugin's files never end.",
    hint: "Remove the symlink, or point it at a directory that does not contain it.",
    docs: "Symlinks inside a plugin are hashed as what they point to; a link to one of its own ancestors would make that content infinite (issue 3 item 3).",
  },
  PluginSymlinkBroken: {
    code: "AL6104",
    severity: "error",
    message: "The symlink '{0}' points to a path that does not exist (or into a loop of symlinks).",
    hint: "Fix the symlink's target or remove the symlink.",
    docs: "Symlinks inside a plugin are hashed as what they point to; a broken one has no content to hash (issue 3 item 3).",
  },
  PluginFileUnreadable: {
    code: "AL6105",
    severity: "error",
    message: "'{0}' could not be read, so the plugin's integrity cannot cover it.",
    hint: "Check the file's permissions.",
    docs: "Every file of a plugin is part of its integrity (issue 3 item 3).",
  },
  PluginPathCollision: {
    code: "AL6106",
    severity: "error",
    message: "'{0}' and '{1}' are the same path once written in Unicode NFC.",
    hint: "Rename one of them: macOS and Windows checkouts cannot hold both, and the plugin's integrity names files by their NFC path.",
    docs: "Paths are hashed in Unicode NFC so that a checkout on macOS (which may decompose names) hashes like one on Linux (issue 3 item 3).",
  },
  PluginSpecialFileSkipped: {
    code: "AL6107",
    severity: "warning",
    message: "'{0}' is not a regular file, directory or symlink; it is left out of the plugin's integrity.",
    hint: "Remove it from the plugin directory.",
    docs: "Only regular files have content to hash; sockets, FIFOs and devices are not part of a package (issue 3 item 3).",
  },

  // ───────────── assembly-line add (AL62xx) ─────────────
  AddInvalidSpec: {
    code: "AL6201",
    severity: "error",
    message: "'{0}' is not a plugin name, package name, tarball or path: {1}.",
    hint: "Use a short name (`openui`), a package name (`@scope/name` or `@scope/name@1.2.0`), `npm:<name>` for an unscoped package, a `file:` tarball (`file:./openui-1.0.0.tgz`) or a path (`./vendor/openui`).",
    docs: "`add` accepts the plugin spec forms of issue 3 item 7; a short name maps to the official `@assemblyline-agents` scope.",
  },
  AddInstallFailed: {
    code: "AL6202",
    severity: "error",
    message: "`{0}` failed ({1}).",
    hint: "Read the package manager's output above, fix the cause (network, registry auth, version), and run `assembly-line add` again.",
    docs: "Installing a published plugin is the project's package manager's job; `add` runs it and stops when it fails (issue 3 item 7).",
  },
  AddInstalledPackageMissing: {
    code: "AL6203",
    severity: "error",
    message: "`{0}` finished, but '{1}' has no package.json under node_modules.",
    hint: "If the project uses Yarn Plug'n'Play, set `nodeLinker: node-modules` in .yarnrc.yml: plugins are read from node_modules.",
    docs: "Published plugins are read from the installed package directory `node_modules/<name>` (issue 3 item 7).",
  },
  AddAgentMdInvalidYaml: {
    code: "AL6204",
    severity: "error",
    message: "The front matter of agent.md is not valid YAML: {0}.",
    hint: "Fix the YAML, then run `assembly-line add` again; agent.md was not changed.",
    docs: "`add` edits the front matter with the YAML Document API and never rewrites a file it cannot parse (issue 3 item 7).",
  },
  AddAgentMdNotAMapping: {
    code: "AL6205",
    severity: "error",
    message: "{0} in agent.md is not a mapping, so '{1}' cannot be added to it.",
    hint: "Make {0} a mapping of keys to values; agent.md was not changed.",
    docs: "The front matter is a mapping, and `capabilities` maps capability keys to entries (DESIGN §2).",
  },
  AddCapabilityConflict: {
    code: "AL6206",
    severity: "error",
    message: "capabilities.{0} already selects '{1}'; it is not replaced with '{2}'.",
    hint: "Choose another key with `--as <key>`, or remove capabilities.{0} from agent.md first.",
    docs: "A capability key selects one plugin; `add` never silently replaces a selection (issue 3 item 7).",
  },
  AddInvalidCapabilityKey: {
    code: "AL6207",
    severity: "error",
    message: "'{0}' cannot be a capability key: {1}.",
    hint: "Use lowercase letters, digits, '-' and '.', e.g. `--as brand-ui`.",
    docs: "The capability key names the plugin in agent.md and in plugins.lock, and defaults to the plugin's plugin.json name (issue 3 item 7).",
  },
  AddNotAPlugin: {
    code: "AL6208",
    severity: "error",
    message: "The package '{0}' has no usable plugin.json at its root ({1}), so it is not an Agent Plugins v1 package.",
    hint: "A published plugin is an npm package whose root is an Agent Plugins v1 package (plugin.json with a name).",
    docs: "A published plugin is an npm package that contains an Agent Plugins v1 package; its plugin.json name is the default capability key (issue 3 item 7).",
  },
  AddPackageJsonInvalid: {
    code: "AL6209",
    severity: "error",
    message: "package.json could not be read: {0}.",
    hint: "Fix package.json (it must be a JSON object), then run `assembly-line add` again.",
    docs: "`add` reads the project's package.json to find which package a tarball installed and never overwrites one it cannot parse.",
  },
});
