/**
 * The part of `analyzeAgent` (compiler/analyze-agent.ts) that can report into the files of one
 * plugin folder: the agent and its capability resolution, the package, its entry, the
 * validation of every capability that selects it, its content hash, its config merge, and the
 * tool-name collisions of every surface that selects it (which need the other plugins of that
 * surface validated too, but only when one of them declares one of its tool names). Each piece is a {@link StageMemo}, so an edit re-runs only what read
 * the edited file. With `deferOthers`, a slice leaves out the collisions with other plugins
 * whose declared names are not known yet instead of reading their entries, and says which
 * (`PluginSlice.deferred`); {@link SliceStages.readDeferred} reads them after the answer. The diagnostics are the ones `analyzeAgent` produces, by the same rules (a
 * package shared by two capabilities reports its own diagnostics once).
 */
import * as path from "node:path";
import { pinsOf } from "../../build/lock-inputs.js";
import { loadAgent } from "../../compiler/agent/load-agent.js";
import { resolveCapabilities, type CapabilityResolution, type PackagePins } from "../../compiler/agent/resolve-capabilities.js";
import { configSchemaKnown, validateCapability } from "../../compiler/analyze-agent.js";
import { mergeCapabilityConfig } from "../../compiler/config/merge-config.js";
import type { AgentModel, EntryAnalysis, PluginPackage, ResolvedCapability } from "../../compiler/model.js";
import { hashPluginDirectory, type PluginDirectoryHash } from "../../compiler/plugin-package/hash-plugin-directory.js";
import { ENTRY_FILE_NAMES } from "../../compiler/plugin-package/extension-directory.js";
import { loadPluginPackage } from "../../compiler/plugin-package/load-plugin-package.js";
import type { StaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { checkSurfaceCollisions } from "../../compiler/validation/collisions.js";
import type { SchemaCompiler } from "../../compiler/validation/schema-compiler.js";
import { validatePlugin, type ValidatedPlugin } from "../../compiler/validation/validate-plugin.js";
import type { CompilerHost } from "../../common/host.js";
import { isJsonObject } from "../../common/json-value.js";
import { LOCKFILE_NAME } from "../../contract/lockfile-types.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { readLockfile } from "../../lockfile/read-lockfile.js";
import { StageMemo } from "./memo.js";
import type { RecordingHost } from "./recording-host.js";

/** An agent as compile sees it before any package is read. */
export interface AgentStage {
  readonly agent: AgentModel;
  readonly resolution: CapabilityResolution;
}

/** One plugin package as `analyzeAgent`'s first pass reads it. */
export interface PackageStage {
  readonly pluginPackage: PluginPackage;
  readonly entry: EntryAnalysis | undefined;
}

/** What the slice of one plugin folder found. */
export interface PluginSlice {
  /** False when no capability of the agent selects the folder (then compile reads none of it). */
  readonly selected: boolean;
  /** Every diagnostic the slice produced (any file); the caller keeps those of its file. */
  readonly diagnostics: readonly Diagnostic[];
  /** The folder's package and entry, when read. */
  readonly package: PackageStage | undefined;
  /**
   * Plugin folders of a surface that selects this one whose declared tool names were not known
   * (their entries not read) when the slice was made with `deferOthers`: the collisions with
   * them are left out of `diagnostics`. Empty when the slice is complete.
   */
  readonly deferred: readonly string[];
}

/** The published-package pins of the agent's current plugins.lock, as compile reads them. */
export function pinsFor(host: CompilerHost, root: string): PackagePins {
  return pinsOf(readLockfile(path.join(root, LOCKFILE_NAME), { host }));
}

/** The stage memos of one engine. */
export class SliceStages {
  readonly #agents: StageMemo<AgentStage>;
  readonly #packages: StageMemo<PluginPackage>;
  readonly #validations: StageMemo<ValidatedPlugin>;
  readonly #hashes: StageMemo<PluginDirectoryHash>;
  readonly #names: StageMemo<ReadonlySet<string>>;

  /**
   * @param deferOthers leave out the tool-name collisions with other plugins whose declared
   *   names are not known yet, instead of reading their entries (see {@link PluginSlice.deferred}):
   *   the editor's first answer comes from the opened plugin alone (helper-106).
   */
  constructor(
    readonly host: RecordingHost,
    readonly analyzer: StaticAnalyzer,
    readonly schemaCompiler: SchemaCompiler,
    readonly deferOthers = false,
  ) {
    this.#agents = new StageMemo(host);
    this.#packages = new StageMemo(host);
    this.#validations = new StageMemo(host);
    this.#hashes = new StageMemo(host);
    this.#names = new StageMemo(host);
  }

  /** The pins, `loadAgent` and `resolveCapabilities`, as compile runs them. */
  agent(root: string): AgentStage {
    return this.#agents.get(root, () => {
      const agent = loadAgent(this.host, root);
      return { agent, resolution: resolveCapabilities(this.host, agent, { pins: pinsFor(this.host, root) }) };
    });
  }

  /**
   * `loadPackage` of analyze-agent.ts: the package, then its entry unless rejected. The package
   * is kept apart from the entry (the static analyzer keeps the entry), so typing in the entry
   * does not load plugin.json, skills and mcp.json again.
   */
  package(dir: string): PackageStage {
    const pluginPackage = this.#packages.get(dir, () => loadPluginPackage(this.host, dir));
    const entry = pluginPackage.entryFile && !pluginPackage.rejected ? this.analyzer.analyzeEntry(pluginPackage.entryFile, dir) : undefined;
    return { pluginPackage, entry };
  }

  /** `validateCapability` of analyze-agent.ts for one resolved capability. */
  validation(resolved: ResolvedCapability): ValidatedPlugin {
    const dir = resolved.source.dir;
    return this.#validations.get(`${resolved.request.key}\0${dir}`, () => {
      const loaded = this.package(dir);
      return validateCapability(this.host, resolved, loaded.pluginPackage, loaded.entry, this.analyzer, this.schemaCompiler);
    });
  }

  /**
   * `hashPluginDirectory` of one folder, for its diagnostics (unreadable files, broken,
   * escaping or cyclic links, special files, path collisions), which do not depend on what the
   * files hold: the result is kept across edits of file contents, so its `integrity` is not
   * current (the editor never uses it).
   */
  hash(dir: string): PluginDirectoryHash {
    return this.#hashes.get(dir, () => this.host.blindToContent(() => hashPluginDirectory(dir, this.host)));
  }

  /**
   * Every tool name an entry of the folder declares (the keys of `tools` of each
   * `ai.assemblyline/index.*` that exists): a superset of the names its validation can accept,
   * that costs two stats to re-check (the folder's stamp and the entry; no plugin.json, no
   * definition modules).
   */
  declaredNames(dir: string): ReadonlySet<string> {
    return this.#names.get(dir, () => {
      const names = new Set<string>();
      const folder = path.join(dir, "ai.assemblyline");
      this.host.stampDirectory(folder);
      const entries = this.host.quietly(() => ENTRY_FILE_NAMES.map((name) => path.join(folder, name)).filter((file) => this.host.kind(file) === "file"));
      for (const file of entries) {
        const tools = this.analyzer.analyzeEntry(file, dir).entry?.value["tools"];
        if (isJsonObject(tools)) for (const key of Object.keys(tools)) names.add(key);
      }
      return names;
    });
  }

  /**
   * `checkSurfaceCollisions` of the surface of `current` as far as it can report into
   * `current`'s entry: a name collision there needs another capability of the surface that
   * declares one of its names, so the other plugins are validated only when one does (their
   * declared names are cheap to keep fresh); otherwise `current` alone gives its core-tool
   * collisions. With `deferOthers`, when the declared names of another capability's folder
   * are not known yet, they are not read: `current` alone gives the answer and the folders go
   * into `deferred` (read later by {@link readDeferred}).
   */
  #collisions(resolution: CapabilityResolution, current: ResolvedCapability, deferred: Set<string>): Diagnostic[] {
    const surface = resolution.capabilities.filter((c) => c.surfaceId === current.surfaceId);
    const others = surface.filter((other) => other !== current);
    // With deferOthers, names not known yet are not read (`peek` records what it checks, as `get` does).
    const names = others.map((other) => (this.deferOthers && other.source.dir !== current.source.dir ? this.#names.peek(other.source.dir) : this.declaredNames(other.source.dir)));
    if (names.includes(undefined)) {
      for (const [index, other] of others.entries()) if (names[index] === undefined) deferred.add(other.source.dir);
      return checkSurfaceCollisions([this.validation(current)]);
    }
    const own = this.declaredNames(current.source.dir);
    const shared = names.some((declared) => [...declared!].some((name) => own.has(name)));
    return checkSurfaceCollisions(shared ? surface.map((c) => this.validation(c)) : [this.validation(current)]);
  }

  /** The slice of the agent at `root` that reports into the plugin folder `pluginDir` (absolute). */
  slice(root: string, pluginDir: string): PluginSlice {
    const { agent, resolution } = this.agent(root);
    const diagnostics: Diagnostic[] = [...agent.diagnostics, ...resolution.diagnostics];
    const selecting = resolution.capabilities.filter((c) => path.resolve(c.source.dir) === pluginDir);
    if (selecting.length === 0) return { selected: false, diagnostics, package: undefined, deferred: [] };
    const deferred = new Set<string>();
    const dir = selecting[0]!.source.dir;
    const loaded = this.package(dir);
    selecting.forEach((resolved, index) => {
      const plugin = this.validation(resolved);
      if (index === 0) {
        // analyzeCapability: a package's own diagnostics are reported with its first capability.
        diagnostics.push(...loaded.pluginPackage.diagnostics, ...this.hash(dir).diagnostics, ...(loaded.entry?.diagnostics ?? []), ...plugin.diagnostics);
      } else {
        diagnostics.push(...plugin.diagnostics.filter((d) => d.code === Diagnostics.PluginRejected.code || d.code === Diagnostics.EntryMissing.code));
      }
      const surface = agent.surfaces.find((s) => s.id === resolved.surfaceId)!;
      if (configSchemaKnown(loaded.pluginPackage, loaded.entry)) diagnostics.push(...mergeCapabilityConfig(surface, resolved.request, plugin, () => loaded.entry).diagnostics);
      diagnostics.push(...this.#collisions(resolution, resolved, deferred));
    });
    return { selected: true, diagnostics, package: loaded, deferred: [...deferred].sort() };
  }

  /**
   * What `validate <pluginDir>` reports (compiler/validate-package.ts), for a plugin folder no
   * agent selects: the package, its hash, its entry, its validation (capability = the plugin's
   * name) and the collisions within it.
   */
  standalone(pluginDir: string): PluginSlice {
    const loaded = this.package(pluginDir);
    const diagnostics: Diagnostic[] = [...loaded.pluginPackage.diagnostics];
    if (!loaded.pluginPackage.rejected) {
      diagnostics.push(...this.hash(pluginDir).diagnostics);
      if (loaded.entry) {
        diagnostics.push(...loaded.entry.diagnostics);
        const plugin = this.#validations.get(`\0standalone\0${pluginDir}`, () => {
          const current = this.package(pluginDir);
          return validatePlugin({
            host: this.host,
            capability: current.pluginPackage.name ?? path.basename(pluginDir),
            pluginRoot: pluginDir,
            entry: current.entry!,
            analyzeDefinition: (file) => this.analyzer.analyzeDefinition(file, pluginDir),
            schemaCompiler: this.schemaCompiler,
          });
        });
        diagnostics.push(...plugin.diagnostics, ...checkSurfaceCollisions([plugin]));
      }
    }
    return { selected: false, diagnostics, package: loaded, deferred: [] };
  }

  /**
   * Reads the declared tool names of the plugin folders `dirs` (what a slice deferred) and
   * returns true when one of them declares a name of `pluginDir`'s own: then a slice of
   * `pluginDir` made without them left out a collision, and the answer made from it changes.
   */
  readDeferred(pluginDir: string, dirs: readonly string[]): boolean {
    const own = this.declaredNames(pluginDir);
    let shared = false;
    for (const dir of dirs) if ([...this.declaredNames(dir)].some((name) => own.has(name))) shared = true;
    return shared;
  }
}
