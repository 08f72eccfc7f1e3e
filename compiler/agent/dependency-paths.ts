/**
 * Dependencies of the agent's package.json that name a path outside the agent's repository
 * (helper-78 D8.3 for `add`, AL6213; the new-user trial of 6 December for everything else,
 * AL6214): npm, pnpm and Yarn record a folder or tarball dependency as a path relative to
 * package.json (`file:../assembly-line`, `link:`, `portal:`), which exists only on the machine
 * that wrote it, so `npm ci` on CI or in a teammate's clone fails, or works only from a warm
 * cache. The README says so of the toolchain's own tarball; this is where it is checked.
 *
 * The one place for "the agent's repository" and "outside it": `add` (`cli/add/outside-repository.ts`)
 * and the front end (`compiler/analyze-agent.ts`) both ask here.
 */
import * as path from "node:path";
import type { CompilerHost } from "../../common/host.js";
import { parseJsonText } from "../../common/json-text.js";
import { isJsonObject } from "../../common/json-value.js";
import { isPathInside } from "../../common/path-inside.js";
import { fileStart, type SourceLocation } from "../../common/positions.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";

/** The dependency fields of package.json a package manager installs from, in the order they are searched. */
const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "optionalDependencies"] as const;

/** Protocols that name a path (npm and pnpm `file:`, pnpm and Yarn `link:`, Yarn `portal:`). */
const PATH_PROTOCOL = /^(?:file|link|portal):/;

/**
 * The folder a clone of the agent holds: the nearest folder at or above `agentRoot` with a
 * `.git` (a folder, or the file of a worktree or submodule); `agentRoot` itself when there is
 * none (then the agent folder is what gets copied or committed).
 */
export function repositoryRoot(host: CompilerHost, agentRoot: string): string {
  for (let dir = path.resolve(agentRoot); ; dir = path.dirname(dir)) {
    if (host.kind(path.join(dir, ".git")) !== "missing") return dir;
    if (path.dirname(dir) === dir) return path.resolve(agentRoot);
  }
}

/**
 * How a message names the repository of `agentRoot` ({@link repositoryRoot}):
 * `the repository (..)`, relative to the agent root, or `the agent's folder (no Git repository
 * holds it)`.
 */
export function repositoryWords(host: CompilerHost, agentRoot: string, repository: string): string {
  if (repository === path.resolve(agentRoot) && host.kind(path.join(repository, ".git")) === "missing") return "the agent's folder (no Git repository holds it)";
  return `the repository (${(path.relative(agentRoot, repository) || ".").split(path.sep).join("/")})`;
}

/**
 * Whether `target` (absolute) lies outside `repository`, both compared as real paths, so a link
 * into the repository counts as inside.
 */
export function isOutsideRepository(host: CompilerHost, repository: string, target: string): boolean {
  return !isPathInside(host.realpath(repository) ?? path.resolve(repository), host.realpath(target) ?? path.resolve(target));
}

/**
 * Where `packageJson` (absolute) names `packageName` (dependencies first, then devDependencies,
 * then optionalDependencies: the whole member), or its line 1 when it does not or cannot be read.
 */
export function dependencyLocation(host: CompilerHost, packageJson: string, packageName: string): SourceLocation {
  const read = host.read(packageJson);
  if (read.kind !== "file") return fileStart(packageJson);
  const parsed = parseJsonText(packageJson, read.text);
  if (!parsed.ok || !isJsonObject(parsed.value)) return fileStart(packageJson);
  for (const field of DEPENDENCY_FIELDS) {
    const deps = parsed.value[field];
    if (isJsonObject(deps) && deps[packageName] !== undefined) return parsed.positions.locate([field, packageName], "property");
  }
  return fileStart(packageJson);
}

/**
 * The path a dependency spec names, resolved against `projectDir` (the folder of its
 * package.json): `file:`, `link:` and `portal:` specs and bare relative or absolute paths
 * (`../x`, `./vendor/x.tgz`, `/opt/x`); `undefined` for a registry, Git or URL spec.
 */
export function dependencyPath(spec: string, projectDir: string): string | undefined {
  const bare = PATH_PROTOCOL.test(spec) ? spec.slice(spec.indexOf(":") + 1) : /^(?:\.{1,2}\/|\/)/.test(spec) ? spec : undefined;
  if (bare === undefined || bare === "") return undefined;
  // `file://…` is a URL form npm accepts too.
  const local = bare.startsWith("//") ? bare.replace(/^\/\/(?:localhost)?/, "") : bare;
  return path.resolve(projectDir, local);
}

/**
 * AL6214 (a warning) for each dependency of the agent root's package.json (dependencies,
 * devDependencies, optionalDependencies) that names a path outside the agent's repository
 * ({@link repositoryRoot}), at the dependency; `[]` without a package.json, for one that is not
 * JSON (nothing installs from it either) and for paths inside the repository (`vendor/x.tgz`,
 * a workspace package). Sorted by position. Never throws.
 */
export function dependenciesOutsideRepository(host: CompilerHost, agentRoot: string): Diagnostic[] {
  const packageJson = path.join(agentRoot, "package.json");
  const read = host.read(packageJson);
  if (read.kind !== "file") return [];
  const parsed = parseJsonText(packageJson, read.text);
  if (!parsed.ok || !isJsonObject(parsed.value)) return [];
  let repository: string | undefined;
  const found: Diagnostic[] = [];
  for (const field of DEPENDENCY_FIELDS) {
    const deps = parsed.value[field];
    if (!isJsonObject(deps)) continue;
    for (const [name, spec] of Object.entries(deps)) {
      const target = typeof spec === "string" ? dependencyPath(spec, agentRoot) : undefined;
      if (target === undefined) continue;
      repository ??= repositoryRoot(host, agentRoot);
      if (!isOutsideRepository(host, repository, target)) continue;
      const location = parsed.positions.locate([field, name], "property");
      found.push(createDiagnostic(Diagnostics.DependencyPathOutsideRepository, location, [name, spec as string, repositoryWords(host, agentRoot, repository)], { path: [field, name] }));
    }
  }
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}
