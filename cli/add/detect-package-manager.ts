/**
 * Which package manager a project uses, from the lockfile next to its `package.json`
 * (issue 3 item 7: "detect npm/pnpm/yarn from the lockfile next to `package.json`; npm by default").
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The package managers `add` can drive. */
export type PackageManager = "npm" | "pnpm" | "yarn";

/** Lockfile names and the manager each means, in the order they are looked for. */
export const PACKAGE_MANAGER_LOCKFILES: readonly { readonly file: string; readonly manager: PackageManager }[] = [
  { file: "package-lock.json", manager: "npm" },
  { file: "npm-shrinkwrap.json", manager: "npm" },
  { file: "pnpm-lock.yaml", manager: "pnpm" },
  { file: "yarn.lock", manager: "yarn" },
];

/** Result of {@link detectPackageManager}. */
export interface DetectedPackageManager {
  readonly manager: PackageManager;
  /** The lockfile that decided it; absent when none was found (npm by default). */
  readonly lockfile?: string;
  /**
   * True when lockfiles of different managers were found; then the `packageManager` field of
   * package.json decides when it names one of them, else the first in
   * {@link PACKAGE_MANAGER_LOCKFILES} order. The CLI should warn.
   */
  readonly ambiguous: boolean;
}

/**
 * Detects the project's package manager from the lockfiles in `projectDir` (not its parents):
 * `package-lock.json`/`npm-shrinkwrap.json` → npm, `pnpm-lock.yaml` → pnpm, `yarn.lock` → yarn;
 * none → npm. Never throws.
 */
export function detectPackageManager(projectDir: string): DetectedPackageManager {
  const found = PACKAGE_MANAGER_LOCKFILES.filter(({ file }) => isFile(path.join(projectDir, file)));
  if (found.length === 0) return { manager: "npm", ambiguous: false };
  const managers = new Set(found.map((entry) => entry.manager));
  if (managers.size === 1) return { manager: found[0]!.manager, lockfile: found[0]!.file, ambiguous: false };
  const declared = declaredManager(projectDir);
  const chosen = found.find((entry) => entry.manager === declared) ?? found[0]!;
  return { manager: chosen.manager, lockfile: chosen.file, ambiguous: true };
}

/** The command that installs all of a project's dependencies with `manager`. */
export function installAllCommand(manager: PackageManager): string {
  return `${manager} install`;
}

/** The command that removes the dependency `name` with `manager` (what undoes `add`'s install). */
export function uninstallCommand(manager: PackageManager, name: string): string {
  return manager === "npm" ? `npm uninstall ${name}` : `${manager} remove ${name}`;
}

function declaredManager(projectDir: string): string | undefined {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(path.join(projectDir, "package.json"), "utf8"));
    const field = (value as { packageManager?: unknown } | null)?.packageManager;
    return typeof field === "string" ? field.split("@")[0] : undefined;
  } catch {
    return undefined;
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
