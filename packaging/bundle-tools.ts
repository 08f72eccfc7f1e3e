/**
 * Packages every tool definition of a compile as a self-contained ESM bundle (DESIGN §6,
 * issue 4 item 1): ONE esbuild build for all definitions, each entry point its own output file
 * (no code splitting), the authoring API and every imported package bundled in, only Node
 * built-ins left external, and the seed's asset rules applied (`./asset-rules.ts`).
 *
 * The bytes are deterministic: the same agent gives the same bundles in any directory, on any
 * run, and in a CRLF checkout. That holds because esbuild runs with the agent root as its
 * working directory (paths in the output are root-relative), reads no `tsconfig.json` (one
 * above the agent could change the output), reads assets canonically (`./esbuild-plugin.ts`),
 * and the authoring API is named by its specifier, not by the path to this toolchain
 * (`createCorePathRewriter`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as esbuild from "esbuild";
import { DEFAULT_ARTIFACT_DIR } from "../contract/manifest.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import { esbuildLoaders } from "./asset-rules.js";
import { AUTHORING_CORE_SPECIFIER, createCorePathRewriter, locateAuthoringCore, type AuthoringCoreModule } from "./authoring-core.js";
import { BYTES_NAMESPACE, TEXT_NAMESPACE, createAssemblyLinePlugin, toPosixRelative } from "./esbuild-plugin.js";
import { inputsOutsideProject } from "./import-confinement.js";
import { diagnosticFromEsbuildError, diagnosticFromEsbuildWarning, type MessageContext } from "./esbuild-messages.js";
import { withServiceMemoryLimit } from "./esbuild-service.js";
import { bundleIntegrity } from "./integrity.js";
import { bundleBuildKey, buildOptionsKey, locationKey, type BundleCache, type CachedBundle } from "./bundle-cache.js";
import { DeferredBundle, type BundleBytes } from "./bundle-bytes.js";
import { BUNDLE_EXTENSION, planBundles, toolBundleKey, type PackagingTool, type PlannedBundle } from "./plan-bundles.js";

/** What to package: the agent root and every non-disabled authored tool of every surface. */
export interface PackagingInput {
  /** Absolute agent root; esbuild's working directory, so no absolute path reaches a bundle. */
  readonly root: string;
  readonly tools: readonly PackagingTool[];
}

/** Where a tool's bundle is and what it hashes to. */
export interface ToolBundle {
  /** Artifact-relative POSIX path, e.g. `bundles/root/example/ai.assemblyline/echo.mjs`. */
  readonly bundle: string;
  /** SRI `sha512-…` of the bundle's bytes (goes into the manifest and `plugins.lock`). */
  readonly integrity: string;
}

/**
 * The result of {@link bundleTools}: `B` is `Uint8Array` when no cache was given (every bundle
 * built), else `BundleBytes` (reused bundles deferred).
 */
export interface PackagingResult<B extends BundleBytes = BundleBytes> {
  /**
   * Bundle bytes by artifact-relative path, in path order: the bytes of a bundle built, a
   * `DeferredBundle` for one reused from the cache (its bytes read, and verified against the
   * recorded SRI, only when asked for: `./bundle-bytes.ts`).
   */
  readonly bundles: ReadonlyMap<string, B>;
  /** Each packaged tool's bundle, keyed by {@link toolBundleKey}`(surfaceId, capability, toolName)`. */
  readonly toolBundles: ReadonlyMap<string, ToolBundle>;
  /** Sorted; when one is an error, the tools it concerns (or, for esbuild errors, all tools) have no bundle. */
  readonly diagnostics: Diagnostic[];
}

/**
 * The esbuild `build` function (injectable so tests can count calls or fail on purpose), with
 * which of the compile's `count` builds this is (`index` from 0; see {@link BUILD_BATCH}): the
 * watch bundler (`./incremental-bundler.ts`) keeps a context per batch and frees the others
 * after the last one.
 */
export type BuildFunction = (options: esbuild.BuildOptions & { write: false }, batch?: { readonly index: number; readonly count: number }) => Promise<esbuild.BuildResult<{ write: false }>>;

/** Options of {@link bundleTools}. */
export interface BundleToolsOptions {
  /** Defaults to `esbuild.build`. */
  readonly build?: BuildFunction;
  /**
   * Called with the absolute path of every file esbuild read for the bundles (from its
   * metafile; `assembly-line inputs`). Modules that are not files (esbuild namespaces) are left out.
   */
  readonly recordInput?: (filePath: string) => void;
  /**
   * The persistent bundle cache (`./bundle-cache.ts`): bundles whose inputs are unchanged are
   * taken from it and not handed to esbuild; the others are built (esbuild builds of just
   * those entries) and kept. The bytes and diagnostics are the same with or without it.
   */
  readonly cache?: BundleCache;
  /** Entry points per esbuild build (default {@link BUILD_BATCH}; tests set a small one). */
  readonly batchSize?: number;
}

/**
 * The most entry points one esbuild build gets; more are built in batches, one after the other.
 * esbuild's work per build grows faster than its entry points (its linker keeps, for every file of
 * a build, a bit set with one bit per entry point: `EntryBits` in esbuild's `internal/graph`,
 * bookkeeping that grows with entries × files). Measured on the 2-core benchmark machine
 * (4 December, whole `compile` processes, interleaved, docs/performance.md "Sixteenth round"): the
 * 500 × 10 agent of the size scan (5,000 definitions) took 20.9 s in batches of 2,500, 9.3 s in
 * batches of 500 and 8.5 s in batches of 250 (125: 8.6 s, 60: 8.7 s); the 200 × 10 benchmark agent
 * 3.4 s in one build of 2,000 against 2.8 s in batches of 250. Smaller batches also bound esbuild's
 * memory: one build of the 2,000 × 10 agent's 20,000 definitions held about 6.4 GB, and once 23 GB,
 * until the OOM killer ended it (docs/benchmarks.md), which the service's memory limit
 * (`./esbuild-service.ts`) also guards against. Bundles are self-contained (no code splitting), so
 * a bundle's bytes do not depend on its batch; warnings of a module several batches import are said
 * once (`finish` drops repeats).
 */
export const BUILD_BATCH = 250;

/** The esbuild namespaces whose modules are files of the agent (assets imported as text or bytes). */
const ASSET_NAMESPACES: ReadonlySet<string> = new Set([TEXT_NAMESPACE, BYTES_NAMESPACE]);

/**
 * Lets bundled CommonJS packages `require()` Node built-ins: esbuild's ESM output routes
 * `require` through a shim that uses a `require` in scope, and esbuild renames any `require`
 * binding of the bundled code, so this one cannot clash.
 */
const REQUIRE_BANNER =
  'import { createRequire as __assemblylineCreateRequire } from "node:module";\n' +
  "const require = __assemblylineCreateRequire(import.meta.url);";

/**
 * Bundles every tool definition: in one esbuild build, or in builds of {@link BUILD_BATCH}
 * definitions one after the other when there are more (the same bytes either way).
 *
 * @param input the agent root and the tools (see {@link PackagingTool}); tools of one surface
 *   and capability that share a definition share a bundle (naming: `./plan-bundles.ts`).
 * @returns bundles, each tool's bundle and integrity, and diagnostics (AL7xxx) for anything
 *   that cannot be bundled: an unresolvable import (with esbuild's file, line and column), a
 *   file no asset rule covers, an unknown import attribute, a naming collision. Never throws.
 *   Without a cache every bundle's bytes are built bytes; with one, a reused bundle's are a
 *   `DeferredBundle` (`./bundle-bytes.ts`).
 */
export function bundleTools(input: PackagingInput, options?: BundleToolsOptions & { readonly cache?: undefined }): Promise<PackagingResult<Uint8Array>>;
export function bundleTools(input: PackagingInput, options?: BundleToolsOptions): Promise<PackagingResult>;
export async function bundleTools(input: PackagingInput, options: BundleToolsOptions = {}): Promise<PackagingResult> {
  const plan = planBundles(input.tools);
  const diagnostics: Diagnostic[] = [...plan.diagnostics];
  if (plan.bundles.length === 0) return finish(new Map(), new Map(), diagnostics);
  let core: AuthoringCoreModule;
  try {
    core = locateAuthoringCore();
  } catch (error) {
    diagnostics.push(createDiagnostic(Diagnostics.BundlerFailed, rootLocation(input.root), [messageOf(error)]));
    return finish(new Map(), new Map(), diagnostics);
  }
  const context: MessageContext = { root: input.root, toolsByDefinition: toolsByDefinition(plan.bundles) };
  const outdir = path.join(input.root, DEFAULT_ARTIFACT_DIR);
  const cache = options.cache;
  // Bundles from the cache, by name; the rest is built.
  const optionsKey = cache ? buildOptionsKey(cache.toolchain, core.file, buildOptions(input.root, outdir, [], core)) : "";
  const keyOf = (planned: PlannedBundle): string => bundleBuildKey(optionsKey, planned.name, toPosixRelative(input.root, planned.definitionFile));
  const reused = new Map<string, CachedBundle>();
  for (const planned of plan.bundles) {
    const hit = cache?.find(planned.name, keyOf(planned));
    if (hit) reused.set(planned.name, hit);
  }
  const toBuild = plan.bundles.filter((planned) => !reused.has(planned.name));
  // Warnings of reused bundles are said again, as a cold build would.
  const reusedWarnings = [...reused.values()].flatMap((hit) => hit.warnings);
  const record = options.recordInput;
  const recordKey = (file: string): void => {
    // Keys are relative to esbuild's working directory (the root); `namespace:path` keys are not
    // files, except the assets imported `with { type: "text" | "bytes" }` (`namespace:root-relative path`).
    if (!record) return;
    const namespaced = /^([a-z][\w-]*):(.*)$/i.exec(file);
    if (!namespaced) record(path.resolve(input.root, file));
    else if (ASSET_NAMESPACES.has(namespaced[1]!)) record(path.resolve(input.root, namespaced[2]!));
  };
  for (const hit of reused.values()) for (const file of hit.inputs) recordKey(file);
  const stabilize = createCorePathRewriter(input.root, core);
  const bundles = new Map<string, BundleBytes>();
  const toolBundles = new Map<string, ToolBundle>();
  const add = (planned: PlannedBundle, bundle: string, bytes: BundleBytes, integrity: string): void => {
    bundles.set(bundle, bytes);
    for (const tool of planned.tools) toolBundles.set(toolBundleKey(tool.surfaceId, tool.capability, tool.toolName), { bundle, integrity });
  };
  for (const planned of plan.bundles) {
    const hit = reused.get(planned.name);
    if (!hit) continue;
    const bundle = `${planned.name}${BUNDLE_EXTENSION}`;
    const deferred = new DeferredBundle({
      bundle,
      integrity: hit.integrity,
      size: hit.size,
      read: hit.read,
      rebuild: () => rebuild(planned, bundle),
      repaired: (bytes) => cache?.repair(planned.name, bytes),
    });
    add(planned, bundle, deferred, hit.integrity);
  }
  // The cache's stamp of the files' state before esbuild reads them (`BundleCache.stamp`).
  let cacheStamp: ReturnType<BundleCache["stamp"]> | undefined;
  if (toBuild.length > 0) {
    cacheStamp = cache?.stamp();
    // Every batch is built, so that a failure reports what one build would: every batch's errors.
    const size = Math.max(1, options.batchSize ?? BUILD_BATCH);
    const count = Math.ceil(toBuild.length / size);
    const built: { readonly batch: readonly PlannedBundle[]; readonly result: esbuild.BuildResult<{ write: false }> }[] = [];
    const failures: Diagnostic[] = [];
    for (let index = 0; index < count; index++) {
      const batch = toBuild.slice(index * size, (index + 1) * size);
      try {
        const settings = buildOptions(input.root, outdir, batch, core);
        // Always a metafile: the files read are checked against the project (AL7011, `inputsOutsideProject`).
        const withMetafile = { ...settings, metafile: true };
        built.push({ batch, result: await (options.build ? options.build(withMetafile, { index, count }) : withServiceMemoryLimit(() => esbuild.build(withMetafile))) });
      } catch (error) {
        failures.push(...failureDiagnostics(error, context));
      }
    }
    // A file read through a link out of the project and the node_modules/ folders above it: no bundle is kept.
    for (const { result } of built) failures.push(...outsideInputs(input.root, result.metafile, core));
    if (failures.length > 0) {
      diagnostics.push(...failures, ...built.flatMap(({ result }) => result.warnings.map((warning) => diagnosticFromEsbuildWarning(warning, context))));
      diagnostics.push(...reusedWarnings.map((warning) => diagnosticFromEsbuildWarning(warning, context)));
      return finish(new Map(), new Map(), diagnostics);
    }
    for (const { batch, result } of built) keepBuilt(batch, result);
  }
  diagnostics.push(...reusedWarnings.map((warning) => diagnosticFromEsbuildWarning(warning, context)));
  return finish(bundles, toolBundles, diagnostics);

  /**
   * Builds one reused bundle again, alone (the same options, so the same bytes: bundles are
   * self-contained), when its stored bytes did not verify at use (`DeferredBundle`). esbuild's
   * own `build`, not `options.build`: the watch bundler keeps a context per batch of the compile.
   */
  async function rebuild(planned: PlannedBundle, bundle: string): Promise<Uint8Array> {
    const result = await withServiceMemoryLimit(() => esbuild.build(buildOptions(input.root, outdir, [planned], core)));
    const output = result.outputFiles.find((file) => artifactPathOf(outdir, file.path) === bundle);
    if (output === undefined) throw new Error(`esbuild produced no output file ${bundle}`);
    return stabilize(output.contents);
  }

  /** Takes one build's bundles (`batch`, built into `result`): their bytes, the cache, the inputs. */
  function keepBuilt(batch: readonly PlannedBundle[], result: esbuild.BuildResult<{ write: false }>): void {
    const stamp = cacheStamp;
    diagnostics.push(...result.warnings.map((warning) => diagnosticFromEsbuildWarning(warning, context)));
    const outputs = new Map(result.outputFiles.map((file) => [artifactPathOf(outdir, file.path), stabilize(file.contents)]));
    const metafile = result.metafile;
    if (record && metafile && !cache) for (const file of Object.keys(metafile.inputs)) recordKey(file);
    // A warning not located in a module of this build cannot be tied to a bundle: keep none.
    const located = metafile ? new Set(Object.keys(metafile.inputs)) : new Set<string>();
    const cacheable = result.warnings.every((warning) => warning.location !== null && located.has(locationKey(warning.location)));
    for (const planned of batch) {
      const bundle = `${planned.name}${BUNDLE_EXTENSION}`;
      const bytes = outputs.get(bundle);
      if (bytes === undefined) {
        diagnostics.push(createDiagnostic(Diagnostics.BundlerFailed, rootLocation(input.root), [`esbuild produced no output file ${bundle}`]));
        continue;
      }
      const integrity = bundleIntegrity(bytes);
      add(planned, bundle, bytes, integrity);
      const entryInput = cache && metafile ? metafile.outputs[toPosixRelative(input.root, path.join(outdir, bundle))]?.entryPoint : undefined;
      if (cache && metafile && entryInput !== undefined) {
        const inputs = cache.keep(planned.name, keyOf(planned), { bytes, integrity, metafile, entryInput, warnings: result.warnings, exclude: core.file, cacheable, stamp });
        for (const file of inputs) recordKey(file);
      } else if (cache && record && metafile) {
        for (const file of Object.keys(metafile.inputs)) recordKey(file);
      }
    }
  }
}

/**
 * The options of one esbuild build of `bundles` (exported for `bench/packaging.mjs` and tests). The raw
 * output still names the authoring API by its path; `bundleTools` rewrites that with
 * {@link createCorePathRewriter}.
 */
export function buildOptions(
  root: string,
  outdir: string,
  bundles: readonly PlannedBundle[],
  core: AuthoringCoreModule,
): esbuild.BuildOptions & { write: false } {
  return {
    absWorkingDir: root,
    // Object form: the key is the output path (`bundles/…`), so names never depend on esbuild's
    // choice of a common base directory.
    entryPoints: Object.fromEntries(bundles.map((bundle) => [bundle.name, bundle.definitionFile])),
    outdir,
    entryNames: "[dir]/[name]",
    outExtension: { ".js": BUNDLE_EXTENSION },
    bundle: true,
    write: false,
    splitting: false,
    platform: "node",
    format: "esm",
    // node22, not esnext: esnext output calls Uint8Array.fromBase64, which Node 20 and 22 lack.
    target: "node22",
    // Native alias, not a plugin: thousands of definitions import it, and a plugin callback per
    // import would cost more than the rest of packaging (see `createCorePathRewriter`).
    alias: { [AUTHORING_CORE_SPECIFIER]: core.file },
    loader: esbuildLoaders(),
    // Imports stay inside their package or project (AL7011); the authoring API is named by absolute path through `alias`.
    plugins: [createAssemblyLinePlugin({ root, allowedAbsolute: new Set([core.file]) })],
    banner: { js: REQUIRE_BANNER },
    // Licence comments are kept (at the end of each bundle); esbuild writes them with LF.
    legalComments: "eof",
    // Readable bundles: non-ASCII text stays as written (the bytes are UTF-8 either way).
    charset: "utf8",
    sourcemap: false,
    minify: false,
    // A fixed tsconfig: esbuild would otherwise read tsconfig.json files up the directory tree,
    // even above the agent root, so the bundle would depend on where the agent sits.
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
    logLevel: "silent",
  };
}

function failureDiagnostics(error: unknown, context: MessageContext): Diagnostic[] {
  if (isBuildFailure(error)) {
    return [
      ...error.errors.map((message) => diagnosticFromEsbuildError(message, context)),
      ...error.warnings.map((message) => diagnosticFromEsbuildWarning(message, context)),
    ];
  }
  return [createDiagnostic(Diagnostics.BundlerFailed, rootLocation(context.root), [messageOf(error)])];
}

/** An output file's artifact-relative POSIX path (a prefix cut in the usual case: thousands of outputs). */
function artifactPathOf(outdir: string, file: string): string {
  const prefix = outdir + path.sep;
  if (!file.startsWith(prefix)) return toPosixRelative(outdir, file);
  const rest = file.slice(prefix.length);
  return path.sep === "/" ? rest : rest.split(path.sep).join("/");
}

function isBuildFailure(error: unknown): error is esbuild.BuildFailure {
  return (
    typeof error === "object" &&
    error !== null &&
    Array.isArray((error as { errors?: unknown }).errors) &&
    Array.isArray((error as { warnings?: unknown }).warnings)
  );
}

function toolsByDefinition(bundles: readonly PlannedBundle[]): Map<string, PackagingTool> {
  const map = new Map<string, PackagingTool>();
  for (const bundle of bundles) if (!map.has(bundle.definitionFile)) map.set(bundle.definitionFile, bundle.tools[0]!);
  return map;
}

function finish(
  bundles: Map<string, BundleBytes>,
  toolBundles: Map<string, ToolBundle>,
  diagnostics: readonly Diagnostic[],
): PackagingResult {
  const unique = new Map(diagnostics.map((d) => [JSON.stringify(d), d]));
  const sortedBundles = new Map([...bundles].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const sortedTools = new Map([...toolBundles].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { bundles: sortedBundles, toolBundles: sortedTools, diagnostics: sortDiagnostics([...unique.values()]) };
}

function rootLocation(root: string): { file: string; line: number; column: number } {
  return { file: root, line: 1, column: 1 };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * AL7011 for each file a build read outside the project and the `node_modules/` folders Node searches from it
 * (`inputsOutsideProject`, `./import-confinement.ts`): placed on the module importing it, at the
 * line of the import as written when it is found there, else at its first line.
 */
function outsideInputs(root: string, metafile: esbuild.Metafile | undefined, core: AuthoringCoreModule): Diagnostic[] {
  if (metafile === undefined) return [];
  // The authoring API's module (self-contained: it imports nothing) lies beside the toolchain.
  return inputsOutsideProject(root, metafile.inputs, [path.dirname(core.file)]).map(({ file, importer, original }) => {
    const at = importer ?? file;
    let line = 1;
    let column = 1;
    if (importer !== undefined && original !== undefined) {
      try {
        const lines = fs.readFileSync(importer, "utf8").split("\n");
        const index = lines.findIndex((text) => text.includes(JSON.stringify(original).slice(1, -1)));
        if (index >= 0) [line, column] = [index + 1, lines[index]!.indexOf(JSON.stringify(original).slice(1, -1)) + 1];
      } catch {
        // The importer is not readable any more: its first line.
      }
    }
    return createDiagnostic(Diagnostics.ImportLeavesPackage, { file: at, line, column }, [original ?? path.relative(root, file), `the project and the node_modules/ folders Node searches from it (the build read ${file})`]);
  });
}
