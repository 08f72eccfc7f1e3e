/**
 * The lock pins published plugins; `compile` refuses an installed version that differs from the
 * pinned one (issue 3 item 7).
 */
import * as path from "node:path";
import { createDiagnostic, fillTemplate, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { LockedSource } from "../../contract/lockfile-types.js";

/** Input of {@link checkInstalledVersion}. */
export interface InstalledVersionCheck {
  /** The capability key (`openui`). */
  readonly capability: string;
  /** The capability's source as committed in `plugins.lock`. */
  readonly locked: LockedSource;
  /** `version` of `node_modules/<name>/package.json`, or `undefined` when it is not installed. */
  readonly installedVersion: string | undefined;
  /** Where to report (e.g. the capability key in agent.md). */
  readonly location: SourceLocation;
  /** The command that installs the project's dependencies (`npm install`, `pnpm install`, `yarn install`). */
  readonly installCommand: string;
  /**
   * How the project's `package.json` declares the package, when it does: the dependency's spec
   * (`^1.2.0`, `file:vendor/x-1.3.0.tgz`) and the folder of that `package.json`, which a path in
   * the spec is relative to.
   */
  readonly declared?: { readonly spec: string; readonly projectDir: string };
  /** The folder a path in the hint's `add` command is shown relative to (the agent root, where `add` is run). */
  readonly displayFrom?: string;
}

/**
 * Compares an installed published plugin with its lock entry.
 *
 * @returns `undefined` when the source is local or the exact locked version is installed;
 *   AL6009 when the package is not installed; AL6008 when another version is (the hint offers
 *   both fixes: install the locked version, or `add` the installed one to re-lock it).
 */
export function checkInstalledVersion(check: InstalledVersionCheck): Diagnostic | undefined {
  const { locked } = check;
  if (locked.type !== "npm") return undefined;
  if (check.installedVersion === undefined) {
    return createDiagnostic(Diagnostics.LockedPackageNotInstalled, check.location, [check.capability, locked.name, locked.version, check.installCommand]);
  }
  if (check.installedVersion === locked.version) return undefined;
  const source = check.declared && declaredSource(check.declared, check.displayFrom ?? check.declared.projectDir);
  const args = [check.capability, locked.name, locked.version, check.installedVersion, check.installCommand, source?.kind === "path" ? source.addSpec : addSpecOf(locked.name, check.installedVersion), check.declared?.spec ?? ""];
  // Installed from a path or git: `npm install` keeps what package.json names, and `add
  // npm:<name>@<version>` would ask the registry for a package of that name, which may be
  // another one (new-user trial E4). The hint names what package.json installs from instead.
  // A tarball `npm pack` named for the locked version (`<name>-<version>.tgz`): package.json
  // already agrees with the lock, and node_modules is only behind it, as after a `git pull`
  // without an install (new-user trial of 6 December: the hint said to edit package.json).
  const packedLocked = source?.kind === "path" && check.declared!.spec.trim().endsWith(`-${locked.version}.tgz`);
  const hint =
    source === undefined
      ? undefined
      : packedLocked
        ? fillTemplate("package.json already installs {1} from {6}, the locked version {2}: node_modules is behind it (as after a pull without an install). Run `{4}`.", args)
        : source.kind === "path"
        ? fillTemplate("package.json installs {1} from {6}. To compile the locked {1}@{2}, point package.json at it and run `{4}`; to lock what package.json installs, run `{cli} add {5}`.", args)
        : fillTemplate("package.json installs {1} from {6}, which `add` does not lock. To compile the locked {1}@{2}, point package.json at it and run `{4}`; to lock the installed {1}@{3}, pack it with `npm pack` and add the tarball.", args);
  return createDiagnostic(Diagnostics.LockedVersionMismatch, check.location, args, hint === undefined ? {} : { hint });
}

/**
 * What a `package.json` dependency spec installs from, when it is not the registry: a path
 * (`file:`, `link:`, `./x`, `../x`, `/x`, a `.tgz`), with the `add` argument that names it from
 * `displayFrom`; or git or a URL (`git+…`, `github:…`, `https://…`, `user/repo`). `undefined`
 * for a registry version, range, tag or `npm:` alias, which the catalog hint covers.
 */
function declaredSource(declared: { readonly spec: string; readonly projectDir: string }, displayFrom: string): { kind: "path"; addSpec: string } | { kind: "remote" } | undefined {
  const spec = declared.spec.trim();
  const local = /^(?:file|link):/.exec(spec) ? spec.slice(spec.indexOf(":") + 1) : /^(?:\.{1,2}(?:[\\/]|$)|[\\/]|[A-Za-z]:[\\/])/.test(spec) || /\.(?:tgz|tar\.gz|tar)$/i.test(spec) ? spec : undefined;
  if (local !== undefined) {
    const relative = path.relative(displayFrom, path.resolve(declared.projectDir, local));
    const shown = relative === "" ? "." : path.isAbsolute(relative) || relative.startsWith("..") ? relative : `./${relative}`;
    return { kind: "path", addSpec: shown.split(path.sep).join("/") };
  }
  if (/^(?:[a-z+]+:|[^@\s/][^\s/]*\/[^\s]+$)/i.test(spec) && !spec.startsWith("npm:")) return { kind: "remote" };
  return undefined;
}

/**
 * The `assembly-line add` argument that names exactly `name@version`: a scoped name as it is,
 * an unscoped one behind `npm:` (a bare name is a short name of an official plugin, which
 * `add` would read as `@assemblyline-agents/<name>`).
 */
export function addSpecOf(name: string, version: string): string {
  return name.startsWith("@") ? `${name}@${version}` : `npm:${name}@${version}`;
}
