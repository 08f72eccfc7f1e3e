/**
 * Finds, loads and validates the project configuration (issue 10 item 5) with cosmiconfig:
 * `assembly-line.config.{js,mjs,cjs,ts,json,yaml,yml}`, `.assemblylinerc` (JSON or YAML) and
 * `.assemblylinerc.{json,yaml,yml,js,mjs,cjs,ts}`, or the `assemblyLine` key of `package.json`.
 *
 * The search starts at the agent root and goes up to the home folder (cosmiconfig's `global`
 * strategy, the pre-v9 default), then looks in the user's config folder
 * (`~/.config/assembly-line/config.*`). The first file found wins; nothing is merged.
 *
 * JSON and YAML are parsed by the project's own locating parsers, so a syntax error or a
 * schema violation is a diagnostic at the file, line, column and property path. JavaScript is
 * imported; TypeScript is transpiled by esbuild (no TypeScript install needed). Never throws
 * for a bad configuration.
 *
 * Only cosmiconfig's search is loaded up front: the parsers (YAML, JSON with positions) and the
 * validator (ajv) are imported when a file is found, so a host command in a project without a
 * configuration file does not pay for them (docs/performance.md).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { cosmiconfig, cosmiconfigSync, defaultLoaders, type CosmiconfigResult, type Loader, type Loaders, type LoaderSync, type Options, type OptionsSync, type PublicExplorer } from "cosmiconfig";
import { findJsonNestingBeyond, MAX_JSON_DEPTH } from "../../common/json-nesting.js";
import { fileStart, createLineMap, locationOf } from "../../common/positions.js";
import type { LocatedValue } from "../../compiler/model.js";
import { withServiceMemoryLimit } from "../../packaging/esbuild-service.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { CONFIG_SEARCH_PLACES, EMPTY_PROJECT_CONFIG, shownFile, type ConfigSelection, type ProjectConfig } from "./types.js";

/** The `package.json` key that may hold the configuration. */
export const PACKAGE_JSON_KEY = "assemblyLine";

/** Every place searched in each folder, in order (the first found wins): `./types.ts`. */
export { CONFIG_SEARCH_PLACES };

/** A loaded configuration, or the diagnostics that stop the command (then `config` is empty). */
export interface LoadedProjectConfig {
  readonly config: ProjectConfig;
  /** Errors with absolute `file` paths; any one means the command must not run. */
  readonly diagnostics: readonly Diagnostic[];
}

/** A loader's parse failure, carried through cosmiconfig as an exception. */
class ConfigParseFailure extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

/**
 * Loads the configuration for the agent at `root`.
 *
 * @param root absolute agent root (where the search starts).
 * @param selection `--config FILE` (relative paths against the working directory), `--no-config`, or the search.
 * @returns the validated configuration, or diagnostics (AL9110 syntax, AL9111 schema, AL9112
 *   load failure or missing file, AL9113/AL9114 rules).
 */
export async function loadProjectConfig(root: string, selection: ConfigSelection = { kind: "search" }): Promise<LoadedProjectConfig> {
  if (selection.kind === "none") return { config: EMPTY_PROJECT_CONFIG, diagnostics: [] };
  const located = new Map<string, LocatedValue>();
  const loaders = {
    ".json": jsonLoader(located),
    ".yaml": yamlLoader(located),
    ".yml": yamlLoader(located),
    noExt: yamlLoader(located),
    ".js": defaultLoaders[".js"],
    ".mjs": defaultLoaders[".mjs"],
    ".cjs": defaultLoaders[".cjs"],
    ".ts": typescriptLoader,
  };
  let found: { config: unknown; filepath: string; isEmpty?: boolean } | null;
  const target = selection.kind === "file" ? path.resolve(selection.file) : undefined;
  // cosmiconfig reads what it finds whatever it is: a device never ends, a named pipe waits for
  // good (helper-133: a committed `package.json -> /dev/zero` hung every compile at 4 GB).
  const special = target !== undefined ? (isSpecialFile(target) ? target : undefined) : specialSearchPlace(root);
  if (special !== undefined) {
    return failed(
      createDiagnostic(Diagnostics.ProjectConfigLoadFailed, fileStart(special), [shownFile(special), "it is not a regular file (a device, a named pipe or a socket, or a link to one), and a configuration is read only from a regular file"], {
        hint: target !== undefined ? "Name a regular file with --config, or run without it." : "Remove it or replace it with a regular file, or skip the search (--no-config, --no-project-config).",
      }),
    );
  }
  try {
    // Made inside the try: cosmiconfig reads its own meta configuration (`.config/config.json`
    // up the tree) as it is made, and a folder it cannot read there throws (a path too long, a
    // folder without read permission: an internal error before; helper-73).
    const explorer = cosmiconfig("assembly-line", { ...SEARCH_OPTIONS, loaders });
    found = target ? await explorer.load(target) : await search(root, explorer, loaders);
  } catch (error) {
    if (error instanceof ConfigParseFailure) return failed(error.diagnostic);
    const file = (error as { filepath?: string }).filepath ?? target ?? root;
    const code = (error as NodeJS.ErrnoException).code;
    const message = code === "ENOENT" ? "the file does not exist" : error instanceof Error ? error.message : String(error);
    // A file-system error is not the code's: the catalogue's hint (about a configuration's
    // default export) would not fit it (helper-73: a missing --project-config file, an unreadable
    // folder on the search's way).
    const hint =
      typeof code !== "string" || !code.startsWith("E")
        ? undefined
        : target
          ? `Check the path of the configuration file named on the command line (relative to the working directory), or run without it.`
          : `The search for a configuration reads the agent's folder, the ones above it and the user's configuration folder: make them readable, name the file on the command line (compile: --config FILE; tools, search, call, approve: --project-config FILE), or skip the search (--no-config, --no-project-config).`;
    return failed(createDiagnostic(Diagnostics.ProjectConfigLoadFailed, fileStart(file), [shownFile(file), message], hint ? { hint } : {}));
  }
  if (found === null) return { config: EMPTY_PROJECT_CONFIG, diagnostics: [] };
  const file = found.filepath;
  const value = found.isEmpty ? {} : found.config;
  const isPackageJson = path.basename(file) === "package.json";
  const document = located.get(file);
  const { validateProjectConfig } = await import("./validate-project-config.js");
  return validateProjectConfig(file, interop(value), {
    ...(document ? { located: document } : {}),
    pointerPrefix: isPackageJson ? `/${PACKAGE_JSON_KEY}` : "",
  });
}

/**
 * The first place of the configuration search, from `root` up to the home folder (or `/` for a
 * root outside it: cosmiconfig's `global` strategy), that exists and is neither a regular file
 * nor a folder, followed through links: a device, a named pipe or a socket, which cosmiconfig
 * would read without end or wait on. The places are taken in the search's order, and the scan
 * ends at the first regular file the search would load as the configuration (a `package.json`
 * is read for its key and passed), so a special file the search never reaches is not reported.
 * `undefined` when there is none. One listing per folder (a folder that cannot be listed is left
 * to cosmiconfig, which reports or passes over it).
 */
export function specialSearchPlace(root: string): string | undefined {
  const home = os.homedir();
  for (let dir = root; ; ) {
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      // Left to cosmiconfig.
    }
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    for (const name of CONFIG_SEARCH_PLACES) {
      const entry = byName.get(name);
      if (entry === undefined || entry.isDirectory()) continue;
      const place = path.join(dir, name);
      const regular = entry.isFile() || (entry.isSymbolicLink() && !isSpecialFile(place));
      if (!regular) return place;
      // A dangling link is passed over by the search, as a missing file.
      if (name !== "package.json" && fs.statSync(place, { throwIfNoEntry: false })?.isFile()) return undefined;
    }
    const parent = path.dirname(dir);
    if (dir === home || parent === dir) return undefined;
    dir = parent;
  }
}

/** Whether `file` exists, followed through links, and is neither a regular file nor a folder. */
function isSpecialFile(file: string): boolean {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat !== undefined && !stat.isFile() && !stat.isDirectory();
}

/** The extensions of a configuration file that is code: imported (or transpiled, then imported) into the host. */
const CODE_EXTENSIONS: ReadonlySet<string> = new Set([".js", ".mjs", ".cjs", ".ts"]);

/**
 * True when the configuration file `file` (a {@link ProjectConfig.file}) is code that ran in this
 * process when it was loaded — JavaScript or TypeScript, by the loaders of
 * {@link loadProjectConfig} — and so may have changed the process (its environment, file-creation
 * mask, user, limits). A `call` then neither adopts nor remembers an early-started sandbox
 * process (`cli/commands/runtime-commands.ts`; review of 5 December, F2 and F5).
 */
export function configIsCode(file: string | undefined): boolean {
  return file !== undefined && CODE_EXTENSIONS.has(path.extname(file));
}

/** How the configuration is searched for (the loaders aside): the same for every explorer below. */
const SEARCH_OPTIONS = {
  searchPlaces: [...CONFIG_SEARCH_PLACES],
  packageProp: PACKAGE_JSON_KEY,
  searchStrategy: "global",
  cache: false,
} as const satisfies Partial<Options> & Partial<OptionsSync>;

/** What {@link locatingLoader} says of a file that may hold a configuration: "load it". */
const HOLDS_SOMETHING = Object.freeze({ holdsSomething: true });

/** The same of a `package.json`, where cosmiconfig then looks up {@link PACKAGE_JSON_KEY}. */
const PACKAGE_HOLDS_SOMETHING = Object.freeze({ [PACKAGE_JSON_KEY]: HOLDS_SOMETHING });

/**
 * The loader of cosmiconfig's synchronous explorer in {@link search}: it loads nothing. A
 * `package.json` is parsed, so that cosmiconfig looks up {@link PACKAGE_JSON_KEY} in it as the
 * search does, unless it is one the loading would refuse (JSON.parse refuses it, or it nests
 * too deep): then it is named, and the loading reports it. Any other file is named.
 */
const locatingLoader: LoaderSync = (filepath: string, content: string) => {
  if (path.basename(filepath) !== "package.json") return HOLDS_SOMETHING;
  if (findJsonNestingBeyond(content, MAX_JSON_DEPTH) !== undefined) return PACKAGE_HOLDS_SOMETHING;
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return PACKAGE_HOLDS_SOMETHING;
  }
};

/**
 * cosmiconfig's search from `root` with `explorer`, with its file located first by
 * cosmiconfig's synchronous explorer (same search places and strategy; {@link locatingLoader}s):
 * the asynchronous search waits for a thread-pool round trip at each of its places, 16 per
 * folder from the root up to the home folder (or `/`) and 8 in the user's config folder, about
 * 5 ms of every command's start for an agent four folders deep (docs/performance.md,
 * "Eighteenth round"). The located file is then loaded by `explorer`. Where the two could
 * disagree, `explorer`'s own search decides, as before:
 * - a meta configuration may be in the working directory ({@link mayHaveMetaConfig}), which
 *   cosmiconfig loads before any folder and whose options may change the search;
 * - a located file that loads as nothing (a YAML file of comments, a module exporting `null`);
 * - a located file whose loading fails in a way the search passes over (a missing, unreadable
 *   or non-file place, also one a `$import` or a module's own code reads: {@link PASSED_OVER});
 * - a locating that throws.
 * Found nowhere up the folders, only the user's config folder is searched asynchronously,
 * since the synchronous explorer does not search all its places (`config.mjs`).
 */
async function search(root: string, explorer: PublicExplorer, loaders: Loaders): Promise<CosmiconfigResult> {
  if (mayHaveMetaConfig(process.cwd())) return explorer.search(root);
  let file: string | undefined;
  try {
    // A locating loader for every kind of file `explorer` loads, so the two search the same files.
    const locator = cosmiconfigSync("assembly-line", { ...SEARCH_OPTIONS, loaders: Object.fromEntries(Object.keys(loaders).map((extension) => [extension, locatingLoader])) });
    file = locator.search(root)?.filepath;
  } catch {
    return explorer.search(root);
  }
  if (file !== undefined) {
    let loaded: CosmiconfigResult;
    try {
      loaded = await explorer.load(file);
    } catch (error) {
      if (PASSED_OVER.has((error as NodeJS.ErrnoException).code ?? "")) return explorer.search(root);
      throw error;
    }
    return loaded !== null && !loaded.isEmpty ? loaded : explorer.search(root);
  }
  // Up the folders, nothing: the user's config folder, which cosmiconfig searches after the
  // folder it stops at (here the root itself, with no places of its own).
  const userFolder = cosmiconfig("assembly-line", { ...SEARCH_OPTIONS, searchPlaces: [], stopDir: root, loaders });
  return userFolder.search(root);
}

/** The errors cosmiconfig's search takes as "no configuration here" and goes on past (cosmiconfig 9, `Explorer.search`). */
const PASSED_OVER: ReadonlySet<string> = new Set(["ENOENT", "EISDIR", "ENOTDIR", "EACCES"]);

/**
 * Whether `cwd` may hold cosmiconfig's meta configuration (a `.config/config.*` file, or a
 * `cosmiconfig` key in `package.json` or `package.yaml`), which cosmiconfig reads from the
 * working directory and loads before searching: conservatively, a `.config` entry, or a package
 * file that mentions `cosmiconfig`.
 */
function mayHaveMetaConfig(cwd: string): boolean {
  if (fs.existsSync(path.join(cwd, ".config"))) return true;
  for (const name of ["package.json", "package.yaml"]) {
    try {
      if (fs.readFileSync(path.join(cwd, name), "utf8").includes("cosmiconfig")) return true;
    } catch {
      // Not there (or not readable: cosmiconfig's meta search passes over it too).
    }
  }
  return false;
}

function failed(diagnostic: Diagnostic): LoadedProjectConfig {
  return { config: EMPTY_PROJECT_CONFIG, diagnostics: [diagnostic] };
}

/** An ES module's namespace (`{ default: {...} }`) as its default export. */
function interop(value: unknown): unknown {
  if (value !== null && typeof value === "object" && Object.prototype.toString.call(value) === "[object Module]") {
    return (value as { default?: unknown }).default;
  }
  return value;
}

function jsonLoader(located: Map<string, LocatedValue>): Loader {
  return async (filepath, content) => {
    const { parseJsonDocument } = await import("../../compiler/plugin-package/json-document.js");
    const document = parseJsonDocument(filepath, content);
    if (document.syntaxError || !document.located) {
      const problem = document.syntaxError!;
      throw new ConfigParseFailure(createDiagnostic(Diagnostics.ProjectConfigSyntax, problem.location, [shownFile(filepath), "JSON", problem.message], problem.hint ? { hint: problem.hint } : {}));
    }
    located.set(filepath, document.located);
    return document.located.value;
  };
}

function yamlLoader(located: Map<string, LocatedValue>): Loader {
  return async (filepath, content) => {
    const [{ parseDocument }, { yamlToLocatedValue }] = await Promise.all([import("yaml"), import("../../compiler/agent/yaml-values.js")]);
    const map = createLineMap(filepath, content);
    const document = parseDocument(content, { prettyErrors: false, uniqueKeys: true, strict: true });
    const error = document.errors[0];
    if (error) {
      const at = locationOf(map, error.pos[0], error.pos[1]);
      throw new ConfigParseFailure(createDiagnostic(Diagnostics.ProjectConfigSyntax, at, [shownFile(filepath), "YAML", error.message.split("\n")[0]!.replace(/\.$/, "")]));
    }
    const converted = yamlToLocatedValue(document.contents, map, [], fileStart(filepath));
    const first = converted.diagnostics.find((d) => d.severity === "error");
    if (first) throw new ConfigParseFailure(first);
    if (!converted.located) return null;
    located.set(filepath, converted.located);
    return converted.located.value;
  };
}

/**
 * Loads `assembly-line.config.ts` / `.assemblylinerc.ts`: esbuild transpiles it to an ES
 * module written beside it (so its relative imports resolve), which is imported and removed.
 */
const typescriptLoader: Loader = async (filepath, content) => {
  const { transform } = await import("esbuild");
  // This may be the call that starts esbuild's service, which a later packaging reuses: with its memory limit.
  const { code } = await withServiceMemoryLimit(() => transform(content, { loader: "ts", format: "esm", platform: "node", target: "node20", sourcefile: filepath }));
  const temporary = path.join(path.dirname(filepath), `.${path.basename(filepath)}.${process.pid}.${Date.now()}.mjs`);
  fs.writeFileSync(temporary, code);
  try {
    return (await import(pathToFileURL(temporary).href)) as unknown;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
};
