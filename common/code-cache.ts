/**
 * A V8 code cache for the CommonJS dependencies the toolchain requires (issue 14 item 1): the
 * 9 MB TypeScript parser a cold compile loads (about 0.1–0.2 s of CPU to compile each time, on
 * each thread that parses), ajv and better-sqlite3 for `call`, `tools` and `search`. Node 22
 * has `module.enableCompileCache()`; Node 20, which the toolchain supports, has not, so this
 * module does the same for CommonJS files under a `node_modules` folder:
 *
 * - {@link installCodeCache} (the CLI entry calls it first; the analysis worker too) replaces
 *   `Module.prototype._compile` for those files, for the `.cjs` files of the folders it is
 *   given (the toolchain's own CLI bundle, `dist/cli-bundle/`, scripts/build-cli-bundle.mjs)
 *   and for the files it is named (the bundle's minified TypeScript beside it):
 *   the file is compiled with `vm.Script` and the
 *   cached data stored for it, and run as Node runs a CommonJS module (same wrapper, `require`,
 *   `module`, `__filename`, `__dirname`). Anything else, a small file that mentions `import(`
 *   (its dynamic import would make Node print an experimental warning), or a file that does
 *   not compile as CommonJS, goes to Node's own `_compile` unchanged; so does the CLI bundle
 *   when source maps are on (`--enable-source-maps`: Node reads a module's map in its own
 *   `_compile`). On Node ≥ 22.1 it calls `module.enableCompileCache` instead.
 * - Once per thread: the bin installs it before it loads the CLI bundle, which holds its own
 *   copy of this module (the analysis worker's call from there then does nothing); the state
 *   lives on `globalThis` under `Symbol.for("assembly-line.code-cache")`, not in the module.
 * - The cache lives in a folder of the user's own under the OS temporary folder
 *   (`assembly-line-code-cache-<uid>`, mode 0700; not used when it is a link, owned by someone
 *   else, or writable by others: cached data is code), as sealed files (`common/sealed-file.ts`:
 *   format line, SHA-256, payload) per Node version, architecture, set of Node/V8 flags and
 *   installation of the toolchain (the path of this module): one
 *   shared by the small modules, read on the first lookup, and one per large module (TypeScript),
 *   read only when it loads. An entry is used only for a file of the same path, length and CRC-32
 *   of its text, and only when V8 accepts it (V8 checks its own version, flags and the source);
 *   a missing, truncated, corrupt or foreign file is a miss, never a crash. The CRC-32 is not
 *   computed again while the file's stamp (device, inode, size, modification and change times)
 *   is the one stored with its entry, taken only when the file had not changed for a while
 *   before the process started ({@link SETTLED_MS}).
 * - On exit, when a file was compiled without an accepted entry, the main thread writes its
 *   file again (atomically) with V8's data, taken after the run so that the functions compiled
 *   lazily are in it too. Entries of other commands' modules are kept (the shared file is
 *   capped at {@link MAX_CACHE_BYTES}).
 * - An accepted entry is not taken again, so the run that made it decides which functions it
 *   holds. For the CLI bundle, which holds every command, the entry is therefore kept per kind
 *   of run ({@link commandKind}: `--help`, `compile`, `call`, ...; the bin passes it), in files
 *   of their own, at most {@link MAX_KINDS} per bundle: otherwise a first `compile --help` made
 *   every later compile compile most of the bundle lazily (about 0.1 s), and one entry re-taken
 *   after long runs made `--version` deserialise a compile's functions (docs/performance.md,
 *   "Seventh round").
 * - A process that writes the cache also deletes the folder's cache files (any installation's)
 *   not written for `STALE_CACHE_DAYS` days (`./private-cache-folder.ts`, whose rules the folder follows).
 * - `ASSEMBLY_LINE_CODE_CACHE=0` turns it off.
 *
 * docs/caches.md describes it for users.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createRequire, Module as ModuleNs } from "node:module";
import * as path from "node:path";
import * as vm from "node:vm";
import { isAscii } from "node:buffer";
import { sealPayload, unsealPayload } from "./sealed-file.js";
import { codeCachesOff, defaultCodeCacheFolder, isPrivateFolder, pruneStaleCacheFiles } from "./private-cache-folder.js";

/** First bytes of a code cache file; then the SHA-256 of the payload, then the payload. */
const MAGIC = Buffer.from("assembly-line code cache 1\n", "utf8");

/**
 * The most bytes of cached data the shared file keeps; beyond it only the entries this process
 * used are written. One installation's small modules take about 1 MB; the file is read whole on
 * every start, so the cap stays small.
 */
export const MAX_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * One cached file: its path, the length and CRC-32 of its text, V8's data, the file's
 * {@link settledStamp} when it was cached ("" when it had none), and for a kind's entry whether
 * the run that made it compiled the agent too ({@link noteCompilingRun}; `false` when absent).
 */
type Entry = readonly [file: string, length: number, crc: number, data: Uint8Array, stamp: string, compiling?: boolean, provisional?: boolean];

/** What {@link installCodeCache} did in this thread (for tests and benchmarks). */
export interface CodeCacheStats {
  /** The cache file in use, or why none is (`"off"`, `"node-compile-cache"`, `"unsafe folder"`). */
  readonly file: string;
  /** Files compiled with accepted cached data. */
  readonly hits: number;
  /** Files compiled without cached data (or with data V8 rejected). */
  readonly misses: number;
  readonly rejected: number;
  /** Of the hits, those whose text was not CRC-checked: the file's settled stamp was the entry's. */
  readonly unchecked: number;
  /** Large all-ASCII modules read as bytes instead of decoded as UTF-8 (see `readLargeAsciiModules`). */
  readonly asciiReads: number;
}

/** Options of {@link installCodeCache}. */
export interface CodeCacheOptions {
  /** The folder (default: `assembly-line-code-cache-<uid>` under the OS temporary folder). */
  readonly dir?: string;
  /** Whether this thread writes the cache on exit (default: on the main thread only). */
  readonly save?: boolean;
  /**
   * Folders whose `.cjs` files are cached as well as CommonJS files under `node_modules`: the
   * toolchain's own CLI bundle (`dist/cli-bundle/`), which the bin passes.
   */
  readonly folders?: readonly string[];
  /**
   * Further CommonJS files (absolute paths) cached as the files under `node_modules` are, with
   * one entry for every kind of run: the CLI bundle's minified TypeScript
   * (`dist/cli-bundle/typescript.cjs`, scripts/build-cli-bundle.mjs), which the stubs pass. Its
   * functions are the parser's whatever the command, so it needs no entry per kind.
   */
  readonly modules?: readonly string[];
  /**
   * The kind of run this thread makes ({@link commandKind} of the command line; the analysis and
   * schema workers pass `"compile"`, whose entry holds what they run): the `folders`' files keep
   * one entry per kind. Default `"other"`.
   */
  readonly kind?: string;
}

/** The most kinds of run whose entries are kept for one file of the `folders` (the oldest written go first). */
export const MAX_KINDS = 16;

/** What a kind of run may be called: it becomes part of a file name. */
const KIND_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * The kind of run `argv` (the CLI's arguments, without `node` and the script) makes, for
 * {@link CodeCacheOptions.kind}: `"help"` when it asks for help or the version (or has no
 * command), the command's name when the first argument looks like one (lower-case letters,
 * digits and dashes), `"other"` otherwise. A name need not be a real command: a typo only
 * makes a small entry of its own, and at most {@link MAX_KINDS} are kept.
 */
export function commandKind(argv: readonly string[]): string {
  const end = argv.indexOf("--");
  const flags = end === -1 ? argv : argv.slice(0, end);
  if (flags.some((arg) => arg === "--help" || arg === "-h" || arg === "--version" || arg === "-v")) return "help";
  const first = argv[0];
  if (first === undefined || first === "help") return "help";
  return KIND_NAME.test(first) ? first : "other";
}

interface ModuleInternals {
  exports: unknown;
  require(id: string): unknown;
  _compile(content: string, filename: string, format?: string): unknown;
}

interface ModuleStatics {
  prototype: ModuleInternals;
  wrap(content: string): string;
  _resolveFilename(request: string, parent: ModuleInternals, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: ModuleInternals): string[] | null;
  _extensions: unknown;
  _cache: unknown;
  enableCompileCache?: (dir?: string) => unknown;
}

type Stats = { file: string; hits: number; misses: number; rejected: number; unchecked: number; asciiReads: number };

/**
 * Where this thread's state is kept: on `globalThis`, so that every copy of this module in the
 * thread (the bin's, and the one inside the CLI bundle) sees the same installation.
 */
const STATE = Symbol.for("assembly-line.code-cache");

function installed(): Stats | undefined {
  return (globalThis as { [STATE]?: Stats })[STATE];
}

/** What the code cache did in this thread; `undefined` when it was not installed. */
export function codeCacheStats(): CodeCacheStats | undefined {
  const stats = installed();
  return stats && { ...stats };
}

/** Set on `globalThis` by {@link noteCompilingRun}, for the copy of this module that installed the hook. */
const COMPILING = Symbol.for("assembly-line.code-cache.compiling");

/**
 * Notes that this run compiles the agent although its kind of run does not (a host command —
 * `tools`, `search`, `call`, … — whose artifact is not current: after an upgrade of the
 * toolchain, the first one to run). The CLI bundle's entry a run writes for its kind holds the
 * functions it ran: with the compiler's, about twice the size (1.4 against 0.65 MB for `tools`),
 * and every later run of that kind would deserialise them (about 5 ms, issue 14 item 3). So the
 * entry is marked, and the first later run of the kind that does not compile deletes it; the
 * run after that writes one of its own. A dev loop that compiles every time keeps the marked
 * entry. Does nothing where the code cache is not installed.
 */
export function noteCompilingRun(): void {
  (globalThis as { [COMPILING]?: boolean })[COMPILING] = true;
}

function compilingRun(): boolean {
  return (globalThis as { [COMPILING]?: boolean })[COMPILING] === true;
}

/**
 * Installs the code cache for this thread (once; later calls do nothing). Never throws: when
 * the cache cannot be used, modules load as they always do.
 */
export function installCodeCache(options: CodeCacheOptions = {}): void {
  if (installed()) return;
  const stats: Stats = { file: "off", hits: 0, misses: 0, rejected: 0, unchecked: 0, asciiReads: 0 };
  (globalThis as { [STATE]?: Stats })[STATE] = stats;
  if (codeCachesOff()) return;
  const Module = ModuleNs as unknown as ModuleStatics;
  try {
    const dir = options.dir ?? defaultCodeCacheFolder();
    if (typeof Module.enableCompileCache === "function") {
      // Node ≥ 22.1 caches every module itself (CommonJS and ES modules).
      stats.file = "node-compile-cache";
      if (isPrivateFolder(dir)) Module.enableCompileCache(dir);
      return;
    }
    if (!isPrivateFolder(dir)) {
      stats.file = "unsafe folder";
      return;
    }
    // V8 rejects data made under other flags: one file per set of flags, so that runs with
    // other flags (a profiler, a test runner) do not keep replacing each other's file. And one
    // per installation of the toolchain (this module's own path): the shared file is read whole
    // on every start, so it must hold only the modules this installation can load, not the
    // entries of every checkout and `npm ci` the user ever ran (30 MB of them made each start
    // about 0.1 s slower: read, SHA-256, deserialise).
    const flags = createHash("sha256").update(`${process.execArgv.join("\0")}\0${process.env["NODE_OPTIONS"] ?? ""}\0${import.meta.url}`).digest("hex").slice(0, 12);
    const base = path.join(dir, `v8-${process.version}-${process.arch}-${flags}`);
    stats.file = `${base}.bin`;
    const kind = options.kind !== undefined && KIND_NAME.test(options.kind) ? options.kind : "other";
    const covered: Coverage = { folders: (options.folders ?? []).map((folder) => path.resolve(folder) + path.sep), modules: new Set((options.modules ?? []).map((file) => path.resolve(file))) };
    hook(Module, new EntryStore(base), stats, options.save ?? (require_("node:worker_threads") as typeof import("node:worker_threads")).isMainThread, covered, kind);
  } catch {
    // No cache: modules load as they always do.
  }
}

/**
 * The entries of one cache: the modules' shared file (`<base>.bin`, read on the first lookup)
 * and, for each module whose source is at least {@link OWN_FILE_BYTES} long, a file of its own
 * (`<base>-<hash of its path>.bin`, read only when that module loads), so a command that does
 * not load TypeScript does not read TypeScript's 2.5 MB of cached code.
 */
class EntryStore {
  #shared: Map<string, Entry> | undefined;
  readonly #base: string;
  /** Entries this process used (kept when the shared file is over its cap). */
  readonly used = new Set<string>();

  constructor(base: string) {
    this.#base = base;
  }

  /** The cache folder. */
  get dir(): string {
    return path.dirname(this.#base);
  }

  /**
   * The stored entry of `key` (a file's path, or for a kind of run `<path>#<kind>`, see
   * {@link keyOf}) for a source of `length` characters. A kind's entry is always in its own file.
   */
  get(key: string, length: number): Entry | undefined {
    if (length >= OWN_FILE_BYTES || key.includes(KIND_MARK)) return readEntries(this.ownFile(key)).get(key);
    this.#shared ??= readEntries(`${this.#base}.bin`);
    return this.#shared.get(key);
  }

  /** The own file of `key`: `<base>-<hash of the path>.bin`, or `<base>-<hash of the path>-<kind>.bin` for a kind's entry. */
  ownFile(key: string): string {
    const mark = key.lastIndexOf(KIND_MARK);
    return mark === -1 ? `${this.#prefix(key)}.bin` : `${this.#prefix(key.slice(0, mark))}-${key.slice(mark + KIND_MARK.length)}.bin`;
  }

  /** `<base>-<hash of filename>`: how the names of `filename`'s own files begin. */
  #prefix(filename: string): string {
    return `${this.#base}-${createHash("sha256").update(filename).digest("hex").slice(0, 16)}`;
  }

  /**
   * Writes fresh entries: each large one and each kind's to its own file, the small ones merged
   * into the shared file. A file with more than {@link MAX_KINDS} kinds' files loses the oldest written.
   */
  save(fresh: readonly Entry[]): void {
    const own = (entry: Entry) => entry[1] >= OWN_FILE_BYTES || entry[0].includes(KIND_MARK);
    const small = fresh.filter((entry) => !own(entry));
    for (const entry of fresh) {
      if (!own(entry)) continue;
      writeEntries(this.ownFile(entry[0]), [entry]);
      const mark = entry[0].lastIndexOf(KIND_MARK);
      if (mark !== -1) keepNewestKinds(`${this.#prefix(entry[0].slice(0, mark))}-`);
    }
    if (small.length === 0) return;
    const names = new Set(small.map(([name]) => name));
    let kept = [...(this.#shared ?? readEntries(`${this.#base}.bin`)).values()].filter(([name]) => !names.has(name));
    const size = (list: readonly Entry[]) => list.reduce((sum, entry) => sum + entry[3].length, 0);
    if (size(kept) + size(small) > MAX_CACHE_BYTES) kept = kept.filter(([name]) => this.used.has(name));
    writeEntries(`${this.#base}.bin`, [...kept, ...small]);
  }
}

/** A cache file, or a temporary one a killed process left, in the cache folder (see {@link writeEntries}). */
const CACHE_FILE = /^v8-.+\.bin(?:\.\d+\.[a-z0-9]+\.tmp)?$/;

/** What joins a file's path and a kind of run in an entry's key (no path holds it). */
const KIND_MARK = "\0kind=";

/** The key of the entry for `filename` in a run of `kind`: the path alone for files not kept per kind. */
function keyOf(filename: string, kind: string | undefined): string {
  return kind === undefined ? filename : `${filename}${KIND_MARK}${kind}`;
}

/**
 * Deletes the oldest written of the kinds' files whose names start with `prefix`
 * (`<base>-<hash of the path>-`) beyond {@link MAX_KINDS}; never throws.
 */
function keepNewestKinds(prefix: string): void {
  try {
    const dir = path.dirname(prefix);
    const start = path.basename(prefix);
    const files = fs
      .readdirSync(dir)
      .filter((name) => name.startsWith(start) && name.endsWith(".bin") && KIND_NAME.test(name.slice(start.length, -".bin".length)))
      .map((name) => ({ file: path.join(dir, name), written: fs.lstatSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => b.written - a.written);
    for (const { file } of files.slice(MAX_KINDS)) fs.rmSync(file, { force: true });
  } catch {
    // Not pruned: the next write tries again.
  }
}

/** Modules at least this long (in characters) get a cache file of their own. */
const OWN_FILE_BYTES = 512 * 1024;

function readEntries(file: string): Map<string, Entry> {
  const payload = readCacheFile(file);
  const entries = new Map<string, Entry>();
  if (!Array.isArray(payload)) return entries;
  for (const item of payload as unknown[]) {
    if (!Array.isArray(item) || item.length < 4 || item.length > 7) continue;
    const [name, length, crc, data, stamp = "", compiling = false, provisional = false] = item as unknown[];
    if (typeof name === "string" && typeof length === "number" && typeof crc === "number" && data instanceof Uint8Array && typeof stamp === "string" && typeof compiling === "boolean" && typeof provisional === "boolean") {
      entries.set(name, entryOf(name, length, crc, data, stamp, compiling, provisional));
    }
  }
  return entries;
}

/** V8 uses cached data in place only at this alignment; elsewhere it copies it first. */
const DATA_ALIGNMENT = 8;

/**
 * The payload of the cache file `file` ({@link unsealPayload}), read so that the cached data of
 * a file holding one entry (each large module's and each kind's) lies where V8 uses it in place:
 * V8 copies cached data that is not {@link DATA_ALIGNMENT}-aligned before deserialising it, and
 * where the data falls in the file depends on what precedes it (the entry's path, its stamp).
 * So the file is read with {@link DATA_ALIGNMENT} spare bytes, and its bytes are moved up within
 * the same buffer until that entry's data is aligned: for the CLI bundle's entry of a `compile`
 * (1–1.6 MB) and TypeScript's (2.5 MB) a copy into fresh memory less at every start, and a page
 * fault per 4 KB of it (docs/performance.md, "The test suite's budget", helper-98).
 * `undefined` when the file is missing, unreadable or not sealed.
 */
export function readCacheFile(file: string): unknown {
  let buffer: Buffer;
  let size: number;
  try {
    const fd = fs.openSync(file, "r");
    try {
      size = fs.fstatSync(fd).size;
      // allocUnsafeSlow: a buffer of its own, at the start of its memory (a pooled one starts anywhere).
      buffer = Buffer.allocUnsafeSlow(size + DATA_ALIGNMENT);
      let read = 0;
      for (let n = -1; read < size && n !== 0; read += n) n = fs.readSync(fd, buffer, read, size - read, read);
      if (read !== size) return undefined;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const payload = unsealPayload(buffer.subarray(0, size), MAGIC);
  const entry = Array.isArray(payload) && payload.length === 1 && Array.isArray(payload[0]) ? (payload[0] as unknown[]) : undefined;
  const data = entry?.[3];
  if (!(data instanceof Uint8Array) || data.buffer !== buffer.buffer) return payload;
  const offset = data.byteOffset - buffer.byteOffset;
  const shift = (DATA_ALIGNMENT - (data.byteOffset % DATA_ALIGNMENT)) % DATA_ALIGNMENT;
  if (shift === 0) return payload;
  // The same bytes (their digest already checked), `shift` bytes later in the same buffer.
  buffer.copyWithin(shift, 0, size);
  entry![3] = new Uint8Array(buffer.buffer, buffer.byteOffset + offset + shift, data.length);
  return payload;
}

/** An entry, with its marks only when set (the form {@link readEntries} gives and `save` writes). */
function entryOf(name: string, length: number, crc: number, data: Uint8Array, stamp: string, compiling: boolean, provisional: boolean): Entry {
  if (provisional) return [name, length, crc, data, stamp, compiling, true];
  return compiling ? [name, length, crc, data, stamp, true] : [name, length, crc, data, stamp];
}

/** Writes `entries` sealed to `file`, atomically (temporary file, then rename); never throws. */
function writeEntries(file: string, entries: readonly Entry[]): void {
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.writeFileSync(temporary, sealPayload(MAGIC, entries), { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch {
    // Not written: the next run compiles again.
    fs.rmSync(temporary, { force: true });
  }
}

const IN_NODE_MODULES = `${path.sep}node_modules${path.sep}`;
const DYNAMIC_IMPORT = /\bimport\s*\(/;

/**
 * Replaces `Module.prototype._compile` for the files the cache covers: CommonJS files under a
 * `node_modules` folder or named in `modules`, and `.cjs` files directly in one of `folders`
 * (the CLI bundle; {@link coverageOf}).
 */
function hook(Module: ModuleStatics, store: EntryStore, stats: Stats, save: boolean, covered: Coverage, kind: string): void {
  const original = Module.prototype._compile;
  /**
   * Entries to write on exit: scripts compiled without accepted data (their data is taken on
   * exit), accepted entries whose file now has a settled stamp the entry lacks, and accepted
   * provisional entries of the CLI bundle (see {@link hook}'s exit below). `provisional` says,
   * from the run's exit code, whether the entry written is provisional.
   */
  const produced: { readonly name: string; readonly length: number; readonly crc: number; readonly stamp: string; readonly data: (failed: boolean) => Uint8Array | undefined; readonly compiling: (failed: boolean) => boolean; readonly provisional: (failed: boolean) => boolean }[] = [];
  /** The kinds' entries accepted in this run that a compiling run made ({@link noteCompilingRun}). */
  const acceptedFromCompiling: string[] = [];
  const compile = (content: string, filename: string, bundled: boolean): ((...args: unknown[]) => unknown) => {
    const stamp = settledStamp(filename);
    const key = keyOf(filename, bundled ? kind : undefined);
    const known = store.get(key, content.length);
    // The CRC-32 of TypeScript's 9 MB of text costs about 40 ms: a file whose settled stamp is
    // the one stored with its entry is the file the entry was made from, unread.
    const sameFile = known !== undefined && known[1] === content.length && stamp !== "" && known[4] === stamp;
    // zlib only here: a settled file is not read again (every start of a host command).
    const crc = sameFile ? known[2] : (require_("node:zlib") as typeof import("node:zlib")).crc32(content);
    const cachedData = known && known[1] === content.length && known[2] === crc ? known[3] : undefined;
    const script = new vm.Script(wrappedSource(Module, content, filename), {
      filename,
      ...(cachedData ? { cachedData } : {}),
      // Only large modules that mention `import(` get here (see below): their dynamic imports
      // go to Node's default loader (Node warns that this is experimental when one runs).
      ...(!bundled && DYNAMIC_IMPORT.test(content) ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER } : {}),
    });
    if (cachedData && !script.cachedDataRejected) {
      stats.hits++;
      if (sameFile) stats.unchecked++;
      store.used.add(key);
      const fromCompiling = bundled && known?.[5] === true;
      if (fromCompiling) acceptedFromCompiling.push(key);
      const provisional = bundled && known?.[6] === true;
      // Stamped again, the same data keeps its marks; a provisional entry is made again by a run that ends well.
      const restamp = !sameFile && stamp !== "";
      if (provisional || restamp) {
        const data = (failed: boolean): Uint8Array | undefined => (provisional && !failed ? script.createCachedData() : restamp ? cachedData : undefined);
        // Made again, the entry holds what this run compiled too: the compiler's, when it compiled the agent.
        const compiling = (failed: boolean): boolean => fromCompiling || (provisional && !failed && compilingRun());
        produced.push({ name: key, length: content.length, crc, stamp, data, compiling, provisional: (failed) => provisional && failed });
      }
    } else {
      if (cachedData) stats.rejected++;
      stats.misses++;
      produced.push({ name: key, length: content.length, crc, stamp, data: () => script.createCachedData(), compiling: () => bundled && compilingRun(), provisional: (failed) => bundled && failed });
    }
    return script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
  };
  Module.prototype._compile = function (this: ModuleInternals, content: string, filename: string, format?: string): unknown {
    if (format === "module" || !/\.c?js$/.test(filename)) return original.call(this, content, filename, format);
    // The CLI bundle runs no `import()` of its own (its build routes them through the bin), and
    // with source maps on Node must see it to read its map.
    const coverage = coverageOf(filename, covered);
    const bundled = coverage === "bundle";
    if (coverage === undefined || (bundled && process.sourceMapsEnabled)) return original.call(this, content, filename, format);
    // A small module that may `import()` (cosmiconfig loading an ES-module configuration) is
    // left to Node: a `vm.Script`'s dynamic import makes Node print an experimental warning.
    // TypeScript's parser mentions `import(` only in messages; its dynamic imports never run here.
    if (!bundled && content.length < OWN_FILE_BYTES && DYNAMIC_IMPORT.test(content)) return original.call(this, content, filename, format);
    let wrapper: (...args: unknown[]) => unknown;
    try {
      wrapper = compile(content, filename, bundled);
    } catch {
      // Not CommonJS (an ES module Node detects by its syntax) or not valid: Node decides.
      return original.call(this, content, filename, format);
    }
    const module = this;
    const require = Object.assign((id: string) => module.require(id), {
      resolve: Object.assign((request: string, options?: unknown) => Module._resolveFilename(request, module, false, options), {
        paths: (request: string) => Module._resolveLookupPaths(request, module),
      }),
      main: require_.main,
      extensions: Module._extensions,
      cache: Module._cache,
    });
    return Reflect.apply(wrapper, module.exports, [module.exports, require, module, filename, path.dirname(filename)]);
  };
  readLargeAsciiModules(Module, stats, covered);
  if (save) {
    process.once("exit", (code) => {
      // A run that did not compile drops the entries of its kind a compiling run made (see noteCompilingRun).
      const dropped = compilingRun() ? [] : acceptedFromCompiling;
      // A run that fails (a usage error, a refusal: `search --limit 0`, a typo, a bundle changed
      // after packaging) may have run a short path: the entry of its kind it makes holds few of
      // the functions every later run of the kind would then compile lazily, until the next
      // build. So it is provisional: the first later run of the kind that ends well (exit code
      // 0) makes it again, from what it loaded from it and compiled itself, a superset.
      const failed = code !== 0;
      try {
        for (const key of dropped) fs.rmSync(store.ownFile(key), { force: true });
        const fresh: Entry[] = [];
        for (const { name, length, crc, stamp, data, compiling, provisional } of produced) {
          const bytes = dropped.includes(name) ? undefined : data(failed);
          if (bytes !== undefined) fresh.push(entryOf(name, length, crc, bytes, stamp, compiling(failed), provisional(failed)));
        }
        if (fresh.length === 0) return;
        store.save(fresh);
        pruneStaleCacheFiles(store.dir, CACHE_FILE);
      } catch {
        // Not written: the next run compiles again.
      }
    });
  }
}

/** The files the cache covers besides those under `node_modules` ({@link CodeCacheOptions}). */
interface Coverage {
  /** The `folders`, resolved, each with a trailing separator. */
  readonly folders: readonly string[];
  /** The `modules`, resolved. */
  readonly modules: ReadonlySet<string>;
}

/**
 * How the cache covers `filename`: `"bundle"` for a `.cjs` file directly in one of the folders
 * (an entry per kind of run), `"module"` for a file under `node_modules` or one of the
 * `modules` (one entry), `undefined` when it does not.
 */
function coverageOf(filename: string, covered: Coverage): "bundle" | "module" | undefined {
  if (filename.includes(IN_NODE_MODULES) || covered.modules.has(filename)) return "module";
  return filename.endsWith(".cjs") && covered.folders.some((folder) => filename.startsWith(folder) && !filename.includes(path.sep, folder.length)) ? "bundle" : undefined;
}

const require_ = createRequire(import.meta.url);

type JsLoader = (this: unknown, module: ModuleInternals, filename: string) => unknown;

/**
 * Replaces Node's loader of `.js` files (which Node also uses for `.cjs`) for large CommonJS
 * files the cache covers ({@link coverageOf}; at least {@link OWN_FILE_BYTES}: TypeScript's
 * parser, the CLI bundle and its minified TypeScript) whose bytes are all ASCII:
 * Node 20 reads a module as UTF-8 text, and V8's UTF-8 decoder took 60–130 ms for TypeScript's
 * 9 MB file, where reading its bytes and taking them as Latin-1 (the same string, for ASCII)
 * takes a few. The text then goes to `_compile` as Node's loader would pass it. Any other file,
 * a file with a non-ASCII byte, a `.js` file whose package is `"type": "module"`, or one that
 * cannot be read is left to Node's loader.
 */
function readLargeAsciiModules(Module: ModuleStatics, stats: Stats, covered: Coverage): void {
  const extensions = Module._extensions as Record<string, JsLoader>;
  const original = extensions[".js"];
  if (typeof original !== "function") return;
  extensions[".js"] = function (this: unknown, module: ModuleInternals, filename: string): unknown {
    const read = coverageOf(filename, covered) !== undefined ? largeAsciiText(filename, Module) : undefined;
    if (read === undefined) return original.call(this, module, filename);
    stats.asciiReads++;
    prewrapped.set(filename, read);
    try {
      return module._compile(read.text, filename);
    } finally {
      prewrapped.delete(filename);
    }
  };
}

/** A large module's text read by {@link largeAsciiText}, and the same text in Node's module wrapper. */
interface WrappedText {
  /** The module's text: a slice of `wrapped` (V8 keeps it as a view into it, not a copy). */
  readonly text: string;
  /** `Module.wrap(text)`, made as one flat string. */
  readonly wrapped: string;
}

/** The wrapped text of the large module being loaded, by file (set while its `_compile` runs). */
const prewrapped = new Map<string, WrappedText>();

/**
 * The source `vm.Script` compiles for `content` of `filename`: `Module.wrap(content)`, or, for a
 * large module {@link largeAsciiText} read, the same text made as one flat string when the file
 * was read. `Module.wrap` joins three strings into a rope, which V8 copies into a flat string to
 * hash it for its compilation cache: for the CLI bundle (2.4 MB) and the bundle's TypeScript
 * (3.6 MB) one more copy of the module into fresh memory at every start, about one page fault
 * per 4 KB of it (docs/performance.md, "The test suite's budget", helper-98).
 */
function wrappedSource(Module: ModuleStatics, content: string, filename: string): string {
  const read = prewrapped.get(filename);
  return read !== undefined && read.text === content ? read.wrapped : Module.wrap(content);
}

/**
 * The text of a large all-ASCII CommonJS file (see {@link readLargeAsciiModules}), with the
 * same text in `Module`'s wrapper as one string (read into one buffer between the wrapper's two
 * parts); otherwise `undefined`. A `.cjs` file is CommonJS whatever its package says.
 */
function largeAsciiText(filename: string, Module: ModuleStatics): WrappedText | undefined {
  try {
    const size = fs.statSync(filename).size;
    if (size < OWN_FILE_BYTES || (!filename.endsWith(".cjs") && packageType(filename) === "module")) return undefined;
    // The wrapper's parts, as Module.wrap puts them around a text (whatever wraps it).
    const probe = Module.wrap("\0");
    const cut = probe.indexOf("\0");
    const head = Buffer.from(probe.slice(0, cut), "latin1");
    const tail = Buffer.from(probe.slice(cut + 1), "latin1");
    const bytes = Buffer.allocUnsafe(head.length + size + tail.length);
    head.copy(bytes, 0);
    const fd = fs.openSync(filename, "r");
    let read = 0;
    try {
      for (let n = -1; read < size && n !== 0; read += n) n = fs.readSync(fd, bytes, head.length + read, size - read, read);
      // A file that grew since the stat: not this fast path.
      if (read !== size || fs.readSync(fd, Buffer.alloc(1), 0, 1, size) !== 0) return undefined;
    } finally {
      fs.closeSync(fd);
    }
    tail.copy(bytes, head.length + size);
    if (!isAscii(bytes)) return undefined;
    const wrapped = bytes.toString("latin1");
    return { text: wrapped.slice(head.length, head.length + size), wrapped };
  } catch {
    return undefined;
  }
}

/** The `type` of the nearest `package.json` above `filename` (as Node reads it for a `.js` file); `undefined` when none says. */
function packageType(filename: string): unknown {
  for (let dir = path.dirname(filename); ; dir = path.dirname(dir)) {
    let text: string | undefined;
    try {
      text = fs.readFileSync(path.join(dir, "package.json"), "utf8");
    } catch {
      // None here: look further up.
    }
    if (text !== undefined) return (JSON.parse(text) as { type?: unknown }).type;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * How long before this process started a file must have last changed for its stamp to vouch
 * for the text Node read: the text is read after the process starts, so a file unchanged since
 * well before that is the file that was read (the "racy clean" rule of Git's index). The margin
 * covers coarse file system timestamps.
 */
const SETTLED_MS = 2000;

/**
 * A stamp of the file at `filename` (device, inode, size, modification and change times) when
 * it last changed at least {@link SETTLED_MS} before this process started; "" otherwise, or
 * when it cannot be read. Any write changes the change time, which no user can set, so an
 * equal stamp means the same content.
 */
function settledStamp(filename: string): string {
  try {
    const stat = fs.statSync(filename, { bigint: true });
    if (Number(stat.ctimeMs) > performance.timeOrigin - SETTLED_MS) return "";
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return "";
  }
}
