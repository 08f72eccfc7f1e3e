/**
 * Stage 1b: resolve each surface's capability keys to plugin package directories (DESIGN §2).
 *
 * A key resolves, in order: `plugins/<key>/` of that surface; the entry's `package` field
 * (an installed npm package, found as Node finds it: `node_modules/<name>` in the surface's
 * folder or any folder above it); the package pinned for that key in `plugins.lock`.
 * Anything else is an error that says how to fix it (`assembly-line add <key>`).
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";
import { isJsonObject } from "../../common/json-value.js";
import { didYouMean } from "../../common/did-you-mean.js";
import { byCodeUnits } from "../../common/compare.js";
import { checkInstalledVersion } from "./installed-version.js";
import type { AgentModel, CapabilityRequest, CapabilitySource, ResolvedCapability, Surface } from "../model.js";
import validateNpmPackageName from "validate-npm-package-name";

/** A published package pinned in plugins.lock for one capability. */
export interface PackagePin {
  readonly name: string;
  readonly version: string;
}

/** Pins read from the existing lock: surface id → capability key → pin. */
export type PackagePins = ReadonlyMap<string, ReadonlyMap<string, PackagePin>>;

/** Options of {@link resolveCapabilities}. */
export interface ResolveOptions {
  /** Pins from the current plugins.lock (empty when there is none or it is unreadable). */
  readonly pins?: PackagePins;
  /**
   * `"surfaceId\0key"` entries whose installed version may differ from the lock (used by
   * `assembly-line add`, which moves the pin on purpose).
   */
  readonly acceptInstalled?: ReadonlySet<string>;
  /** The command that installs the project's dependencies, for hints (default `npm install`). */
  readonly installCommand?: string;
}

/** Resolved capabilities of every surface, in surface then `agent.md` order. */
export interface CapabilityResolution {
  readonly capabilities: readonly ResolvedCapability[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Resolves every capability request of every surface of `agent`.
 * Unresolvable keys are reported (AL1012, AL1013, AL1014, …) and left out. Never throws.
 */
export function resolveCapabilities(host: CompilerHost, agent: AgentModel, options: ResolveOptions = {}): CapabilityResolution {
  const capabilities: ResolvedCapability[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const surface of agent.surfaces) {
    // The first key of a surface that selected each published package (new-user trial 119).
    const firstKeyOf = new Map<string, string>();
    for (const request of surface.capabilities) {
      const source = resolveOne(host, surface, request, options, diagnostics, agent.root);
      if (source?.type === "npm") {
        const first = firstKeyOf.get(source.name);
        if (first !== undefined) {
          diagnostics.push(createDiagnostic(Diagnostics.CapabilityPackageSelectedTwice, request.location, [request.key, first, source.name], { path: ["capabilities", request.key] }));
          continue;
        }
        firstKeyOf.set(source.name, request.key);
      }
      if (source) capabilities.push({ surfaceId: surface.id, request, source });
    }
    // When agent.md itself is broken, what it selects is unknown: do not call folders unselected.
    if (!agent.diagnostics.some((d) => d.file === surface.agentFile && d.severity === "error")) reportUnselectedPlugins(host, surface, diagnostics);
  }
  return { capabilities, diagnostics };
}

function resolveOne(
  host: CompilerHost,
  surface: Surface,
  request: CapabilityRequest,
  options: ResolveOptions,
  diagnostics: Diagnostic[],
  agentRoot: string,
): CapabilitySource | undefined {
  const localDir = path.join(surface.dir, "plugins", request.key);
  const localKind = host.kind(localDir);
  const at = { path: ["capabilities", request.key] };
  if (localKind === "directory" || (localKind === "symlink" && kindBehindLink(host, localDir) === "directory")) {
    return { type: "local", dir: localDir };
  }
  if (localKind !== "missing") {
    diagnostics.push(createDiagnostic(Diagnostics.PluginFolderNotDirectory, request.location, [request.key], at));
    return undefined;
  }
  const pin = options.pins?.get(surface.id)?.get(request.key);
  const packageName = request.package ?? pin?.name;
  if (packageName === undefined) {
    const folders = (host.readDirectory(path.join(surface.dir, "plugins")) ?? []).filter((e) => e.kind === "directory" || e.kind === "symlink").map((e) => e.name);
    // A folder the surface selects already is no fix: renaming the key to it repeats that key
    // (AL1006), which the editor's quick fix did (new-user trial of 6 December).
    const selected = new Set(surface.capabilities.map((c) => c.key));
    const suggestion = didYouMean(request.key, folders.filter((folder) => !selected.has(folder)));
    const repeated = suggestion ? undefined : didYouMean(request.key, folders.filter((folder) => selected.has(folder) && folder !== request.key));
    const shown = `${surface.id === "." ? "" : `${surface.id}/`}plugins/${request.key}/`;
    const hint = suggestion
      ? `Did you mean '${suggestion}'? plugins/${suggestion}/ is a local plugin of this surface.`
      : repeated
        ? `'${repeated}' (plugins/${repeated}/) is selected already: remove this line if it repeats it, or create ${shown} with a plugin.json.`
        : rootPluginHint(host, surface, request.key, shown);
    diagnostics.push(createDiagnostic(Diagnostics.CapabilityUnresolved, request.location, [request.key, shown], { ...at, ...(hint ? { hint } : {}) }));
    return undefined;
  }
  // npm's naming rules for new packages (lowercase, URL-safe, at most 214 characters, no reserved names).
  if (!validateNpmPackageName(packageName).validForNewPackages) {
    diagnostics.push(createDiagnostic(Diagnostics.CapabilityPackageInvalid, request.location, [packageName], { path: ["capabilities", request.key, "package"] }));
    return undefined;
  }
  const installed = findInstalledPackage(host, surface.dir, packageName);
  const pinApplies = pin !== undefined && pin.name === packageName && !options.acceptInstalled?.has(`${surface.id}\0${request.key}`);
  if (pinApplies) {
    const mismatch = checkInstalledVersion({
      capability: request.key,
      locked: { type: "npm", name: pin.name, version: pin.version },
      installedVersion: installed?.version,
      location: request.location,
      installCommand: options.installCommand ?? "npm install",
      // Read only for a mismatch: package.json is otherwise no input of the compile.
      ...(installed !== undefined && installed.version !== pin.version ? declaredDependency(host, surface.dir, packageName) : {}),
      displayFrom: agentRoot,
    });
    if (mismatch) {
      diagnostics.push({ ...mismatch, path: formatPropertyPath(["capabilities", request.key]) });
      return undefined;
    }
  }
  if (!installed) {
    diagnostics.push(createDiagnostic(Diagnostics.CapabilityPackageNotInstalled, request.location, [packageName, request.key], at));
    return undefined;
  }
  if (installed.version === undefined) {
    diagnostics.push(createDiagnostic(Diagnostics.CapabilityPackageManifestInvalid, fileStart(path.join(installed.dir, "package.json")), [packageName]));
    return undefined;
  }
  return { type: "npm", name: packageName, version: installed.version, dir: installed.dir };
}

/**
 * How the nearest `package.json` at or above `fromDir` that declares `name` (in `dependencies`,
 * `devDependencies` or `optionalDependencies`) declares it, for AL6008's hint; nothing when none
 * does or one on the way cannot be read. The nearest, not the one beside the `node_modules` that
 * holds the package: in an npm workspace the member declares it and npm hoists it to the root's
 * `node_modules` (new-user trial 120: the hint offered a registry `add` for a `file:` tarball).
 */
function declaredDependency(host: CompilerHost, fromDir: string, name: string): { declared?: { spec: string; projectDir: string } } {
  for (let projectDir = fromDir; ; ) {
    const manifest = host.read(path.join(projectDir, "package.json"));
    if (manifest.kind === "file") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(manifest.text.replace(/^\uFEFF/, ""));
      } catch {
        // Not JSON: the hint keeps its registry form.
        return {};
      }
      for (const field of ["dependencies", "devDependencies", "optionalDependencies"]) {
        const deps = isJsonObject(parsed) ? parsed[field] : undefined;
        const spec = isJsonObject(deps) ? deps[name] : undefined;
        if (typeof spec === "string") return { declared: { spec, projectDir } };
      }
    }
    const parent = path.dirname(projectDir);
    if (parent === projectDir) return {};
    projectDir = parent;
  }
}

/**
 * Finds `node_modules/<name>` from `fromDir` upwards, as Node's resolver does.
 * @returns the package directory and its package.json `version`. The directory is the link's
 *   target when `node_modules/<name>` is a link to a folder outside every `node_modules` (a
 *   workspace's own package, `npm link`): its files are the repository's, and diagnostics,
 *   GitHub annotations and source maps name them where the user edits them (new-user trial 119:
 *   `node_modules/@team/shared-tools/…` is not in the checkout GitHub shows). Other links (pnpm's
 *   store under `node_modules/.pnpm`) are kept as written.
 */
export function findInstalledPackage(host: CompilerHost, fromDir: string, name: string): { dir: string; version: string | undefined } | undefined {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, "node_modules", ...name.split("/"));
    const manifest = host.read(path.join(candidate, "package.json"));
    if (manifest.kind === "file") {
      let version: string | undefined;
      try {
        const parsed: unknown = JSON.parse(manifest.text.replace(/^\uFEFF/, ""));
        if (isJsonObject(parsed) && typeof parsed["version"] === "string") version = parsed["version"];
      } catch {
        version = undefined;
      }
      return { dir: sourceFolder(host, candidate), version };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** `dir`, or the folder a link there leads to when that folder is outside every `node_modules` ({@link findInstalledPackage}). */
function sourceFolder(host: CompilerHost, dir: string): string {
  const real = host.realpath(dir);
  const parent = host.realpath(path.dirname(dir));
  // Not a link itself (a folder above it may be one, as the agent root's may: kept as given).
  if (real === undefined || parent === undefined || real === path.join(parent, path.basename(dir))) return dir;
  return real.split(path.sep).includes("node_modules") ? dir : real;
}

/**
 * Plugin folders (with a `plugin.json`) the surface does not select: one AL1017 note each, or, when the surface
 * selects nothing at all, one AL1028 warning naming them all (a misspelled or missing
 * `capabilities:` would otherwise drop every tool silently).
 */
function reportUnselectedPlugins(host: CompilerHost, surface: Surface, diagnostics: Diagnostic[]): void {
  const entries = host.readDirectory(path.join(surface.dir, "plugins"));
  if (!entries) return;
  const selected = new Set(surface.capabilities.map((c) => c.key));
  const unselected: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".") || selected.has(entry.name)) continue;
    const dir = path.join(surface.dir, "plugins", entry.name);
    // A folder without plugin.json is no plugin package: selecting it would only fail (new-user trial 112).
    const isFolder = entry.kind === "directory" || (entry.kind === "symlink" && kindBehindLink(host, dir) === "directory");
    if (isFolder && host.kind(path.join(dir, "plugin.json")) !== "missing") unselected.push(entry.name);
  }
  unselected.sort(byCodeUnits);
  if (unselected.length > 0 && selected.size === 0) {
    const named = unselected.map((name) => `plugins/${name}/`);
    const list = named.length === 1 ? named[0]! : `${named.slice(0, -1).join(", ")} and ${named.at(-1)!}`;
    diagnostics.push(createDiagnostic(Diagnostics.SurfaceSelectsNothing, fileStart(surface.agentFile), [list, unselected[0]!]));
    return;
  }
  for (const name of unselected) diagnostics.push(createDiagnostic(Diagnostics.PluginFolderNotSelected, fileStart(surface.agentFile), [name]));
}

function kindBehindLink(host: CompilerHost, link: string): string {
  const target = host.realpath(link);
  return target ? host.kind(target) : "missing";
}

/**
 * For a subagent's key that only the root agent has as a local plugin: a hint that says so (a
 * surface sees only the plugins in its own folder, seed "Tools are scoped by plugin activation").
 */
function rootPluginHint(host: CompilerHost, surface: Surface, key: string, shown: string): string | undefined {
  if (surface.id === ".") return undefined;
  const rootDir = path.resolve(surface.dir, ...surface.id.split("/").map(() => ".."));
  const kind = host.kind(path.join(rootDir, "plugins", key));
  if (kind !== "directory" && kind !== "symlink") return undefined;
  return `plugins/${key}/ is a local plugin of the root agent, and a subagent sees only the plugins in its own folder: move or copy it to ${shown}, or publish it and select it with 'package' in each agent.md that needs it.`;
}
