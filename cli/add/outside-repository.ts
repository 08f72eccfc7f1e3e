/**
 * A plugin `add`ed from a path outside the agent's repository (helper-78 D8.3): the package
 * manager records it as `file:../extplug` in package.json, a path that exists only on this
 * machine, so `npm ci` (or `pnpm install --frozen-lockfile`) on CI or in a teammate's clone fails
 * — what the README says of the toolchain's own tarball. The install is kept (it works here, and
 * trying a plugin from a sibling checkout is legitimate), but it is said, with the ways to share it.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createNodeHost } from "../../common/host.js";
import { dependencyLocation, isOutsideRepository, repositoryRoot, repositoryWords } from "../../compiler/agent/dependency-paths.js";
import type { PluginSpec } from "./resolve-plugin-spec.js";

/**
 * AL6213 (a warning) when `spec` is a folder or tarball outside the repository of `agentRoot`
 * (`repositoryRoot`, the one rule in `compiler/agent/dependency-paths.ts`, which compile's AL6214
 * uses too), located at the dependency `packageName` in the agent's package.json (line 1 when
 * it cannot be found there); `undefined` for a registry spec or a path inside it. Both paths are
 * compared as real paths, so a link into the repository counts as inside.
 *
 * @param key the capability key, named in the hint's `plugins/<key>/`.
 */
export function outsideRepositoryDiagnostic(spec: PluginSpec, agentRoot: string, packageName: string, key: string): Diagnostic | undefined {
  if (spec.kind === "registry") return undefined;
  const host = createNodeHost();
  const repository = repositoryRoot(host, agentRoot);
  if (!isOutsideRepository(host, repository, spec.path)) return undefined;
  return createDiagnostic(
    Diagnostics.AddPathOutsideRepository,
    dependencyLocation(host, path.join(agentRoot, "package.json"), packageName),
    [packageName, path.relative(agentRoot, spec.path).split(path.sep).join("/"), repositoryWords(host, agentRoot, repository), key],
  );
}
