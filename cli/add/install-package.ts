/**
 * Installing a published plugin with the project's own package manager, pinned to an exact
 * version (issue 3 item 7: "installing it is the job of the project's package manager").
 */
import { spawnSync } from "node:child_process";
import picomatch from "picomatch";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, folderStart } from "../../common/positions.js";
import { shellQuote } from "../../common/shell-quote.js";
import type { PackageManager } from "./detect-package-manager.js";
import { looksLikeTarball, readTarballManifest } from "./read-tarball-manifest.js";
import type { PluginSpec } from "./resolve-plugin-spec.js";
import { readPluginName } from "./capability-key.js";
import { findInstalledPackage } from "../../compiler/agent/resolve-capabilities.js";
import { createNodeHost } from "../../common/host.js";

/** What a process run returned (the shape of `spawnSync`'s result that matters here). */
export interface RunResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the program could not be started (e.g. ENOENT: the package manager is not installed). */
  readonly error?: Error;
}

/** Runs `command args` in `cwd`; injectable so tests can observe the command line. */
export type CommandRunner = (command: string, args: readonly string[], cwd: string) => RunResult;

/** Options of {@link installPackage}. */
export interface InstallOptions {
  /** Pass the manager's `--offline` flag (use only the local cache / local files). */
  readonly offline?: boolean;
  /** Pass `--ignore-scripts` (npm, pnpm, yarn classic). */
  readonly ignoreScripts?: boolean;
  /** Default: {@link runCommand} (output captured, not shown). */
  readonly run?: CommandRunner;
  /**
   * The capability key the plugin is added under (`add --as KEY`): the `plugins/<key>/` that
   * AL6211's hint names for a plugin folder; without it, the folder's plugin.json name.
   */
  readonly key?: string;
}

/** Result of {@link installPackage}. */
export type InstallResult =
  | {
      readonly ok: true;
      /** The installed package's name and exact version, from `node_modules/<name>/package.json`. */
      readonly name: string;
      readonly version: string;
      /** Absolute path of `node_modules/<name>` where Node finds it from the project (in a workspace, the root's; may be a symlink, e.g. with pnpm). */
      readonly directory: string;
      /** The command that ran, for display (`npm install --save-exact …`); the one that would have run when {@link alreadyInstalled}. */
      readonly command: string;
      /** True when nothing ran: npm had installed this very tarball already ({@link installedTarball}). */
      readonly alreadyInstalled: boolean;
      /** True when `add` created a minimal package.json first. */
      readonly createdPackageJson: boolean;
      readonly output: string;
    }
  | { readonly ok: false; readonly diagnostic: Diagnostic; readonly command?: string; readonly output: string };

/**
 * The package manager's command line that adds `installSpec` as an exact dependency:
 * `npm install --save-exact`, `pnpm add --save-exact`, `yarn add --exact`.
 */
export function installArguments(manager: PackageManager, installSpec: string, options: Pick<InstallOptions, "offline" | "ignoreScripts"> = {}): string[] {
  const flags = [...(options.offline ? ["--offline"] : []), ...(options.ignoreScripts ? ["--ignore-scripts"] : [])];
  switch (manager) {
    case "npm":
      return ["install", "--save-exact", "--no-audit", "--no-fund", ...flags, installSpec];
    case "pnpm":
      return ["add", "--save-exact", ...flags, installSpec];
    case "yarn":
      return ["add", "--exact", ...flags, installSpec];
  }
}

/**
 * Installs `spec` into `projectDir` with `manager`, then reads what was installed.
 *
 * Creates a private package.json named after the folder ({@link newPackageJson}) when the project has none (so the dependency
 * has somewhere to be recorded). Learns the package name before installing (registry: from the
 * spec; directory: its package.json; tarball: the package.json inside it), so that afterwards
 * it can read the installed package.json for the exact version, found from the project upwards as
 * Node and `compile` find it (`findInstalledPackage`: a workspace hoists it to its root). Never throws: failures
 * are AL6202 (the manager failed), AL6203 (nothing in node_modules, e.g. Yarn PnP), AL6212 (no
 * package.json and none could be created), AL6209
 * (package.json unreadable) or AL6211 (the spec holds no package.json name; then nothing is
 * written, not even the package.json this step would create).
 */
export function installPackage(manager: PackageManager, projectDir: string, spec: PluginSpec, options: InstallOptions = {}): InstallResult {
  const packageJson = path.join(projectDir, "package.json");
  // The name first: a spec that cannot be installed leaves the project as it was (no package.json made).
  const name = packageNameOf(spec);
  if (name === undefined) return { ok: false, diagnostic: notAPackage(spec, options.key), output: "" };
  const args0 = installArguments(manager, spec.installSpec, options);
  const same = installedTarball(manager, projectDir, spec, name);
  if (same) return { ok: true, name, ...same, command: [manager, ...args0].map(shellQuote).join(" "), alreadyInstalled: true, createdPackageJson: false, output: "" };
  const prepared = ensurePackageJson(packageJson);
  if (!prepared.ok) return { ok: false, diagnostic: prepared.diagnostic, output: "" };
  const args = args0;
  const command = [manager, ...args].map(shellQuote).join(" ");
  // A workspace member npm's root lockfile does not list yet (a folder `add` just gave a
  // package.json): npm installs nothing into it ("no workspace folder present") until an install
  // at the root registers it (new-user trial 120), so that install runs first.
  const workspaceRoot = manager === "npm" ? unregisteredWorkspaceRoot(projectDir) : undefined;
  if (workspaceRoot !== undefined) {
    const registerArgs = ["install", "--no-audit", "--no-fund", ...(options.offline ? ["--offline"] : []), ...(options.ignoreScripts ? ["--ignore-scripts"] : [])];
    const registered = (options.run ?? runCommand)(manager, registerArgs, workspaceRoot);
    if (registered.error || registered.status !== 0) {
      const registerCommand = `cd ${shellQuote(workspaceRoot)} && ${[manager, ...registerArgs].map(shellQuote).join(" ")}`;
      const why = registered.error ? `it could not be started: ${(registered.error as NodeJS.ErrnoException).code ?? registered.error.message}` : `exit code ${String(registered.status)}`;
      return { ok: false, command: registerCommand, output: `${registered.stdout}${registered.stderr}`, diagnostic: createDiagnostic(Diagnostics.AddInstallFailed, fileStart(packageJson), [registerCommand, why]) };
    }
  }
  const result = (options.run ?? runCommand)(manager, args, projectDir);
  const output = `${result.stdout}${result.stderr}`;
  if (result.error || result.status !== 0) {
    const why = result.error ? `it could not be started: ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}` : `exit code ${String(result.status)}`;
    return { ok: false, command, output, diagnostic: createDiagnostic(Diagnostics.AddInstallFailed, fileStart(packageJson), [command, why]) };
  }
  // Where `compile` will find it: from the project upwards, as Node resolves (new-user trial 119:
  // in an npm, pnpm or Yarn workspace the manager hoists it to the workspace root's node_modules).
  const installed = findInstalledPackage(createNodeHost(), projectDir, name);
  if (installed?.version === undefined) {
    return { ok: false, command, output, diagnostic: createDiagnostic(Diagnostics.AddInstalledPackageMissing, fileStart(packageJson), [command, name]) };
  }
  return { ok: true, name, version: installed.version, directory: installed.dir, command, alreadyInstalled: false, createdPackageJson: prepared.created, output };
}

/**
 * The root of the npm workspace `projectDir` is a member of, when that root's package-lock.json
 * does not list the member yet; `undefined` otherwise (no workspace above, no root lockfile — a
 * first install at the root registers every member anyway — or the member is listed). The root
 * is the nearest folder above with a package.json whose `workspaces` (an array, or
 * `{ packages }`) names globs, one of which matches `projectDir` (picomatch); the member is
 * listed when the lock's `packages` has its path.
 */
export function unregisteredWorkspaceRoot(projectDir: string): string | undefined {
  const root = npmWorkspaceRootOf(projectDir);
  if (root === undefined) return undefined;
  const packages = readJson(path.join(root, "package-lock.json"))?.["packages"];
  if (packages === null || typeof packages !== "object") return undefined;
  return Object.hasOwn(packages, path.relative(root, projectDir).split(path.sep).join("/")) ? undefined : root;
}

/**
 * The npm workspace root `projectDir` is a member of: the nearest folder above with a
 * package.json whose `workspaces` (an array, or `{ packages }`) names globs, when one of them
 * matches `projectDir` (picomatch); `undefined` when there is none or it does not match (a project
 * of its own below the root, which npm installs alone). npm installs a member's dependencies
 * only from the workspace root (its lockfile lists them), so that is where a hint's install runs.
 */
export function npmWorkspaceRootOf(projectDir: string): string | undefined {
  for (let dir = path.dirname(projectDir); ; dir = path.dirname(dir)) {
    const manifest = readJson(path.join(dir, "package.json"));
    const workspaces = manifest?.["workspaces"];
    const globs = Array.isArray(workspaces) ? workspaces : workspaces !== null && typeof workspaces === "object" ? (workspaces as Record<string, unknown>)["packages"] : undefined;
    if (Array.isArray(globs) && globs.length > 0) {
      const member = path.relative(dir, projectDir).split(path.sep).join("/");
      return picomatch(globs.filter((glob): glob is string => typeof glob === "string"))(member) ? dir : undefined;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The installed package when npm installed exactly the tarball `spec` already (a second `add` of
 * the same file: it said "already added" only after reinstalling it): package.json names `name`
 * by a `file:` path to the same file, package-lock.json records for `node_modules/<name>` the
 * tarball's SHA-512 integrity (as npm computes it) and the version node_modules holds.
 * `undefined` otherwise: another package manager (their lockfiles are not read), a registry spec
 * or a folder (whose contents npm does not hash), a repacked tarball, an install that is behind.
 */
export function installedTarball(manager: PackageManager, projectDir: string, spec: PluginSpec, name: string): { version: string; directory: string } | undefined {
  if (manager !== "npm" || spec.kind !== "tarball") return undefined;
  const manifest = readJson(path.join(projectDir, "package.json"));
  const declared = ["dependencies", "devDependencies", "optionalDependencies"]
    .map((field) => manifest?.[field])
    .map((deps) => (deps !== null && typeof deps === "object" && !Array.isArray(deps) ? (deps as Record<string, unknown>)[name] : undefined))
    .find((value) => value !== undefined);
  if (typeof declared !== "string" || !declared.startsWith("file:")) return undefined;
  if (realPath(path.resolve(projectDir, declared.slice("file:".length))) !== realPath(spec.path)) return undefined;
  const packages = readJson(path.join(projectDir, "package-lock.json"))?.["packages"];
  const locked = packages !== null && typeof packages === "object" ? (packages as Record<string, unknown>)[`node_modules/${name}`] : undefined;
  if (locked === null || typeof locked !== "object") return undefined;
  const { integrity, version } = locked as Record<string, unknown>;
  const directory = path.join(projectDir, "node_modules", ...name.split("/"));
  if (typeof version !== "string" || readVersion(path.join(directory, "package.json")) !== version) return undefined;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(spec.path);
  } catch {
    return undefined;
  }
  return integrity === `sha512-${createHash("sha512").update(bytes).digest("base64")}` ? { version, directory } : undefined;
}

function realPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/**
 * Default {@link CommandRunner}: `spawnSync` without a shell (with one on Windows, for `.cmd`
 * shims), stdin ignored, output captured.
 */
export function runCommand(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): RunResult {
  const windows = process.platform === "win32";
  const result = spawnSync(command, windows ? args.map((a) => `"${a}"`) : [...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    shell: windows,
    env,
  });
  return { status: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "", ...(result.error ? { error: result.error } : {}) };
}

/**
 * The package.json `add` creates in a folder that has none: private, named after the folder (an
 * npm workspace member needs a name: without one, npm installs nothing into a folder its root's
 * `workspaces` matches, new-user trial 119).
 */
export function newPackageJson(folder: string): string {
  const name = path.basename(path.resolve(folder)).toLowerCase().replace(/[^a-z0-9._~-]+/g, "-").replace(/^[._-]+/, "").slice(0, 214) || "agent";
  return `${JSON.stringify({ name, private: true }, null, 2)}\n`;
}

function ensurePackageJson(file: string): { ok: true; created: boolean } | { ok: false; diagnostic: Diagnostic } {
  if (!fs.existsSync(file)) {
    try {
      fs.writeFileSync(file, newPackageJson(path.dirname(file)), { flag: "wx" });
      return { ok: true, created: true };
    } catch (error) {
      // Not a read: the file is not there and could not be made (helper-73: AL6209 said "could not be read").
      return { ok: false, diagnostic: createDiagnostic(Diagnostics.AddPackageJsonNotCreated, fileStart(file), [(error as Error).message]) };
    }
  }
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("it is not a JSON object");
    return { ok: true, created: false };
  } catch (error) {
    return { ok: false, diagnostic: createDiagnostic(Diagnostics.AddPackageJsonInvalid, fileStart(file), [(error as Error).message]) };
  }
}

/**
 * AL6211 for a folder or tarball with no package.json name: what is missing, and for a folder
 * that is an Agent Plugins package (it has plugin.json) how to use it as the local plugin it is:
 * copied to `plugins/<key>/`, `key` being `--as` when given (helper-78 D8.2: the hint named the
 * plugin.json name's folder, which already existed), else the plugin.json name. A folder is
 * located as a folder ({@link folderStart}), a tarball as a file.
 */
function notAPackage(spec: PluginSpec, asKey: string | undefined): Diagnostic {
  // A registry spec always has its name (the spec is one); only a path can lack it.
  if (spec.kind === "registry") return createDiagnostic(Diagnostics.AddNotAPackage, fileStart(""), [spec.installSpec, "it names no package"]);
  const reason =
    spec.kind === "tarball"
      ? looksLikeTarball(spec.path)
        ? "the tarball holds no package.json with a name"
        : "the file is not a gzip tarball (a .tgz as `npm pack` writes it)"
      : fs.existsSync(path.join(spec.path, "package.json"))
        ? "its package.json has no name"
        : "the folder has no package.json";
  const plugin = spec.kind === "directory" && fs.existsSync(path.join(spec.path, "plugin.json")) ? readPluginName(spec.path, spec.installSpec) : undefined;
  const key = asKey ?? (plugin?.ok ? plugin.name : "<name>");
  const hint =
    plugin === undefined
      ? undefined
      : `The folder is an Agent Plugins package (it has plugin.json) but not an npm package. To use it in this agent, copy it to plugins/${key}/ and select it in agent.md (capabilities: ${key}: {}); to install it with \`add\`, give it a package.json with a name and a version.`;
  const at = spec.kind === "directory" ? folderStart(spec.path) : fileStart(spec.path);
  return createDiagnostic(Diagnostics.AddNotAPackage, at, [spec.installSpec, reason], hint === undefined ? {} : { hint });
}

function packageNameOf(spec: PluginSpec): string | undefined {
  if (spec.kind === "registry") return spec.name;
  const manifest = spec.kind === "tarball" ? readTarballManifest(spec.path) : readJson(path.join(spec.path, "package.json"));
  return typeof manifest?.name === "string" && manifest.name !== "" ? manifest.name : undefined;
}

function readVersion(file: string): string | undefined {
  const version = readJson(file)?.version;
  return typeof version === "string" ? version : undefined;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
