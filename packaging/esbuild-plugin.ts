/**
 * The one esbuild plugin of packaging: it applies the seed's asset rules (`./asset-rules.ts`)
 * so that bundle bytes do not depend on line endings or on where the agent sits.
 *
 * Why a plugin and not just esbuild's `loader` option:
 * - esbuild's loaders keep CRLF line ends and sniff some MIME types; the rules here read
 *   imports that become strings canonically (CRLF → LF for text content, as the lockfile hashes
 *   them), give `Uint8Array` imports and data URLs the file's exact bytes, and name MIME types
 *   explicitly. Asset files are matched by extension in any letter case.
 * - `with { type: "text" }` / `with { type: "bytes" }` imports can be of any file (the seed's
 *   `./browser.js`), so relative imports carrying one are routed into virtual namespaces whose
 *   paths are agent-root-relative (no absolute path in the output) and whose loader reads the
 *   canonical text, or the exact bytes. Imports of packages are used as installed: npm does not
 *   rewrite line ends.
 *
 * It also confines what a bundle may read (AL7011, `./import-confinement.ts`) and refuses a file
 * esbuild would read without end (AL7012, `./read-targets.ts`), before esbuild reads it.
 *
 * Cost: one JS callback per relative import, per package import (resolved once more) and per
 * asset file, and one per import written as an absolute path or a `file:` URL; the authoring
 * API's import, in every definition, never calls into JS (`packageImportFilter`; see
 * `bench/packaging.mjs`).
 */
import { constants as fsConstants } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { OnLoadResult, PartialMessage, Plugin, PluginBuild } from "esbuild";
import { ABSOLUTE_IMPORT, createImportConfinement, packageImportFilter, projectOf, type ConfinementRefusal, type ImportConfinement } from "./import-confinement.js";
import { FOLDER_IMPORT, ReadTargets, kindWords, type NotRegularFile } from "./read-targets.js";
import { AUTHORING_CORE_SPECIFIER } from "./authoring-core.js";
import { ASSET_FILE_FILTER, assetBytes, assetKindOf, dataUrlMimeTypeOf, toDataUrl, type ImportForm } from "./asset-rules.js";

/** Virtual namespace of files imported `with { type: "text" }` (paths relative to the agent root). */
export const TEXT_NAMESPACE = "assemblyline-text";
/** Virtual namespace of files imported `with { type: "bytes" }` (paths relative to the agent root). */
export const BYTES_NAMESPACE = "assemblyline-bytes";

/**
 * Relative imports (`./x`, `../x`, also with a backslash) and package `imports` (`#x`): the ways a
 * module names a file of its own plugin or agent, which a CRLF checkout may have rewritten.
 */
const LOCAL_IMPORT = /^(?:\.\.?(?:[/\\]|$)|#)/;

/** Marks the nested `build.resolve` call so the plugin does not intercept its own lookup. */
const NESTED_RESOLVE = { nested: true };

/** What the plugin needs to know: the agent root (esbuild's working directory; where imports may lead follows from it, `./import-confinement.ts`). */
export interface AssemblyLinePluginOptions {
  readonly root: string;
  /** Absolute paths an import may name although they are absolute: the authoring API's module (esbuild's `alias`). */
  readonly allowedAbsolute?: ReadonlySet<string>;
}

/** Creates the esbuild plugin described in this module's header. */
export function createAssemblyLinePlugin(options: AssemblyLinePluginOptions): Plugin {
  return {
    name: "assemblyline",
    setup(build) {
      const confinement = createImportConfinement(options.root);
      const { agent, project } = projectOf(options.root);
      // What esbuild will read must be a regular file (`./read-targets.ts`): each folder listed once per build.
      const reads = new ReadTargets(agent, project);
      build.onStart(() => reads.clear());
      registerAbsoluteRefusal(build, options.root, confinement, reads, options.allowedAbsolute ?? new Set());
      registerPackageCheck(build, confinement, reads);
      registerResolver(build, options.root, confinement, reads);
      registerAttributeLoaders(build, options.root);
      build.onLoad({ filter: ASSET_FILE_FILTER, namespace: "file" }, async (args) => {
        // Any import attribute (json; text and bytes never get here) keeps esbuild's own rule.
        if (args.with["type"] !== undefined) return undefined;
        return loadAsset(args.path, options.root);
      });
    },
  };
}

/**
 * esbuild's error for an import refused by `./import-confinement.ts` (AL7011) or `./read-targets.ts`
 * (AL7012; `./esbuild-messages.ts`).
 */
function refused(refusal: ConfinementRefusal | NotRegularFile): { errors: PartialMessage[] } {
  const text = refusal.kind === "not-a-regular-file" ? `The import "${refusal.specifier}" would read ${refusal.file}, ${refusal.what}` : `The import "${refusal.specifier}" leads outside ${refusal.inside}`;
  return { errors: [{ text, detail: refusal }] };
}

/**
 * Refuses every import written as an absolute path or a `file:` URL (AL7011), before esbuild
 * reads anything: one callback per such import, none for the others.
 */
function registerAbsoluteRefusal(build: PluginBuild, root: string, confinement: ImportConfinement, reads: ReadTargets, allowedAbsolute: ReadonlySet<string>): void {
  // `.cache/x`: a name no npm package has (a leading `.`), which Node would look up in node_modules/.
  build.onResolve({ filter: /^\.(?:[^./\\]|\.[^/\\])/ }, (args) =>
    args.pluginData === NESTED_RESOLVE ? undefined : refused({ kind: "import-leaves-package", specifier: args.path, inside: "the packages a tool may import (no package name starts with '.')" }),
  );
  build.onResolve({ filter: ABSOLUTE_IMPORT }, (args) => {
    // The definitions themselves are entry points named by absolute path (their place is AL7007's,
    // their kind AL4008's); a package.json above one must be a regular file (every compile ends).
    if (args.kind === "entry-point") {
      const refusal = reads.definition(toPosixRelative(root, args.path), args.path);
      return refusal === undefined ? undefined : refused(refusal);
    }
    if (allowedAbsolute.has(args.path) || args.pluginData === NESTED_RESOLVE) return undefined;
    return refused(confinement.refuseAbsolute(args.path, args.importer));
  });
}

/**
 * Imports of packages by name, but the authoring API's (which `alias` resolves, in every
 * definition: no callback for it): resolved once more, they are refused (AL7011) when the file is
 * neither inside the project nor under a `node_modules/` folder above it — a link npm made for a hostile
 * package's `file:` dependency leads anywhere (`./import-confinement.ts`, `checkPackage`).
 * Node's built-ins and what esbuild leaves external are not files: left as they are.
 */
function registerPackageCheck(build: PluginBuild, confinement: ImportConfinement, reads: ReadTargets): void {
  build.onResolve({ filter: packageImportFilter(AUTHORING_CORE_SPECIFIER) }, async (args) => {
    if (args.pluginData === NESTED_RESOLVE || args.kind === "entry-point" || args.namespace !== "file" || args.path.startsWith("node:")) return undefined;
    const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, namespace: args.namespace, resolveDir: args.resolveDir, with: args.with, pluginData: NESTED_RESOLVE });
    if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== "file") return undefined;
    const refusal = confinement.checkPackage(args.path, args.importer, resolved.path) ?? reads.file(args.path, resolved.path);
    return refusal === undefined ? undefined : refused(refusal);
  });
}

/**
 * Relative imports and `#imports`: one callback each, which refuses a relative import leading out
 * of its package (AL7011) or one whose file esbuild would read is not a regular file (AL7012),
 * before esbuild reads anything, and routes text and bytes imports into their namespaces. A
 * relative import of a regular file costs a look-up in its folder's listing (one per folder and
 * build); a folder or a `#import` is resolved once more, and the file it names checked.
 */
function registerResolver(build: PluginBuild, root: string, confinement: ImportConfinement, reads: ReadTargets): void {
  build.onResolve({ filter: LOCAL_IMPORT }, async (args) => {
    if (args.pluginData === NESTED_RESOLVE) return undefined;
    const checked = args.kind !== "entry-point" && args.namespace === "file" && args.importer !== "";
    let resolveAgain = checked && args.path.startsWith("#");
    if (checked && args.path.startsWith(".")) {
      const refusal = confinement.checkRelative(args.path, args.importer, args.resolveDir);
      if (refusal !== undefined) return refused(refusal);
      // esbuild reads `\` in an import path as a separator, as Windows would.
      const read = reads.relative(args.path, path.resolve(args.resolveDir, args.path.replace(/\\/g, "/")));
      if (read === FOLDER_IMPORT) resolveAgain = true;
      else if (read !== undefined) return refused(read);
    }
    const type = args.with["type"];
    const asAsset = type === "text" || type === "bytes";
    if (!asAsset && !resolveAgain) return undefined;
    const resolved = await build.resolve(args.path, {
      kind: args.kind,
      importer: args.importer,
      namespace: args.namespace,
      resolveDir: args.resolveDir,
      with: args.with,
      pluginData: NESTED_RESOLVE,
    });
    if (resolved.errors.length > 0) return { errors: resolved.errors };
    if (resolved.external || resolved.namespace !== "file") return undefined;
    if (resolveAgain) {
      const refusal = reads.file(args.path, resolved.path);
      if (refusal !== undefined) return refused(refusal);
    }
    // A module: esbuild resolves it again itself, as it would have without the check.
    if (!asAsset) return undefined;
    return { path: toPosixRelative(root, resolved.path), namespace: type === "text" ? TEXT_NAMESPACE : BYTES_NAMESPACE };
  });
}

function registerAttributeLoaders(build: PluginBuild, root: string): void {
  for (const [namespace, loader, form] of [[TEXT_NAMESPACE, "text", "string"], [BYTES_NAMESPACE, "binary", "bytes"]] as const) {
    build.onLoad({ filter: /.*/, namespace }, async (args) => {
      const bytes = await readAsset(path.resolve(root, args.path), args.path, form);
      return "errors" in bytes ? bytes : { contents: bytes, loader };
    });
  }
}

async function loadAsset(file: string, root: string): Promise<OnLoadResult> {
  const kind = assetKindOf(file);
  const bytes = await readAsset(file, toPosixRelative(root, file), kind === "text" ? "string" : kind === "dataurl" ? "dataurl" : "bytes");
  if ("errors" in bytes) return bytes;
  switch (kind) {
    case "text":
      return { contents: bytes, loader: "text" };
    case "dataurl":
      return { contents: toDataUrl(bytes, dataUrlMimeTypeOf(file)!), loader: "text" };
    default:
      return { contents: bytes, loader: "binary" };
  }
}

/**
 * Reads the bytes an import of `file` in `form` sees (`assetBytes`: canonical text for a
 * string, exact bytes otherwise); a read failure becomes an esbuild error naming the
 * root-relative path.
 */
async function readAsset(file: string, shown: string, form: ImportForm): Promise<Uint8Array | { errors: PartialMessage[] }> {
  try {
    // Only a regular file: a device (`/dev/zero` behind a link) or a FIFO never ends (security
    // re-check 132, AL7012); `O_NONBLOCK`, or opening a FIFO waits for a writer forever.
    const handle = await fs.open(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) return refused({ kind: "not-a-regular-file", specifier: shown, file: shown, what: kindWords(stats) });
      return assetBytes(await handle.readFile(), form);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    return { errors: [{ text: `Could not read "${shown}" (${code})` }] };
  }
}

/** A path that is absolute and normalized on POSIX: no empty, `.` or `..` segment, no trailing separator. */
const NOT_NORMALIZED = /\/\.{0,2}(?:\/|$)/;

/**
 * `to` relative to `from`, with `/` separators (how paths appear in bundles). Where both are
 * normalized absolute POSIX paths and `to` is inside `from` (every definition of the agent: the
 * bundle cache's key of each of 2,000 bundles), the rest of `to`, without `path.relative`'s
 * resolving of both paths (the same answer).
 */
export function toPosixRelative(from: string, to: string): string {
  if (path.sep === "/" && from.startsWith("/") && to.startsWith(from) && to[from.length] === "/" && !NOT_NORMALIZED.test(from) && !NOT_NORMALIZED.test(to)) return to.slice(from.length + 1);
  return path.relative(from, to).split(path.sep).join("/");
}
