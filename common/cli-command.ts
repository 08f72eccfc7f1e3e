/**
 * The one rule for how a printed command starts: every next step, fix-it hint and example
 * command the toolchain prints (`init`'s "Next:" lines, AL1001's "run `… compile ../..`", the
 * lock's fix command, the `approve` line after an approval gate, the usage line after AL9001)
 * begins with {@link cliCommandPrefix}, so that what is printed is something the user can type
 * where the command ran (new-user trials helper-67 and helper-69: a bare `npx assembly-line`,
 * printed where the toolchain was not installed, makes npx offer to fetch whatever package of
 * that name the registry has).
 *
 * As create-vite picks `npm`/`pnpm`/`yarn` for its "Now run:" lines from how it was started
 * (`npm_config_user_agent`), the prefix comes from how this CLI was started, checked against
 * what the user's shell would find:
 * 1. `npx assembly-line` when a `node_modules/.bin/assembly-line` of this package is in the
 *    working directory or a folder above it (the README's `npm install -D` setup; npm, pnpm and
 *    Yarn's node_modules layouts alike). npx looks for the bin there (from the project upwards)
 *    and runs it without asking the registry.
 * 2. Under npx (`npm exec`, which sets `npm_command=exec`), for a package npx put in its cache
 *    (`<npm cache>/_npx/<hash>/node_modules/`; README trial of 6 December: every printed command
 *    began `node /root/.npm/_npx/…`): `npx assembly-line` when the project npx ran in is this
 *    toolchain's own package (its checkout: npx runs a project's own bin there), else the
 *    command npx was given, `npx --package=<spec> assembly-line` or `npx <spec>` for the one
 *    package spec npx recorded in the cache folder's `package.json` (`_npx.packages`), since a
 *    bare `npx assembly-line` there would ask the registry. Anything else falls through.
 * 3. `assembly-line` when a folder on `PATH` has an `assembly-line` that is the running script
 *    (a global install), as npm and cargo print their own names: the shell finds it. Folders that
 *    npm puts on `PATH` for `npx`/`npm run` (`…/node_modules/.bin`) do not count: the user's own
 *    shell does not have them.
 * 4. Otherwise `node <script>`, the script Node ran (relative to the working directory when it
 *    lies inside it, else absolute), which runs this same toolchain from any folder.
 *
 * Lower layers (the lockfile's fix command, the runtime's messages, the diagnostics catalogue's
 * `{cli}` placeholder, `../diagnostics/diagnostic.ts`) ask {@link cliCommandPrefix}; the binary
 * tells this module how it was started ({@link rememberCliStart}, `bin/run.ts`). A process the
 * binary did not start (the tsserver plugin, the JS API, tests that call a command in-process)
 * prints `npx assembly-line`: there the toolchain was loaded from the project's node_modules.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { shellQuote } from "./shell-quote.js";

/** The name of the package's bin (`package.json` `bin`). */
export const CLI_BIN_NAME = "assembly-line";

/** The npm name of this toolchain's package, whose `node_modules/<name>/` makes a `.bin` entry ours. */
export const CLI_PACKAGE_NAME = "@assemblyline-agents/assembly-line";

/** The prefix for a project that installed the toolchain, and for a process the binary did not start. */
export const NPX_COMMAND_PREFIX = `npx ${CLI_BIN_NAME}`;

/** The placeholder for the command prefix in the diagnostics catalogue's message and hint templates. */
export const CLI_PLACEHOLDER = "{cli}";

/** How the CLI was started and where its printed commands will be typed. */
export interface CliStart {
  /** Absolute path of the script Node ran (`process.argv[1]`, as Node resolved it; symlinks kept). */
  readonly script: string;
  /** The working directory: where the user types the printed command. */
  readonly cwd: string;
  /** The `PATH` the CLI was started with (`undefined` when unset). */
  readonly pathVariable: string | undefined;
  /** `process.platform`: the `PATH` separator and the bin's file names (`.cmd` shims on Windows). */
  readonly platform: NodeJS.Platform;
  /** Set when npm exec (`npx`) started the CLI (`npm_command=exec`): what npm told it in its environment. */
  readonly npmExec?: NpmExecStart;
}

/** What `npm exec` (`npx`) tells the command it runs, in its environment. */
export interface NpmExecStart {
  /** `npm_config_local_prefix`: the project folder npx ran in (the nearest with a package.json). */
  readonly localPrefix?: string;
  /** `npm_config_package`: the `--package` (`-p`) npx was given, when it was given one. */
  readonly packageSpec?: string;
}

/**
 * The command prefix a user can type for a CLI started as `start` describes: `npx assembly-line`,
 * `assembly-line` or `node <script>` (see the module comment for the order and why). Reads the
 * file system (a few `stat`s and `realpath`s), never writes; never throws.
 * @example commandPrefixFor({ script: "/tmp/tc/dist/bin/assembly-line.cjs", cwd: "/tmp/agent", pathVariable: "/usr/bin", platform: "linux" }) // "node /tmp/tc/dist/bin/assembly-line.cjs"
 */
export function commandPrefixFor(start: CliStart): string {
  if (projectBinAbove(start.cwd, start.platform)) return NPX_COMMAND_PREFIX;
  const npx = npxCommand(start);
  if (npx !== undefined) return npx;
  if (onPath(start)) return CLI_BIN_NAME;
  const relative = path.relative(start.cwd, start.script);
  const shown = relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : start.script;
  return `node ${shellQuote(shown.split(path.sep).join("/"))}`;
}

/**
 * Where this process keeps its start and prefix: on `globalThis`, under a registered symbol, not
 * in this module's own variables, because one process can hold several copies of this module —
 * the CLI bundle's, the host bundle's (which compiles with the CLI bundle's compiler) and the
 * unbundled one the language server imports (scripts/build-cli-bundle.mjs) — and all of them
 * must print what the binary recorded.
 */
const STATE = Symbol.for("assembly-line.cli-command");

interface CliCommandState {
  started?: CliStart;
  prefix?: string;
}

function state(): CliCommandState {
  const holder = globalThis as { [STATE]?: CliCommandState };
  holder[STATE] ??= {};
  return holder[STATE];
}

/**
 * Records that the binary started this process by running `script` (`process.argv[1]`), in the
 * current working directory with the current `PATH`. Called once by the binary (`bin/run.ts`,
 * `bin/run-host.ts`) before a command runs; `undefined` forgets it (a process the binary did not
 * start). The prefix itself is worked out on first use, so a command that prints none pays nothing.
 */
export function rememberCliStart(script: string | undefined): void {
  const current = state();
  if (script === undefined || script === "") delete current.started;
  else current.started = { script: path.resolve(script), cwd: process.cwd(), pathVariable: process.env["PATH"], platform: process.platform, ...npmExecOfEnvironment(process.env) };
  delete current.prefix;
}

/** `{ npmExec }` when npm exec (`npx`) started this process (`npm_command=exec`), else nothing. */
function npmExecOfEnvironment(env: NodeJS.ProcessEnv): { npmExec?: NpmExecStart } {
  if (env["npm_command"] !== "exec") return {};
  const localPrefix = env["npm_config_local_prefix"];
  const packageSpec = env["npm_config_package"];
  return { npmExec: { ...(localPrefix ? { localPrefix } : {}), ...(packageSpec ? { packageSpec } : {}) } };
}

/**
 * This process's command prefix: {@link commandPrefixFor} of the start {@link rememberCliStart}
 * recorded, else {@link NPX_COMMAND_PREFIX}. Computed once per process.
 */
export function cliCommandPrefix(): string {
  const current = state();
  current.prefix ??= current.started === undefined ? NPX_COMMAND_PREFIX : commandPrefixFor(current.started);
  return current.prefix;
}

/**
 * A whole command line to print: {@link cliCommandPrefix} and `words`, each quoted for a POSIX
 * shell (`shellQuote`), e.g. `cliCommand("compile", "my agent")` → `npx assembly-line compile 'my agent'`.
 * Words that must print unquoted (`<dir>`, a `--input '…'` already quoted) go after it as text.
 */
export function cliCommand(...words: readonly string[]): string {
  return [cliCommandPrefix(), ...words.map(shellQuote)].join(" ");
}

/**
 * The npx command that runs this toolchain again where it ran, for a CLI npm exec started from
 * npx's cache (rule 2 of the module comment); `undefined` when it was not, or when what npx was
 * given cannot be told.
 */
function npxCommand(start: CliStart): string | undefined {
  if (start.npmExec === undefined) return undefined;
  const cacheFolder = npxCacheFolderOf(path.resolve(start.script));
  if (cacheFolder === undefined) return undefined;
  const { localPrefix, packageSpec } = start.npmExec;
  // The checkout of this toolchain: `npx assembly-line` there runs the project's own bin.
  if (localPrefix !== undefined && packageNameAt(localPrefix) === CLI_PACKAGE_NAME) return NPX_COMMAND_PREFIX;
  if (packageSpec !== undefined && packageSpec !== "" && !packageSpec.includes("\n")) return `npx ${shellQuote(`--package=${packageSpec}`)} ${CLI_BIN_NAME}`;
  const packages = npxPackagesOf(cacheFolder);
  return packages?.length === 1 ? `npx ${shellQuote(packages[0]!)}` : undefined;
}

/** The `<cache>/_npx/<hash>` folder `script` lies in (`…/_npx/<hash>/node_modules/…`), else `undefined`. */
function npxCacheFolderOf(script: string): string | undefined {
  const parts = script.split(path.sep);
  for (let at = parts.length - 4; at >= 0; at -= 1) {
    if (parts[at] === "_npx" && parts[at + 2] === "node_modules") return parts.slice(0, at + 2).join(path.sep);
  }
  return undefined;
}

/** The package specs npx installed into `cacheFolder`, from its `package.json`'s `_npx.packages` (npm 7 and later); `undefined` when unreadable. */
function npxPackagesOf(cacheFolder: string): readonly string[] | undefined {
  const manifest = readJson(path.join(cacheFolder, "package.json")) as { _npx?: { packages?: unknown } } | undefined;
  const packages = manifest?._npx?.packages;
  return Array.isArray(packages) && packages.every((spec) => typeof spec === "string" && spec !== "") ? (packages as string[]) : undefined;
}

/** The `name` of the package.json in `folder`, if it has a readable one. */
function packageNameAt(folder: string): string | undefined {
  const name = (readJson(path.join(folder, "package.json")) as { name?: unknown } | undefined)?.name;
  return typeof name === "string" ? name : undefined;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * True when the working directory or a folder above it has this package's bin in
 * `node_modules/.bin` (`assembly-line`, or its `.cmd` shim on Windows) and the package itself in
 * `node_modules/@assemblyline-agents/assembly-line`: then npx runs it from there, as `npm exec`
 * looks for a command's bin from the project upwards. Another package's `assembly-line` bin does
 * not count: npx would run that one.
 */
function projectBinAbove(cwd: string, platform: NodeJS.Platform): boolean {
  const binFile = platform === "win32" ? `${CLI_BIN_NAME}.cmd` : CLI_BIN_NAME;
  for (let folder = path.resolve(cwd); ; folder = path.dirname(folder)) {
    const modules = path.join(folder, "node_modules");
    if (exists(path.join(modules, ".bin", binFile)) && exists(path.join(modules, ...CLI_PACKAGE_NAME.split("/"), "package.json"))) return true;
    if (path.dirname(folder) === folder) return false;
  }
}

/**
 * True when a folder on `PATH` (other than a `node_modules/.bin` that npm added) holds an
 * `assembly-line` that is the running script: a link to it (a global install on POSIX), or, for
 * a shim that is a file of its own (npm's `.cmd` on Windows, pnpm's shell script), one beside the
 * global `node_modules` that holds the running package.
 */
function onPath(start: CliStart): boolean {
  const script = realpath(start.script);
  if (script === undefined) return false;
  const packageRoot = packageRootOf(script);
  const separator = start.platform === "win32" ? ";" : ":";
  const binFile = start.platform === "win32" ? `${CLI_BIN_NAME}.cmd` : CLI_BIN_NAME;
  for (const folder of (start.pathVariable ?? "").split(separator)) {
    if (folder === "" || !path.isAbsolute(folder)) continue;
    // `npx` and `npm run` put node_modules/.bin folders on PATH; the user's own shell has none of them.
    if (path.basename(folder) === ".bin" && path.basename(path.dirname(folder)) === "node_modules") continue;
    const candidate = path.join(folder, binFile);
    if (!exists(candidate)) continue;
    if (realpath(candidate) === script) return true;
    if (packageRoot === undefined) continue;
    // npm's global layout: <prefix>/<bin> beside <prefix>/node_modules (Windows) or <prefix>/lib/node_modules (POSIX).
    for (const modules of [path.join(folder, "node_modules"), path.join(folder, "..", "lib", "node_modules")]) {
      if (realpath(path.join(modules, ...CLI_PACKAGE_NAME.split("/"))) === packageRoot) return true;
    }
  }
  return false;
}

/** The folder of the package the script belongs to (`<root>/dist/bin/assembly-line.cjs` → `<root>`), when it has a package.json. */
function packageRootOf(script: string): string | undefined {
  const root = path.resolve(path.dirname(script), "..", "..");
  return exists(path.join(root, "package.json")) ? root : undefined;
}

function exists(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function realpath(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}
