/**
 * A plugin `add`ed from a path outside the agent's repository (helper-78 D8.3): the package
 * manager records it as `file:../extplug` in package.json, a path that exists only on this
 * machine, so `npm ci` (or `pnpm install --frozen-lockfile`) on CI or in a teammate's clone fails
 * — what the README says of the toolchain's own tarball. The install is kept (it works here, and
 * trying a plugin from a sibling checkout is legitimate), but it is said, with the ways to share it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, type SourceLocation } from "../../common/positions.js";
import { parseJsonText } from "../../common/json-text.js";
import { isPathInside } from "../../common/path-inside.js";
import type { PluginSpec } from "./resolve-plugin-spec.js";

/**
 * The folder a clone of the agent holds: the nearest folder at or above `agentRoot` with a
 * `.git` (a folder, or the file of a worktree or submodule); `agentRoot` itself when there is
 * none (then the agent folder is what gets copied or committed).
 */
export function repositoryRoot(agentRoot: string): string {
  for (let dir = path.resolve(agentRoot); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, ".git"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(agentRoot);
  }
}

/**
 * AL6213 (a warning) when `spec` is a folder or tarball outside the repository of `agentRoot`
 * ({@link repositoryRoot}), located at the dependency `packageName` in the agent's package.json
 * (line 1 when it cannot be found there); `undefined` for a registry spec or a path inside it.
 * Both paths are compared as real paths, so a link into the repository counts as inside.
 *
 * @param key the capability key, named in the hint's `plugins/<key>/`.
 */
export function outsideRepositoryDiagnostic(spec: PluginSpec, agentRoot: string, packageName: string, key: string): Diagnostic | undefined {
  if (spec.kind === "registry") return undefined;
  const repository = repositoryRoot(agentRoot);
  if (isPathInside(realPath(repository), realPath(spec.path))) return undefined;
  const packageJson = path.join(agentRoot, "package.json");
  const shownRepository = path.relative(agentRoot, repository) || ".";
  return createDiagnostic(
    Diagnostics.AddPathOutsideRepository,
    dependencyLocation(packageJson, packageName),
    [packageName, path.relative(agentRoot, spec.path).split(path.sep).join("/"), repository === path.resolve(agentRoot) && !fs.existsSync(path.join(repository, ".git")) ? "the agent's folder (no Git repository holds it)" : `the repository (${shownRepository.split(path.sep).join("/")})`, key],
  );
}

/** Where package.json names `packageName` (dependencies first, then devDependencies), or its line 1. */
function dependencyLocation(packageJson: string, packageName: string): SourceLocation {
  try {
    const parsed = parseJsonText(packageJson, fs.readFileSync(packageJson, "utf8"));
    if (!parsed.ok) return fileStart(packageJson);
    const value = parsed.value as Record<string, Record<string, unknown> | undefined>;
    for (const field of ["dependencies", "devDependencies", "optionalDependencies"]) {
      if (value[field]?.[packageName] !== undefined) return parsed.positions.locate([field, packageName], "property");
    }
  } catch {
    // Unreadable now: the warning still stands, at the file.
  }
  return fileStart(packageJson);
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}
