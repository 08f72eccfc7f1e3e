/**
 * The front end of the compiler as one function (DESIGN §1): agent → surfaces → capabilities
 * → plugin packages → static analysis → validation → config merge → content hashes.
 *
 * It reads through a {@link CompilerHost} and writes nothing, so `compile`, `compile --check`,
 * `validate`, the runtime's "compile when stale" and the editor plugin all share it. Every
 * stage reports into one diagnostics list; a later stage still runs on what an earlier stage
 * could produce, so one run reports all problems, not just the first.
 */
import { loadAgent } from "./agent/load-agent.js";
import type { FrontMatterStore } from "./agent/front-matter.js";
import { dependenciesOutsideRepository } from "./agent/dependency-paths.js";
import { resolveCapabilities, type PackagePins } from "./agent/resolve-capabilities.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { dedupeDiagnostics, createDiagnostic } from "../diagnostics/diagnostic.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import type { CompilerHost } from "../common/host.js";
import type { AgentModel, EntryAnalysis, PluginPackage, ResolvedCapability, Surface } from "./model.js";
import { loadPluginPackage } from "./plugin-package/load-plugin-package.js";
import { createStaticAnalyzer, type StaticAnalyzer } from "./static-analysis/static-analyzer.js";
import { ONE_SHOT_RETENTION } from "./static-analysis/source-store.js";
import { mergeCapabilityConfig, type MergedConfig } from "./config/merge-config.js";
import { checkSurfaceCollisions } from "./validation/collisions.js";
import { checkDeferredReach } from "./validation/deferred-reach.js";
import { compileJobOf } from "./validation/json-schema.js";
import { createSchemaCompiler, type SchemaCompileJob, type SchemaCompiler, type VerdictStore } from "./validation/schema-compiler.js";
import { validatePlugin, type ValidatedPlugin } from "./validation/validate-plugin.js";
import { isJsonObject } from "../common/json-value.js";
import { EXCLUDED_NAMES, hashPluginDirectory, type PluginDirectoryHash } from "./plugin-package/hash-plugin-directory.js";
import type { AnalysisPool } from "./analysis-pool.js";
import { preanalyzePlugin } from "./preanalyze-plugin.js";
import { localPluginNameMismatch } from "./plugin-package/local-plugin-name.js";
import { entryOutline, validatedKey, type EntryOutline, type PluginReuse } from "./plugin-reuse.js";

/** Everything the front end learned about one selected capability. */
export interface CapabilityAnalysis {
  readonly surface: Surface;
  readonly resolved: ResolvedCapability;
  readonly pluginPackage: PluginPackage;
  readonly entry: EntryAnalysis | undefined;
  readonly plugin: ValidatedPlugin;
  readonly config: MergedConfig;
  readonly hash: PluginDirectoryHash;
}

/** Result of {@link analyzeAgent}. Diagnostics hold absolute file paths (relativize to report). */
export interface AgentAnalysis {
  readonly root: string;
  readonly agent: AgentModel;
  /** Capabilities in surface order (root first), then `agent.md` order. */
  readonly capabilities: readonly CapabilityAnalysis[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Options of {@link analyzeAgent}. */
export interface AnalyzeOptions {
  /** Pins of published packages from the current plugins.lock. */
  readonly pins?: PackagePins;
  /** `"surfaceId\0key"` whose installed version may move away from the lock (`add`). */
  readonly acceptInstalled?: ReadonlySet<string>;
  /** The project's install command, for hints. */
  readonly installCommand?: string;
  /** A static analyzer to reuse between runs (the editor keeps one; its per-file cache then applies). */
  readonly analyzer?: StaticAnalyzer;
  /**
   * Who compiles the declared schemas with ajv. Default: a compiler for this run that uses a
   * worker thread when there are many schemas (`createSchemaCompiler`), closed at the end.
   */
  readonly schemaCompiler?: SchemaCompiler;
  /** Schema verdicts kept between runs (the persistent analysis cache); only without `schemaCompiler`. */
  readonly verdictStore?: VerdictStore;
  /** Where each `agent.md`'s parsed front matter is kept between runs (the persistent analysis cache). */
  readonly frontMatters?: FrontMatterStore;
  /**
   * The analysis worker (`analysis-pool.ts`), which must be `analyzer`'s persistent store: the
   * plugin folders are assigned to it once resolved, and pass 1 analyses the entry and
   * definitions of each folder this thread claims at once. A pool for changed plugins
   * (`AnalysisPool.changedPlugins`, with `reuse`) is assigned only the folders whose stored
   * results do not hold, once every folder was checked. The caller closes it.
   */
  readonly pool?: AnalysisPool;
  /**
   * Reuse of untouched plugins' results between compiles (`plugin-reuse.ts`): `host` and
   * `analyzer` must then read through its `host`. A plugin whose stored results still hold is
   * neither read, analysed, validated nor hashed again; every other plugin's work is recorded.
   * Not consulted while `pool` runs (a cold analysis), but recorded.
   */
  readonly reuse?: PluginReuse;
}

/**
 * Runs the front end over the agent at `root` (absolute). Never throws for bad input: every
 * problem is a diagnostic. Plugin code is never imported or evaluated.
 */
export function analyzeAgent(host: CompilerHost, root: string, options: AnalyzeOptions = {}): AgentAnalysis {
  const diagnostics: Diagnostic[] = [];
  const agent = loadAgent(host, root, options.frontMatters);
  diagnostics.push(...agent.diagnostics);
  const resolution = resolveCapabilities(host, agent, options);
  diagnostics.push(...resolution.diagnostics);
  // A package.json dependency by a path outside the repository (AL6214, a warning).
  diagnostics.push(...dependenciesOutsideRepository(host, root));

  const analyzer = options.analyzer ?? createStaticAnalyzer(host, { retainModules: ONE_SHOT_RETENTION });
  const surfacesById = new Map(agent.surfaces.map((surface) => [surface.id, surface]));
  const capabilities: CapabilityAnalysis[] = [];

  // Pass 1 reads every package once (manifest, entry) and announces the schemas each entry
  // declares to the schema compiler, which may judge them on a worker thread while this
  // thread goes on; pass 2 validates (parsing definition modules), hashes and merges config.
  const schemaCompiler = options.schemaCompiler ?? createSchemaCompiler(options.verdictStore);
  const pool = options.pool;
  const reuse = options.reuse;
  // Stored results are not consulted while the analysis worker runs a cold analysis, only recorded.
  const changedOnly = pool?.changedPlugins === true && reuse !== undefined;
  const consulted = pool && !changedOnly ? undefined : reuse;
  const within = <T>(dir: string, work: () => T): T => (reuse ? reuse.within(dir, work) : work());
  if (!changedOnly) pool?.assign(resolution.capabilities.map((resolved) => resolved.source.dir));
  // The folders this thread will read are read ahead on another thread (a host that reads the
  // disk, asked to: the CLI's compile), while this one loads TypeScript and works through the
  // first ones. A folder whose stored results will likely be reused is not.
  const readAhead = host.readAhead?.(
    [...new Set(resolution.capabilities.map((resolved) => resolved.source.dir))].filter((dir) => !consulted?.hasRecord(dir)),
    { skip: EXCLUDED_NAMES },
  );
  try {
    const packages = new Map<string, LoadedPackage>();
    const loadFresh = (dir: string): LoadedPackage => {
      const loaded = within(dir, () => loadPackage(host, dir, analyzer));
      packages.set(dir, loaded);
      within(dir, () => schemaCompiler.announce(compileJobsOf(loaded.entry)));
      return loaded;
    };
    const load = (dir: string): LoadedPackage => {
      const reused = consulted ? reuseStored(consulted, dir, resolution.capabilities, analyzer) : undefined;
      if (reused) {
        packages.set(dir, reused);
        return reused;
      }
      return loadFresh(dir);
    };
    if (pool && changedOnly) {
      // An incremental compile: every folder's stored results first, while the worker loads
      // TypeScript; the folders whose results do not hold go to the worker, and this thread
      // waits for their analyses when they are few (it would otherwise load TypeScript itself
      // for them), or shares them with the worker as a cold analysis does.
      const changed: string[] = [];
      for (const resolved of resolution.capabilities) {
        const dir = resolved.source.dir;
        if (packages.has(dir) || changed.includes(dir)) continue;
        const reused = reuseStored(reuse!, dir, resolution.capabilities, analyzer);
        if (reused) packages.set(dir, reused);
        else changed.push(dir);
      }
      pool.assign(changed, { leaveToWorker: changed.length <= LEFT_TO_WORKER });
      for (const dir of changed) {
        pool.prepare(dir, (other) => within(other, () => preanalyzePlugin(host, analyzer, other)));
        loadFresh(dir);
      }
    }
    if (pool && !changedOnly) {
      // With the analysis worker, each package is read and validated in one go, as soon as
      // its analyses are here (the worker analyses the folders ahead; this thread analyses the
      // last ones while it would otherwise wait), so both threads work until the end.
      for (const resolved of resolution.capabilities) {
        const dir = resolved.source.dir;
        let loaded = packages.get(dir);
        if (!loaded) {
          pool.prepare(dir, (other) => within(other, () => preanalyzePlugin(host, analyzer, other)));
          loaded = load(dir);
        }
        const surface = surfacesById.get(resolved.surfaceId)!;
        capabilities.push(analyzeCapability({ host, analyzer, schemaCompiler, within }, surface, resolved, loaded, diagnostics));
      }
    } else {
      for (const resolved of resolution.capabilities) if (!packages.has(resolved.source.dir)) load(resolved.source.dir);
      for (const resolved of resolution.capabilities) {
        const surface = surfacesById.get(resolved.surfaceId)!;
        const context = { host, analyzer, schemaCompiler, within };
        capabilities.push(analyzeCapability(context, surface, resolved, packages.get(resolved.source.dir)!, diagnostics));
      }
    }
    // What was worked on fresh is kept for the next compile (a reused plugin's record already was).
    if (reuse) for (const [dir, loaded] of packages) if (!loaded.reused) reuse.record(dir, { ...loaded, hash: loaded.hash!, validated: loaded.validated });
  } finally {
    readAhead?.close();
    if (!options.schemaCompiler) schemaCompiler.close();
  }

  for (const surface of agent.surfaces) {
    const plugins = capabilities.filter((c) => c.surface.id === surface.id).map((c) => c.plugin);
    diagnostics.push(...checkSurfaceCollisions(plugins), ...checkDeferredReach(plugins, surface.id));
  }
  return { root, agent, capabilities, diagnostics: dedupeDiagnostics(diagnostics) };
}

/**
 * The most changed plugin folders of an incremental compile that the main thread leaves to the
 * analysis worker alone (waiting for it, without loading TypeScript itself); with more, both
 * threads analyse them, as in a cold analysis.
 */
const LEFT_TO_WORKER = 4;

/**
 * Pass 2 for one selected capability: validation, content hash and config, reporting the
 * package's own diagnostics the first time it is seen (a package shared by two surfaces is
 * reported once, not once per surface).
 */
function analyzeCapability(
  context: { readonly host: CompilerHost; readonly analyzer: StaticAnalyzer; readonly schemaCompiler: SchemaCompiler; readonly within: <T>(dir: string, work: () => T) => T },
  surface: Surface,
  resolved: ResolvedCapability,
  loaded: LoadedPackage,
  diagnostics: Diagnostic[],
): CapabilityAnalysis {
  const first = !loaded.reported;
  loaded.reported = true;
  const dir = resolved.source.dir;
  const outline = entryOutlineOf(loaded);
  const key = validatedKey(resolved.request.key, resolved.request.location, loaded.pluginPackage, outline !== undefined);
  let plugin = loaded.validated.get(key);
  if (!plugin) {
    plugin = context.within(dir, () => validateCapability(context.host, resolved, loaded.pluginPackage, loaded.entry, context.analyzer, context.schemaCompiler));
    loaded.validated.set(key, plugin);
  }
  // Hashed after validation read the definition modules: a host that keeps what it read
  // (compile's) then hashes the very bytes that were analysed, without reading them again.
  const hash = (loaded.hash ??= context.within(dir, () => hashPluginDirectory(dir, context.host)));
  if (first) diagnostics.push(...loaded.pluginPackage.diagnostics, ...hash.diagnostics, ...(outline?.diagnostics ?? []), ...plugin.diagnostics);
  else diagnostics.push(...plugin.diagnostics.filter((d) => d.code === Diagnostics.PluginRejected.code || d.code === Diagnostics.EntryMissing.code));
  // When the plugin could not be read far enough to know its configSchema, checking the
  // agent's config against "no schema" would only add errors that follow from the real one.
  const config = configSchemaKnownOf(loaded.pluginPackage, outline)
    ? mergeCapabilityConfig(surface, resolved.request, plugin, () => loaded.entry)
    : { capabilityConfig: resolved.request.config, toolConfigs: new Map(), diagnostics: [] };
  diagnostics.push(...config.diagnostics);
  const misnamed = localPluginNameMismatch(context.host, resolved, loaded.pluginPackage);
  if (misnamed) diagnostics.push(misnamed);
  // A reused plugin's entry analysis is read from the store only when something asks for it (`--target`).
  return {
    surface,
    resolved,
    pluginPackage: loaded.pluginPackage,
    get entry() {
      return loaded.entry;
    },
    plugin,
    config,
    hash,
  };
}

/** What the compile reads of a package's entry analysis: the reused plugin's outline, or the analysis itself. */
function entryOutlineOf(loaded: LoadedPackage): EntryOutline | undefined {
  if (loaded.entryOutline !== undefined) return loaded.entryOutline;
  const entry = loaded.entry;
  return entry && entryOutline(entry);
}

/** One plugin package as pass 1 of {@link analyzeAgent} read it (and pass 2 hashed it). */
interface LoadedPackage {
  readonly pluginPackage: PluginPackage;
  hash: PluginDirectoryHash | undefined;
  readonly entry: EntryAnalysis | undefined;
  /** Whether its diagnostics were reported already (a package may serve several surfaces). */
  reported: boolean;
  /** Its validation per capability ({@link validatedKey}); a package may serve several capabilities. */
  readonly validated: Map<string, ValidatedPlugin>;
  /** True when its results were reused from the last compile (`plugin-reuse.ts`). */
  readonly reused: boolean;
  /** A reused package's outline of its entry analysis, when its record keeps one (then `entry` is read when first asked for). */
  readonly entryOutline?: EntryOutline;
}

function loadPackage(host: CompilerHost, dir: string, analyzer: StaticAnalyzer): LoadedPackage {
  const pluginPackage = loadPluginPackage(host, dir);
  const entry = pluginPackage.entryFile && !pluginPackage.rejected ? analyzer.analyzeEntry(pluginPackage.entryFile, dir) : undefined;
  return { pluginPackage, hash: undefined, entry, reported: false, validated: new Map(), reused: false };
}

/**
 * The folder `dir`'s stored results when they hold for every capability the agent gives it; else
 * `undefined`. `analyzer` analyses the entry again when its stored analysis, read only when first
 * asked for, is no longer there.
 */
function reuseStored(reuse: PluginReuse, dir: string, resolved: readonly ResolvedCapability[], analyzer: StaticAnalyzer): LoadedPackage | undefined {
  const requests = resolved.filter((capability) => capability.source.dir === dir).map((capability) => capability.request);
  const found = reuse.reuse(dir, (pluginPackage, hasEntry) => requests.map((request) => validatedKey(request.key, request.location, pluginPackage, hasEntry)));
  if (!found) return undefined;
  const entry = found.entry;
  let analysed: EntryAnalysis | undefined;
  const entryFile = found.pluginPackage.entryFile;
  return {
    pluginPackage: found.pluginPackage,
    get entry() {
      // A record read when first asked for (the analysis cache's entries file) can be gone by
      // then (replaced by another compile's, damaged): the entry is then analysed again, which
      // gives the same analysis, its files having held by their `stat` (docs/caches.md).
      const stored = entry();
      if (stored !== undefined || found.entryOutline === undefined || entryFile === undefined || found.pluginPackage.rejected) return stored;
      return (analysed ??= analyzer.analyzeEntry(entryFile, dir));
    },
    ...(found.entryOutline ? { entryOutline: found.entryOutline } : {}),
    hash: found.hash,
    reported: false,
    validated: new Map(found.validated),
    reused: true,
  };
}

/** The schema compiles validation will ask for: the configSchema and every tool's inputSchema. */
function compileJobsOf(entry: EntryAnalysis | undefined): SchemaCompileJob[] {
  const value = entry?.entry?.value;
  if (!value) return [];
  const schemas = [value["configSchema"]];
  const tools = value["tools"];
  if (isJsonObject(tools)) {
    for (const name of Object.keys(tools)) {
      const descriptor = tools[name];
      if (isJsonObject(descriptor)) schemas.push(descriptor["inputSchema"]);
    }
  }
  return schemas.map(compileJobOf).filter((job): job is SchemaCompileJob => job !== undefined);
}

/**
 * AL4028 at the capability in agent.md, with the package's own errors (why it was rejected) as
 * related locations: sorted by file, agent.md is printed before them (helper-67: the hint referred
 * to errors the reader had not seen yet).
 */
function pluginRejected(resolved: ResolvedCapability, pluginPackage: PluginPackage): Diagnostic {
  const key = resolved.request.key;
  const causes = pluginPackage.diagnostics.filter((d) => d.severity === "error");
  const related = causes.slice(0, 3).map((d) => ({ file: d.file, line: d.line, column: d.column, message: `rejected for ${d.code}: ${d.message}` }));
  return createDiagnostic(Diagnostics.PluginRejected, resolved.request.location, [key], { path: ["capabilities", key], ...(related.length > 0 ? { related } : {}) });
}

/**
 * Pass 2's validation of one selected capability: AL1xxx when the package was rejected or has
 * no entry, else `validatePlugin` with definition modules read through `analyzer`. Exported for
 * the editor engine, which runs the same steps per plugin (editor/engine/plugin-slice.ts).
 */
export function validateCapability(
  host: CompilerHost,
  resolved: ResolvedCapability,
  pluginPackage: PluginPackage,
  entry: EntryAnalysis | undefined,
  analyzer: StaticAnalyzer,
  schemaCompiler: SchemaCompiler,
): ValidatedPlugin {
  const key = resolved.request.key;
  const empty = (diagnostic: Diagnostic): ValidatedPlugin => ({ capability: key, configSchema: undefined, tools: [], disabled: [], diagnostics: [diagnostic] });
  const at = { path: ["capabilities", key] };
  if (pluginPackage.rejected) return empty(pluginRejected(resolved, pluginPackage));
  if (!entry) return empty(createDiagnostic(Diagnostics.EntryMissing, resolved.request.location, [pluginPackage.name ?? key], at));
  return validatePlugin({
    host,
    capability: key,
    pluginRoot: resolved.source.dir,
    entry,
    analyzeDefinition: (file) => analyzer.analyzeDefinition(file, resolved.source.dir),
    schemaCompiler,
  });
}


/**
 * True when the plugin's configSchema (or its absence) is known: the package loaded, its entry
 * evaluated, nothing under `configSchema` was dropped by the static analysis, and the entry
 * does not write it misspelt (`configschema`: that key's AL4001 is the one mistake, and "the
 * plugin declares no configSchema, remove config" would send the user to the wrong fix).
 */
export function configSchemaKnown(pluginPackage: PluginPackage, entry: EntryAnalysis | undefined): boolean {
  return configSchemaKnownOf(pluginPackage, entry && entryOutline(entry));
}

/** {@link configSchemaKnown} from an entry's outline (`plugin-reuse.ts`). */
function configSchemaKnownOf(pluginPackage: PluginPackage, entry: EntryOutline | undefined): boolean {
  if (pluginPackage.rejected || !entry?.hasValue || entry.configSchemaMisspelt) return false;
  return !entry.diagnostics.some((d) => d.severity === "error" && (d.path === "configSchema" || d.path?.startsWith("configSchema.") || d.path?.startsWith("configSchema[")));
}
