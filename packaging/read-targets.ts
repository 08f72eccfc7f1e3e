/**
 * Every compile ends (helper-133): esbuild reads whatever a file name leads to, and a device
 * (`/dev/zero`, `/dev/random`) or a named pipe is read forever — a link committed in the agent's
 * own folders (`shared/zero.js -> /dev/zero`), imported as a module, grew esbuild to gigabytes and
 * the compile never ended (security re-checks 128 and 132). So, before esbuild reads anything, the
 * file it will read must be a regular file (links followed). "What esbuild will read" is its
 * resolver's rule (esbuild 0.28, `internal/resolver/resolver.go`, `loadAsFile`, `dirInfoUncached`):
 *  - for a relative import `./x`: the first of `x`, `x` + each resolve extension (esbuild's
 *    default order, JavaScript before TypeScript under `node_modules/`), and, for `x.js`/`x.jsx`/
 *    `x.mjs`/`x.cjs`, `x.ts`/`x.tsx`/`x.mts`/`x.cts`, that is not a folder; names compared without
 *    regard to letter case, as esbuild looks them up in its folder listing (`Zero.js` finds
 *    `zero.js`). Where several names differ only in case, any of them that is not a regular file
 *    refuses. A folder (`./lib`, its `package.json` main or `index.*`) is resolved by esbuild
 *    itself, and the file it names checked ({@link ReadTargets.file});
 *  - for an import of a package by name, a `#import`: the file esbuild resolved (a definition, an
 *    entry point, is the front end's: AL4008 refuses one that is not a regular file);
 *  - the `package.json` of the folder of every module esbuild reads and of each folder above it
 *    (esbuild reads each, by that exact name, to learn a package's `type`, `main`, `sideEffects`):
 *    one `stat` per folder and build.
 * Inside the project (the agent root's Git work tree, else the agent root) a module's name is
 * looked up in its folder's listing (one `readdir` per folder and build; a link is `stat`ed once).
 * Left: esbuild's Yarn PnP manifest (`.pnp.cjs`, `.pnp.data.json`, `.pnp.js` of the agent root or
 * a folder above it), which it reads once per build; a folder swapped for a link while the build
 * runs. Reported as AL7012 (`./esbuild-messages.ts`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isPathInside } from "../common/path-inside.js";

/** `detail` of the esbuild error of a refused read (AL7012, `./esbuild-messages.ts`). */
export interface NotRegularFile {
  readonly kind: "not-a-regular-file";
  /** The import as written (for a definition: its path). */
  readonly specifier: string;
  /** The file esbuild would read, as a message shows it (root-relative inside the agent, else absolute; with the link's target). */
  readonly file: string;
  /** What it is instead of a regular file (`a character device`, `a named pipe (FIFO)`, …). */
  readonly what: string;
}

/** A file that is not a regular file, where it was found and what it is. */
interface Problem {
  readonly file: string;
  readonly target?: string;
  readonly what: string;
}

/** esbuild's default `resolveExtensions` (packaging sets none: `./bundle-tools.ts`). */
const EXTENSIONS = [".tsx", ".ts", ".jsx", ".js", ".css", ".json"] as const;
/** The same under `node_modules/`: JavaScript before TypeScript (esbuild's `nodeModulesExtensionOrder`). */
const NODE_MODULES_EXTENSIONS = [".jsx", ".js", ".tsx", ".ts", ".css", ".json"] as const;
/** esbuild's `rewrittenFileExtensions`: TypeScript's `./x.js` naming `x.ts`. */
const REWRITTEN: ReadonlyArray<readonly [string, readonly string[]]> = [
  [".js", [".ts", ".tsx"]],
  [".jsx", [".ts", ".tsx"]],
  [".mjs", [".mts"]],
  [".cjs", [".cts"]],
];

/** A relative import's target found to be a regular file (memoized per build). */
const FINE = Symbol("fine");

/** What {@link ReadTargets.relative} answers for an import of a folder: esbuild's own resolve names the file. */
export const FOLDER_IMPORT = Symbol("folder import");

/** One name of a folder's listing: how it is written and its kind, links followed once asked. */
interface Entry {
  readonly name: string;
  readonly dirent: fs.Dirent;
  /** `stat` through the link (`null`: a broken or looping link, which esbuild skips). */
  followed?: fs.Stats | null;
}

/**
 * The reads of one esbuild build (see this module's header), each folder listed once; `clear`
 * before each build of a kept context (the watch bundler), as the folders may have changed.
 */
export class ReadTargets {
  readonly #root: string;
  readonly #project: string;
  readonly #listings = new Map<string, Map<string, Entry[]> | undefined>();
  readonly #folders = new Map<string, Problem | undefined>();
  readonly #targets = new Map<string, NotRegularFile | typeof FOLDER_IMPORT | typeof FINE>();

  /** `root`: the agent root as esbuild names it (its working directory); `project`: the folder whose listings are read (the project, `./import-confinement.ts`). */
  constructor(root: string, project: string) {
    this.#root = root;
    this.#project = project;
  }

  /** Forgets every listing (a new build). */
  clear(): void {
    this.#listings.clear();
    this.#folders.clear();
    this.#targets.clear();
  }

  /**
   * The refusal of the relative import `specifier` that names `target` (absolute, resolved against
   * the importer's folder) when the file esbuild would read for it, or a `package.json` above it,
   * is not a regular file; {@link FOLDER_IMPORT} when it names a folder (esbuild resolves it;
   * check the file with {@link file}); `undefined` when it is fine or names nothing (esbuild says so).
   */
  relative(specifier: string, target: string): NotRegularFile | typeof FOLDER_IMPORT | undefined {
    // Ten definitions of a plugin importing its `./lib/x.js` name one target: looked up once per build.
    const known = this.#targets.get(target);
    if (known !== undefined) return known === FINE ? undefined : known === FOLDER_IMPORT ? FOLDER_IMPORT : { ...known, specifier };
    const answer = this.#relative(specifier, target);
    this.#targets.set(target, answer ?? FINE);
    return answer;
  }

  #relative(specifier: string, target: string): NotRegularFile | typeof FOLDER_IMPORT | undefined {
    const folder = path.dirname(target);
    const base = path.basename(target);
    const listing = this.#listing(folder);
    if (listing === undefined) return undefined;
    const extensions = target.split(path.sep).includes("node_modules") ? NODE_MODULES_EXTENSIONS : EXTENSIONS;
    let folderFound = false;
    let fileFound = false;
    const candidates = [base, ...extensions.map((extension) => base + extension), ...rewrittenNames(base)];
    for (const candidate of candidates) {
      const found = this.#fileIn(folder, listing, candidate);
      if (found.problem !== undefined) return this.#refusal(specifier, found.problem);
      if (found.folder && candidate === base) folderFound = true;
      if (!found.file) continue;
      fileFound = true;
      const chain = this.#folderChain(this.#realFolderOf(folder, listing, candidate));
      if (chain !== undefined) return this.#refusal(specifier, chain);
      // A name that is a regular file under one letter case and a folder under another: esbuild
      // may take either, so the names after it are checked too.
      if (!found.folder) return undefined;
    }
    return folderFound && !fileFound ? FOLDER_IMPORT : undefined;
  }

  /**
   * The refusal of reading `file` (a path esbuild resolved: a package's file, a `#import`, a
   * folder's main or index) for the import `specifier` when it, or a `package.json`
   * of its folder or one above, is not a regular file; `undefined` otherwise (also when it is missing).
   */
  file(specifier: string, file: string): NotRegularFile | undefined {
    const folder = path.dirname(file);
    // Inside the project, from the folder's listing (no `stat` but for a link); elsewhere, or
    // when the listing lacks it, `stat`.
    const listing = isPathInside(this.#project, folder) ? this.#listing(folder) : undefined;
    const entry = listing?.get(path.basename(file).toLowerCase())?.find((candidate) => candidate.name === path.basename(file));
    if (entry !== undefined) {
      const kind = this.#kindOf(folder, entry);
      if (typeof kind === "object") return this.#refusal(specifier, kind);
    } else {
      const stats = statOrNull(file);
      if (stats !== null && !stats.isFile() && !stats.isDirectory()) return this.#refusal(specifier, { file, what: kindWords(stats) });
    }
    const chain = this.#folderChain(folder);
    return chain === undefined ? undefined : this.#refusal(specifier, chain);
  }

  /**
   * The refusal of a definition (an entry point, `file`) when a `package.json` of its folder or of
   * one above it is not a regular file; `undefined` otherwise. The definition itself is the front
   * end's to check (AL4008: it is a regular file; AL6102: no link out of its plugin), so a
   * definition costs no `stat` here: one per folder and build.
   */
  definition(specifier: string, file: string): NotRegularFile | undefined {
    const chain = this.#folderChain(path.dirname(file));
    return chain === undefined ? undefined : this.#refusal(specifier, chain);
  }

  /**
   * What the entries under `name` (in any letter case) in `folder` are, links followed: a regular
   * file among them, a folder among them, or the problem of one that is neither (a broken link
   * counts as nothing, as esbuild skips it).
   */
  #fileIn(folder: string, listing: Map<string, Entry[]>, name: string): { file: boolean; folder: boolean; problem?: Problem } {
    const found = { file: false, folder: false };
    for (const entry of listing.get(name.toLowerCase()) ?? []) {
      const kind = this.#kindOf(folder, entry);
      if (kind === "folder") found.folder = true;
      else if (kind === "file") found.file = true;
      else if (kind !== undefined) return { ...found, problem: kind };
    }
    return found;
  }

  /** `"file"`, `"folder"`, `undefined` (a broken link) or the problem of one entry, links followed. */
  #kindOf(folder: string, entry: Entry): "file" | "folder" | Problem | undefined {
    const full = path.join(folder, entry.name);
    let stats: fs.Dirent | fs.Stats = entry.dirent;
    if (entry.dirent.isSymbolicLink()) {
      if (entry.followed === undefined) entry.followed = statOrNull(full);
      if (entry.followed === null) return undefined;
      stats = entry.followed;
    }
    if (stats.isFile()) return "file";
    if (stats.isDirectory()) return "folder";
    return { file: full, ...(entry.dirent.isSymbolicLink() ? { target: realOrSelf(full) } : {}), what: kindWords(stats) };
  }

  /** The folder esbuild names a module found as `name` in `folder` by: the link's target's when it is a link. */
  #realFolderOf(folder: string, listing: Map<string, Entry[]>, name: string): string {
    const linked = listing.get(name.toLowerCase())?.some((entry) => entry.dirent.isSymbolicLink());
    return linked ? path.dirname(realOrSelf(path.join(folder, name))) : folder;
  }

  /** The first `package.json` that is not a regular file in `folder` or a folder above it (memoized per folder). */
  #folderChain(folder: string): Problem | undefined {
    if (this.#folders.has(folder)) return this.#folders.get(folder);
    // esbuild reads `<folder>/package.json` by that exact name (`parsePackageJSON`), links followed.
    let problem: Problem | undefined;
    const file = path.join(folder, "package.json");
    const stats = statOrNull(file);
    if (stats !== null && !stats.isFile() && !stats.isDirectory()) problem = { file, ...(isLink(file) ? { target: realOrSelf(file) } : {}), what: kindWords(stats) };
    const parent = path.dirname(folder);
    problem ??= parent === folder ? undefined : this.#folderChain(parent);
    this.#folders.set(folder, problem);
    return problem;
  }

  /** The listing of `folder` by lower-cased name (`undefined` when it cannot be listed: esbuild finds nothing there either). */
  #listing(folder: string): Map<string, Entry[]> | undefined {
    if (this.#listings.has(folder)) return this.#listings.get(folder);
    let listing: Map<string, Entry[]> | undefined;
    try {
      listing = new Map();
      for (const dirent of fs.readdirSync(folder, { withFileTypes: true })) {
        const key = dirent.name.toLowerCase();
        const entries = listing.get(key);
        if (entries === undefined) listing.set(key, [{ name: dirent.name, dirent }]);
        else entries.push({ name: dirent.name, dirent });
      }
    } catch {
      listing = undefined;
    }
    this.#listings.set(folder, listing);
    return listing;
  }

  #refusal(specifier: string, problem: Problem): NotRegularFile {
    const shown = (file: string): string => (isPathInside(this.#root, file) ? path.relative(this.#root, file).split(path.sep).join("/") : file);
    const file = problem.target === undefined || problem.target === problem.file ? shown(problem.file) : `${shown(problem.file)} (a link to ${problem.target})`;
    return { kind: "not-a-regular-file", specifier, file, what: problem.what };
  }
}

/**
 * What a file that is not a regular file is, in a message's words (`a character device`, `a
 * block device`, `a named pipe (FIFO)`, `a socket`); the one wording of packaging's refusals of
 * such a file (here and the asset reads of `./esbuild-plugin.ts`).
 */
export function kindWords(stats: fs.Stats | fs.Dirent): string {
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isDirectory()) return "a folder";
  return "not a regular file";
}

/** The names esbuild tries for TypeScript's `./x.js` meaning `x.ts` (`REWRITTEN`). */
function rewrittenNames(base: string): string[] {
  for (const [old, replacements] of REWRITTEN) {
    if (base.endsWith(old)) return replacements.map((replacement) => base.slice(0, base.length - old.length) + replacement);
  }
  return [];
}

/** `stat` through links; `null` when there is nothing (no exception for a missing file: most `package.json` are). */
function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

function isLink(file: string): boolean {
  return fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
