/**
 * The lock pins published plugins; `compile` refuses an installed version that differs from the
 * pinned one (issue 3 item 7).
 */
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
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
  return createDiagnostic(Diagnostics.LockedVersionMismatch, check.location, [
    check.capability,
    locked.name,
    locked.version,
    check.installedVersion,
    check.installCommand,
    addSpecOf(locked.name, check.installedVersion),
  ]);
}

/**
 * The `assembly-line add` argument that names exactly `name@version`: a scoped name as it is,
 * an unscoped one behind `npm:` (a bare name is a short name of an official plugin, which
 * `add` would read as `@assemblyline-agents/<name>`).
 */
export function addSpecOf(name: string, version: string): string {
  return name.startsWith("@") ? `${name}@${version}` : `npm:${name}@${version}`;
}
