/** Diagnostics of packaging: esbuild bundles of tool definitions and the artifact (DESIGN §6). */
import { defineMessages } from "./types.js";

export const PackagingMessages = defineMessages({
  UnresolvedImport: {
    code: "AL7001",
    severity: "error",
    message: 'Cannot resolve import "{0}": a tool bundle must contain every module it imports',
    hint: "Fix the path, or install the package in the plugin's or the agent's node_modules; only Node built-ins stay outside a bundle.",
    docs: "Sandboxed tools are bundled as self-contained ESM modules (seed \"Execution Model\"), so every import other than a Node built-in must resolve at compile time.",
  },
  UnsupportedAssetImport: {
    code: "AL7002",
    severity: "error",
    message: 'Cannot bundle "{0}": no asset rule covers files ending in "{1}"',
    hint: 'Import it with { type: "text" } to get a string or with { type: "bytes" } to get a Uint8Array.',
    docs: "Only the seed's asset kinds are packaged (text formats, images, fonts, .bin, .wasm, JSON); any other file needs an explicit import attribute (seed \"Execution Model\").",
  },
  UnsupportedImportAttribute: {
    code: "AL7003",
    severity: "error",
    message: 'Import attribute type "{0}" is not supported in a tool bundle',
    hint: 'Use with { type: "text" } for a string, with { type: "bytes" } for a Uint8Array, or with { type: "json" } for JSON.',
    docs: 'The seed defines `with { type: "text" }` and `with { type: "bytes" }`; JSON keeps its normal module behaviour. No other import attribute type has a meaning in a bundle.',
  },
  BundleFailed: {
    code: "AL7004",
    severity: "error",
    message: "esbuild cannot bundle this tool definition: {0}",
    docs: "esbuild reported an error while bundling a tool definition (a syntax error, an import that cannot be linked, …). The message is esbuild's.",
  },
  BundleWarning: {
    code: "AL7005",
    severity: "warning",
    message: "esbuild: {0}",
    docs: "esbuild warned while bundling a tool definition; the bundle was built but may not behave as the source suggests.",
  },
  BundlePathCollision: {
    code: "AL7006",
    severity: "error",
    message: 'Tools {0} and {1} would be packaged to the same bundle "{2}"',
    hint: "Rename one of the definition modules: bundles are named bundles/<surface>/<capability>/<definition path without extension>.mjs, compared without regard to letter case.",
    docs: "Each distinct definition module of a surface and capability gets its own bundle file; two that map to one name (e.g. echo.ts and echo.mts, or names differing only in case) cannot both be packaged.",
  },
  DefinitionOutsidePluginRoot: {
    code: "AL7007",
    severity: "error",
    message: 'Definition module "{0}" of tool {1} is outside its plugin root "{2}"',
    hint: "Point the descriptor's definition at a module inside the plugin (a path that begins with ./).",
    docs: "A bundle is named after the definition's path inside its plugin (DESIGN §3: a definition stays inside the plugin root).",
  },
  DefinitionNotFound: {
    code: "AL7008",
    severity: "error",
    message: 'Definition module "{0}" of tool {1} does not exist',
    hint: "Create the module, or fix the descriptor's definition path.",
    docs: "Packaging bundles each tool's definition module; it must exist when the artifact is built.",
  },
  BundlerFailed: {
    code: "AL7009",
    severity: "error",
    message: "Packaging failed before esbuild could report a location: {0}",
    hint: "Reinstall the toolchain's dependencies (npm ci); report a bug if this persists.",
    docs: "esbuild or the authoring API module could not be started or found; this is a broken installation or a bug, not a problem in the agent.",
  },
  UnsafeBundleName: {
    code: "AL7010",
    severity: "error",
    message: 'Cannot name a bundle after {0} "{1}": a path segment is empty, ".", "..", or contains "\\" or ":"',
    docs: "Bundle paths are built from the surface id, the capability key and the definition path; each must be a plain relative path so the bundle stays inside the artifact.",
  },
  ImportLeavesPackage: {
    code: "AL7011",
    severity: "error",
    message: "The import '{0}' leads outside {1}: a tool's bundle may hold only files of its own package or project",
    hint: "Import a file of the plugin by a relative path (./…) and an installed package by its name; a file outside (an absolute path, /proc, /dev, a folder above the package or project) would be read on the machine that compiles and shipped inside the bundle.",
    docs: "Seed: a tool declares a required neighbouring asset with an import, and the bundler includes it. An import written as a path must stay inside the installed package that writes it (a plugin package or a dependency under node_modules/), or, in the agent's own code, inside its project (the Git work tree holding the agent, else the agent root); an absolute path or file: URL is never bundled. Otherwise esbuild reads any file of the compiling machine (a CI secret in /proc/self/environ, ~/.npmrc, /etc/shadow) into the bundle and the sandbox hands it to the tool (security trial 128); a device file such as /dev/zero never ends.",
  },
  ImportReadsNonRegularFile: {
    code: "AL7012",
    severity: "error",
    message: "The import '{0}' would make esbuild read {1}, which is {2}, not a regular file: the read would never end",
    hint: "Import a regular file. Remove the link to a device (/dev/zero, /dev/random) or the named pipe, or replace it with the file it should be; a package.json on the way must be a regular file too.",
    docs: "esbuild reads the file an import resolves to (links followed), and the package.json of its folder and of each folder above it. A device such as /dev/zero or /dev/random, or a named pipe, is read forever (esbuild grew to gigabytes and the compile never ended: security re-checks 128 and 132), so packaging checks, before esbuild reads anything, that each of them is a regular file: for a relative import, the first name esbuild's resolver would take (the name as written, with each resolve extension, and TypeScript's ./x.js for x.ts, in any letter case), and for a package, a #import or a folder, the file esbuild resolved; the package.json above a definition too.",
  },
  ArtifactWriteFailed: {
    code: "AL7050",
    severity: "error",
    message: "The artifact could not be written: {0}.",
    hint: "Check that the artifact directory (--out) is writable and is not a file or a non-artifact folder; the previous artifact and plugins.lock were left unchanged.",
    docs: "The artifact is replaced atomically; when writing fails, the old artifact and the lock stay as they were.",
  },
});
