/**
 * Where an import written as a path may lead when a tool is bundled (security trial 128): esbuild
 * reads whatever file an import names, on the machine that compiles, and puts it in the bundle —
 * `import env from "/proc/self/environ" with { type: "text" }` shipped a CI secret to the tool,
 * `"../../../etc/shadow"` a host file, and `"/dev/zero"` never ended. The seed lets a tool
 * "declare a required neighboring asset with an import"; so:
 *  - an import written as an absolute path or a `file:` URL is refused, wherever it is written;
 *  - a relative import (`./x`, `../x`) written in a module of an **installed package** (one whose
 *    real path is under `node_modules/`: a plugin package from a registry or a tarball, or any
 *    package a tool imports) must stay, as written, inside that package
 *    (`<…>/node_modules/<name>` or `<…>/node_modules/@scope/<name>`): a third party's package
 *    ships its neighbours, nothing of the machine that installs it;
 *  - a relative import written in the agent's **own code** (a local plugin, a workspace package
 *    npm linked: a real path outside every `node_modules/`) must stay inside the project: the
 *    Git work tree holding the agent root (the nearest folder above it with `.git`), else the
 *    agent root — a repository's `shared/format.ts` is the agent's own (docs/monorepo.md);
 *  - an import of a package by name resolves through Node's rules, and the file it resolves to
 *    must be inside the project or under a `node_modules/` folder Node searches from it (of a
 *    folder above the project), by real path: npm makes a link
 *    for a `file:` dependency (`"dependencies": { "host": "file:/" }` in a hostile package), and
 *    `host/etc/shadow` would lead anywhere; a package's `#imports` are not limited here (esbuild
 *    refuses a target that is not `./…` inside the package).
 *  - a package import whose path has a `.` or `..` segment, or whose name starts with `.`;
 *  - after the build, any file it read (by real path, from the metafile) outside the project
 *    and the `node_modules/` folders above it ({@link inputsOutsideProject}): a link in the agent's own
 *    folders passes the checks on paths as written, and is caught there.
 * A symbolic link inside a plugin that leads out of it is refused before packaging (AL6102,
 * `compiler/plugin/`). Reported as AL7011 (`./esbuild-messages.ts`, `./bundle-tools.ts`).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** `detail` of the esbuild error an import refused here carries, for `./esbuild-messages.ts`. */
export interface ConfinementRefusal {
  readonly kind: "import-leaves-package";
  /** The import as written. */
  readonly specifier: string;
  /** What it must stay inside, as a message says it (`the installed package "node_modules/evil"`, `the agent root`). */
  readonly inside: string;
}

/** An import written as an absolute path (POSIX, a Windows drive or UNC path) or a `file:` URL. */
export const ABSOLUTE_IMPORT = /^(?:\/|[A-Za-z]:[\\/]|\\\\|file:)/i;

/** The checks of one packaging of an agent ({@link createImportConfinement}). */
export interface ImportConfinement {
  /**
   * The refusal of the relative import `specifier` written in `importer` (an absolute path, as
   * esbuild gives it) when, resolved against `resolveDir`, it leads out of the importer's
   * installed package or project; `undefined` when it stays inside.
   */
  checkRelative(specifier: string, importer: string, resolveDir: string): ConfinementRefusal | undefined;
  /** The refusal of an import written as an absolute path or URL (always refused). */
  refuseAbsolute(specifier: string, importer: string): ConfinementRefusal;
  /**
   * The refusal of the import of a package by name (`specifier`, written in `importer`) that
   * esbuild resolved to `resolved` (a real path) when that file is neither inside the project
   * nor under a `node_modules/` folder above it (`searchedNodeModules`): a link npm made for a `file:` dependency
   * (`"dependencies": { "host": "file:/" }` in a hostile package's package.json) leads anywhere,
   * and `host/etc/shadow` would be bundled. `undefined` when it is allowed.
   */
  checkPackage(specifier: string, importer: string, resolved: string): ConfinementRefusal | undefined;
}

/**
 * Makes the checks for the agent at `root` (absolute): its project folder is found once (the
 * real paths are taken, as esbuild names modules by real path).
 */
export function createImportConfinement(root: string): ImportConfinement {
  const { agent, project } = projectOf(root);
  const searched = searchedNodeModules(project);
  const packageFolders = new Map<string, string | undefined>();
  const shown = (folder: string): string => {
    const relative = path.relative(agent, folder).split(path.sep).join("/");
    return relative === "" ? "." : relative;
  };
  /** The folder imports written in `importer` must stay inside, and how to name it. */
  const ownerOf = (importer: string): { folder: string; words: string } => {
    const installed = installedPackageOf(importer);
    if (installed !== undefined) return { folder: installed, words: `the installed package "${shown(installed)}"` };
    if (isInside(project, importer)) return { folder: project, words: project === agent ? "the agent root" : `the project "${shown(project)}" (its Git work tree)` };
    // The toolchain's own modules, or a linked package outside the project: their package.
    const folder = nearestPackageFolder(path.dirname(importer), packageFolders) ?? path.dirname(importer);
    return { folder, words: `the package "${shown(folder)}"` };
  };
  return {
    checkRelative(specifier, importer, resolveDir) {
      const owner = ownerOf(importer);
      // esbuild reads `\` in an import path as a separator, as Windows would.
      const target = path.resolve(resolveDir, specifier.replace(/\\/g, "/"));
      return isInside(owner.folder, target) ? undefined : { kind: "import-leaves-package", specifier, inside: owner.words };
    },
    refuseAbsolute(specifier, importer) {
      // Refused wherever it leads, even inside: the words say so (security re-check 132).
      return { kind: "import-leaves-package", specifier, inside: `${ownerOf(importer).words} (an absolute path or file: URL is never bundled, wherever it leads)` };
    },
    checkPackage(specifier, importer, resolved) {
      // `evilpkg/../../.env`: a package's subpath that climbs out of it (security re-check 132).
      if (specifier.split(/[/\\]/).some((segment) => segment === "." || segment === "..")) {
        return { kind: "import-leaves-package", specifier, inside: "the package it names (a package import's path has no '.' or '..' segment)" };
      }
      if (isInside(project, resolved) || searched.some((folder) => isInside(folder, resolved))) return undefined;
      return { kind: "import-leaves-package", specifier, inside: `${ownerOf(importer).words} and the node_modules/ folders Node searches from it (it resolves to ${resolved})` };
    },
  };
}

/**
 * The files of a build (`metafile.inputs` keys: paths relative to the agent root `root`, the real
 * paths esbuild read) that are neither inside the project nor under a `node_modules/` folder
 * Node's resolution searches from it (`searchedNodeModules`: a folder's above the project) nor
 * inside one of `allowed` (the authoring API's package): a symbolic link in the agent's own
 * folders to `/proc/self/environ` or `/etc/shadow` passes the checks on the paths as written
 * (security re-check 132), and is caught here, after the build and before any bundle is kept.
 * Each refused file comes with a module that imports it and the import as written, when the
 * metafile says so. Files outside esbuild's `file` namespace (`ns:path` keys) are not files.
 */
export function inputsOutsideProject(root: string, inputs: Readonly<Record<string, { readonly imports: readonly { readonly path: string; readonly original?: string }[] }>>, allowed: readonly string[]): { file: string; importer?: string; original?: string }[] {
  const { project } = projectOf(root);
  const within = [project, ...searchedNodeModules(project), ...allowed];
  const outside: { file: string; importer?: string; original?: string }[] = [];
  const refused = new Set<string>();
  for (const key of Object.keys(inputs)) {
    if (/^[a-z-]+:/.test(key)) continue;
    const file = path.resolve(root, key);
    if (within.some((folder) => isInside(folder, file))) continue;
    refused.add(key);
  }
  for (const key of refused) {
    const importer = Object.entries(inputs).find(([, input]) => input.imports.some((imported) => imported.path === key));
    const original = importer?.[1].imports.find((imported) => imported.path === key)?.original;
    outside.push({ file: path.resolve(root, key), ...(importer ? { importer: path.resolve(root, importer[0]) } : {}), ...(original !== undefined ? { original } : {}) });
  }
  return outside;
}

/**
 * An esbuild `filter` (Go's RE2, which has no look-ahead) matching an import of a package by
 * name — anything not starting with `.`, `/`, `#` or `\\` — other than exactly `except` (the
 * authoring API, which every definition imports and `alias` resolves: no callback for it). For
 * `except` = `c0 c1 … cn`, "not exactly" is spelt out character by character: the name ends
 * early, differs at some character, or goes on after it.
 */
export function packageImportFilter(except: string): RegExp {
  const escape = (character: string): string => (/[A-Za-z0-9]/.test(character) ? character : `\\${character}`);
  let rest = ".+";
  for (let index = except.length - 1; index >= 1; index--) {
    const character = escape(except[index]!);
    rest = `(?:$|[^${character}].*|${character}${rest})`;
  }
  const first = except[0]!;
  // A name that does not start like `except`, or one that does and is not it.
  return new RegExp(`^(?:[^./#\\\\${escape(first)}].*|${escape(first)}${rest})$`);
}

/**
 * The agent root's real path, and its project: the Git work tree holding it (the nearest folder
 * above it with `.git`), else the agent root itself — the one rule of what "the project" is for
 * both the checks before the build and the one after it, and for the listings of the reads'
 * check (`./read-targets.ts`).
 */
export function projectOf(root: string): { agent: string; project: string } {
  const agent = realOrSelf(root);
  return { agent, project: gitWorkTreeOf(agent) ?? agent };
}

/**
 * The `node_modules/` folders outside `project` (a real path) that Node's resolution searches from
 * a module of it: `<folder>/node_modules` of every folder above the project, up to the file system's
 * root — where npm and pnpm workspaces hoist packages (pnpm's `.pnpm` store lives inside one) —
 * each as written and, when it is a link, as the real path it leads to (esbuild names files by
 * real path). The project's own `node_modules/` folders, at any depth, are inside it. Not
 * `NODE_PATH`, `~/.node_modules` or a global prefix's `lib/node_modules`: esbuild does not search
 * them (security re-check 132: "any node_modules/ folder" let a link to `/usr/lib/node_modules/…`
 * or `/root/node_modules/…` be bundled).
 */
function searchedNodeModules(project: string): string[] {
  const folders: string[] = [];
  for (let current = path.dirname(project); ; current = path.dirname(current)) {
    const folder = path.join(current, "node_modules");
    folders.push(folder);
    const real = realOrSelf(folder);
    if (real !== folder) folders.push(real);
    if (path.dirname(current) === current) return folders;
  }
}

/** The nearest folder at or above `folder` holding `.git` (a Git work tree's top: a folder, or a file for a linked work tree). */
function gitWorkTreeOf(folder: string): string | undefined {
  for (let current = folder; ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, ".git"))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/** True when `file` is `folder` or lies below it (both absolute and normalized). */
function isInside(folder: string, file: string): boolean {
  return file === folder || file.startsWith(folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`);
}

/** The installed package folder holding `file` (`…/node_modules/<name>` or `…/node_modules/@scope/<name>`, the last such), if any. */
function installedPackageOf(file: string): string | undefined {
  const segments = file.split(path.sep);
  const at = segments.lastIndexOf("node_modules");
  if (at < 0 || at + 1 >= segments.length - 1) return undefined;
  const length = segments[at + 1]!.startsWith("@") ? at + 3 : at + 2;
  return length < segments.length ? segments.slice(0, length).join(path.sep) : undefined;
}

/** The nearest folder at or above `folder` holding a `package.json` (memoized per folder). */
function nearestPackageFolder(folder: string, memo: Map<string, string | undefined>): string | undefined {
  if (memo.has(folder)) return memo.get(folder);
  const parent = path.dirname(folder);
  const found = fs.existsSync(path.join(folder, "package.json")) ? folder : parent === folder ? undefined : nearestPackageFolder(parent, memo);
  memo.set(folder, found);
  return found;
}

function realOrSelf(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return folder;
  }
}
