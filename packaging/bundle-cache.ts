/**
 * The persistent bundle cache of `compile` (issue 14 item 4): `<root>/.assemblyline/cache/bundles.bin`
 * keeps, from one compile to the next, the bytes of every tool bundle with everything that can
 * change them, so a compile rebuilds only the bundles whose inputs changed (the others are not
 * handed to esbuild at all).
 *
 * A stored bundle is reused only when all of these are unchanged:
 * - its **build key**: the bundle's name and definition module, the esbuild options packaging
 *   uses (all but the machine-specific paths), the content of the authoring API module the
 *   bundle aliases, and the **toolchain** ({@link bundleToolchainKey}: this package's version and
 *   compiled packaging files, the installed esbuild's version);
 * - every **module and asset esbuild read** for it (the entry's import graph in esbuild's
 *   metafile, text/bytes imports included): the SHA-256 of its bytes, never an mtime;
 * - **how those imports resolved**: for each folder holding one of them, the names in the folder
 *   (a new `x.tsx` beside `x.ts`, a new `index.ts`), and for each folder from there up to the
 *   agent root (to the file system root for files outside the agent), its `package.json` bytes
 *   (`type`, `sideEffects`, `exports`, `imports`) and whether it has a `node_modules` folder
 *   (a nearer copy of a package).
 *
 * Safe by construction: the file starts with a magic line, then segments each with a SHA-256
 * of its payload; a truncated (a torn append included), corrupt or foreign file is ignored (the
 * compile is then cold). The bundles' bytes are in a file of their own (`./bundle-bytes.ts`,
 * `bundles-bytes.bin`), named from here by offset and length beside the SRI recorded at the
 * build: a reused bundle's bytes are read only when a bundle file must be written or compared,
 * and used only when their SHA-512 is that SRI (verified at use; else the bundle is built again).
 * Saving appends the bundles a compile rebuilt (and the names it dropped) to the file it read,
 * or writes a temporary file and renames it (`writeFileConfined`) when the appended segments
 * outgrow half of the whole; never through a link out of the agent root. What a reader gets is
 * the bundles the last compile used; saving never throws. The cache changes no result: a warm compile writes the
 * same lock, artifact and diagnostics as a cold one (`test/packaging/bundle-cache.test.ts`).
 */
import * as crypto from "node:crypto";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { signatureOfStats, updateWithFileStats } from "../common/file-stats-hash.js";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { Message, Metafile } from "esbuild";
import { writeFileConfined, type WriteRefusal } from "../common/confined-write.js";
import { packageRoot } from "../common/package-root.js";
import { appendSealedSegment, readSealedLog, writeSealedLog, type SealedLogIdentity } from "../common/sealed-file.js";
import { listFilesRecursively } from "../common/list-files.js";
import type { DirectoryEntry } from "../common/host.js";
import { RecordFile } from "../common/record-file.js";
import { BUNDLE_BYTES_FILE, BUNDLE_BYTES_MAGIC, isBytesRef, type BytesRef } from "./bundle-bytes.js";
import { bundleIntegrity } from "./integrity.js";

/** Where the cache lives, relative to the agent root. */
export const BUNDLE_CACHE_FILE = path.join(".assemblyline", "cache", "bundles.bin");

/**
 * First bytes of a cache file of this format; then the segments of a sealed log
 * (`common/sealed-file.ts`): the first a {@link Payload}, each later one the {@link Changes} of
 * one compile (the bundles it rebuilt and the names it dropped: after a one-file change, one
 * bundle instead of the whole 4 MB of the benchmark agent; issue 14 item 4). Written whole again
 * when the appended segments outgrow half of the full state or number {@link MAX_BUNDLE_SEGMENTS}.
 */
// 3: sealed-log segments keep their typed arrays' bytes after the structure (`common/sealed-file.ts`).
// 4: the bundles' bytes in `bundles-bytes.bin`, named by offset and length (`./bundle-bytes.ts`).
export const BUNDLE_CACHE_MAGIC = Buffer.from("assembly-line bundle cache 4\n", "utf8");

/** Appended segments after which the next save writes the whole cache anew. */
export const MAX_BUNDLE_SEGMENTS = 64;

/** One stored bundle. */
interface StoredBundle {
  /** SHA-256 of the build key (options, toolchain, core, name, definition). */
  readonly key: string;
  /**
   * The bundle's bytes: where they are in `bundles-bytes.bin`, or the bytes themselves (a
   * bundle just built, or one whose bytes could not be written to that file).
   */
  readonly bytes: Uint8Array | BytesRef;
  /** SRI (`sha512-…`) of the bytes, recorded when the bundle was built: what a use verifies them against. */
  readonly integrity: string;
  /**
   * esbuild's input keys of the entry's import graph (root-relative, maybe `namespace:path`)
   * with the SHA-256 of each file and its stat signature when hashed (size, mtime, ctime, inode).
   */
  readonly inputs: readonly (readonly [string, string, string])[];
  /** Resolution facts: `kind\0absolute folder` → hash (see the module header). */
  readonly facts: readonly (readonly [string, string])[];
  /** esbuild warnings located in this bundle's inputs (replayed on reuse). */
  readonly warnings: readonly Message[];
}

interface Payload {
  readonly toolchain: string;
  readonly bundles: readonly (readonly [string, StoredBundle])[];
  /** Size of `bundles-bytes.bin` when this state was written whole (0: none); appends are measured from it. */
  readonly bytesSize?: number;
}

/** An appended segment: the bundles one compile stored anew, and the names it no longer used. */
interface Changes {
  readonly toolchain: string;
  readonly changes: true;
  readonly bundles: readonly (readonly [string, StoredBundle])[];
  readonly removed: readonly string[];
}

/** The bundles a cache file holds, and where it was read (for appending to it). */
interface LoadedBundles {
  readonly bundles: ReadonlyMap<string, StoredBundle>;
  readonly identity: SealedLogIdentity;
  /** Length of the file's first segment (magic and full state), and its number of segments. */
  readonly baseSize: number;
  readonly segments: number;
  /** `Payload.bytesSize` of the first segment. */
  readonly bytesSize: number;
}

/**
 * A reused bundle: its SRI as recorded, its byte length, a reader of its stored bytes (unverified:
 * `./bundle-bytes.ts`'s `DeferredBundle` checks them against the SRI at use), input keys (for
 * `assembly-line inputs`) and warnings.
 */
export interface CachedBundle {
  readonly size: number;
  readonly read: () => Uint8Array | undefined;
  readonly integrity: string;
  readonly inputs: readonly string[];
  readonly warnings: readonly Message[];
}

/** Options of {@link BundleCache.load}. */
export interface BundleCacheOptions {
  /** Overrides {@link bundleToolchainKey} (tests simulate another toolchain version with it). */
  readonly toolchain?: string;
  /** Consult the cache but never write (`compile --check`, `assembly-line inputs`): nothing new is kept. */
  readonly readOnly?: boolean;
  /**
   * Files whose bytes this compile has already proven unchanged, with their SHA-256 (base64url):
   * the untouched plugins' files the front end reused by `stat` (`PluginReuse.verifiedContent`,
   * `compiler/plugin-reuse.ts`). {@link BundleCache.find} takes these digests as the files'
   * content instead of asking `lstat` again (2,000 definitions of the benchmark agent); a build
   * ({@link BundleCache.stamp}) forgets them, as it forgets every digest taken before it.
   */
  readonly knownContent?: ReadonlyMap<string, string>;
  /**
   * The listings of folders the compile has taken already (`SnapshotHost.knownListing`,
   * `build/snapshot-host.ts`; only for a host that reads the disk): {@link BundleCache.find} takes a
   * folder's names and kinds from there before listing it itself, so that each plugin folder is
   * not listed twice. As for {@link knownContent}, a build ({@link BundleCache.stamp}) forgets them.
   */
  readonly knownListing?: (folder: string) => readonly DirectoryEntry[] | undefined;
}

/** The bundle cache of one agent root for one compile: read once, consulted, saved once. */
export class BundleCache {
  readonly #root: string;
  readonly #file: string;
  readonly #toolchain: string;
  readonly #stored: ReadonlyMap<string, StoredBundle>;
  /** `bundles-bytes.bin`, read a bundle at a time. */
  readonly #bytesFile: RecordFile;
  readonly #used = new Map<string, StoredBundle>();
  #changed: boolean;
  readonly #readOnly: boolean;
  #refusal: WriteRefusal | undefined;
  /** Per compile: content hash of a file (`-` when missing), and the resolution facts of folders. */
  readonly #hashes = new Map<string, string>();
  readonly #facts = new Map<string, string>();
  readonly #listings = new Map<string, (readonly [string, string])[] | undefined>();
  /**
   * {@link keep}'s stat signatures, taken once per file and build stamp: the bundles of one
   * build share their folders' `package.json` / `node_modules` checks and the authoring modules,
   * and 2,000 bundles asked `lstat` again for each (a third of a cold compile's bundle step).
   * Sound to reuse: a signature older than the stamp, taken after esbuild finished, says what
   * esbuild read for every bundle of that build.
   */
  readonly #signatures = new Map<string, string | undefined>();
  #signaturesStamp: bigint | undefined;
  /** `BundleCacheOptions.knownListing` until the first {@link stamp}. */
  #knownListing: ((folder: string) => readonly DirectoryEntry[] | undefined) | undefined;
  /** Bundles reused and built by this compile (for tests and `--watch`). */
  readonly stats = { reused: 0, built: 0 };

  /** The file as read, when it held this toolchain's bundles (what a save may append to). */
  readonly #loaded: Omit<LoadedBundles, "bundles"> | undefined;

  private constructor(root: string, file: string, toolchain: string, loaded: LoadedBundles | undefined, readOnly: boolean) {
    this.#readOnly = readOnly;
    this.#root = root;
    this.#file = file;
    this.#toolchain = toolchain;
    this.#bytesFile = new RecordFile(root, path.join(root, BUNDLE_BYTES_FILE), BUNDLE_BYTES_MAGIC);
    this.#stored = loaded ? this.#withBytesThere(loaded.bundles) : new Map();
    this.#loaded = loaded && { identity: loaded.identity, baseSize: loaded.baseSize, segments: loaded.segments, bytesSize: loaded.bytesSize };
    this.#changed = loaded === undefined || this.#stored.size !== loaded.bundles.size;
  }

  /**
   * Reads the cache of the agent at `root` (absolute). Never throws: a missing, unreadable,
   * corrupt or foreign file (another toolchain) gives an empty cache.
   */
  static load(root: string, options: BundleCacheOptions = {}): BundleCache {
    const file = path.join(root, BUNDLE_CACHE_FILE);
    const toolchain = options.toolchain ?? bundleToolchainKey();
    const cache = new BundleCache(root, file, toolchain, readBundles(file, toolchain), options.readOnly === true);
    for (const [known, hash] of options.knownContent ?? []) cache.#hashes.set(known, hash);
    cache.#knownListing = options.knownListing;
    return cache;
  }

  /**
   * `bundles` without those whose bytes the bytes file cannot hold: when it is missing, of
   * another format, a link, or ends before them, they are misses (built again with the others,
   * in the same batches) rather than rebuilt one by one when their bytes are asked for.
   */
  #withBytesThere(bundles: ReadonlyMap<string, StoredBundle>): ReadonlyMap<string, StoredBundle> {
    let size: number | undefined | null = null;
    const kept = new Map<string, StoredBundle>();
    for (const [name, bundle] of bundles) {
      if (!(bundle.bytes instanceof Uint8Array)) {
        if (size === null) size = this.#bytesFile.formatSize();
        if (size === undefined || bundle.bytes.at + bundle.bytes.length > size) continue;
      }
      kept.set(name, bundle);
    }
    return kept;
  }

  /** The toolchain identity this cache is keyed by (part of every build key). */
  get toolchain(): string {
    return this.#toolchain;
  }

  /** Number of bundles read from the file. */
  get size(): number {
    return this.#stored.size;
  }

  /**
   * The stored bundle `name` when its build key is `key` and none of its inputs or resolution
   * facts changed; `undefined` otherwise. A reused bundle is kept for the next save.
   */
  find(name: string, key: string): CachedBundle | undefined {
    const stored = this.#stored.get(name);
    if (!stored || stored.key !== key) return undefined;
    for (const [input, hash, signature] of stored.inputs) if (this.#hashInput(input, signature, hash) !== hash) return undefined;
    for (const [fact, hash] of stored.facts) if (this.#fact(fact) !== hash) return undefined;
    this.#used.set(name, stored);
    this.stats.reused++;
    const bytes = stored.bytes;
    const read = bytes instanceof Uint8Array ? () => bytes : () => this.#bytesFile.range(bytes.at, bytes.length);
    return { size: bytes instanceof Uint8Array ? bytes.byteLength : bytes.length, read, integrity: stored.integrity, inputs: stored.inputs.map(([input]) => input), warnings: stored.warnings };
  }

  /**
   * Keeps `bytes` as the bytes of the reused bundle `name`, built again because its stored
   * bytes did not verify (`./bundle-bytes.ts`, `DeferredBundle`); the caller has checked that
   * they have the recorded SRI. The next {@link save} stores them: the cache repairs itself.
   */
  repair(name: string, bytes: Uint8Array): void {
    const used = this.#used.get(name);
    if (used === undefined || this.#readOnly || bundleIntegrity(bytes) !== used.integrity) return;
    this.#used.set(name, { ...used, bytes });
    this.#changed = true;
  }

  /**
   * Marks the moment before a build, in the file system's own clock: writes
   * `.assemblyline/cache/bundles.stamp` and returns its modification time (ns). A file whose
   * modification or change time is not older than the stamp may have changed while esbuild read
   * it, so a bundle that read one is not kept ({@link keep}; Git's "racily clean" rule).
   * `undefined` (nothing will be kept) when read-only or the stamp cannot be written.
   */
  stamp(): bigint | undefined {
    if (this.#readOnly) return undefined;
    // Hashes taken before the stamp may predate what esbuild reads: {@link keep} hashes afresh.
    this.#hashes.clear();
    this.#knownListing = undefined;
    this.#facts.clear();
    this.#listings.clear();
    this.#signatures.clear();
    const file = path.join(path.dirname(this.#file), "bundles.stamp");
    try {
      if (writeFileConfined(this.#root, file, "", { createFolders: true, durable: false }) !== undefined) return undefined;
      return fs.statSync(file, { bigint: true }).mtimeNs;
    } catch {
      return undefined;
    }
  }

  /**
   * Records a bundle esbuild just built. `metafile` is the build's metafile; `entryInput` the
   * key of its entry module there; `exclude` an absolute file whose identity is already in the
   * build key (the authoring API); `stamp` what {@link stamp} returned before the build.
   * Not kept (only counted): under `cacheable: false` (a warning that cannot be attributed),
   * without a stamp, or when an input or folder it depends on changed since the stamp.
   * Returns the entry's input keys.
   */
  keep(name: string, key: string, built: { bytes: Uint8Array; integrity: string; metafile: Metafile; entryInput: string; warnings: readonly Message[]; exclude: string; cacheable: boolean; stamp: bigint | undefined }): readonly string[] {
    this.stats.built++;
    this.#changed = true;
    const inputs = reachableInputs(built.metafile, built.entryInput);
    const stamp = built.stamp;
    if (!built.cacheable || stamp === undefined || this.#readOnly) return inputs;
    if (this.#signaturesStamp !== stamp) {
      this.#signatures.clear();
      this.#signaturesStamp = stamp;
    }
    // The stat signature of a file not changed since the stamp; `undefined` when it may have.
    const settled = (file: string): string | undefined => {
      if (this.#signatures.has(file)) return this.#signatures.get(file);
      let signature: string | undefined;
      try {
        const stat = fs.lstatSync(file, { bigint: true });
        signature = stat.mtimeNs < stamp && stat.ctimeNs < stamp ? signatureOfStats(stat) : undefined;
      } catch {
        signature = "-"; // missing: its hash ("-") or fact records that
      }
      this.#signatures.set(file, signature);
      return signature;
    };
    const hashed: [string, string, string][] = [];
    const factNames = new Set<string>();
    for (const input of inputs) {
      const file = this.fileOf(input);
      if (file === undefined) return inputs; // a module that is not a file: not cacheable
      if (file === built.exclude) continue;
      // Read, then stat: unchanged since the stamp means esbuild read these bytes.
      const hash = this.#hashInput(input);
      const signature = settled(file);
      if (signature === undefined) return inputs;
      hashed.push([input, hash, signature]);
      for (const fact of factsOf(this.#root, file)) factNames.add(fact);
    }
    const facts: (readonly [string, string])[] = [];
    for (const fact of [...factNames].sort()) {
      const hash = this.#fact(fact);
      const folder = fact.slice(fact.indexOf("\0") + 1);
      const watched = fact.startsWith("dir\0") ? [folder] : [path.join(folder, "package.json"), path.join(folder, "node_modules")];
      if (!watched.every((file) => settled(file) !== undefined)) return inputs;
      facts.push([fact, hash]);
    }
    const warnings = built.warnings.filter((warning) => warning.location && inputs.includes(locationKey(warning.location)));
    this.#used.set(name, {
      key,
      bytes: built.bytes,
      integrity: built.integrity,
      inputs: hashed,
      facts,
      warnings,
    });
    return inputs;
  }

  /** The absolute file of an esbuild input key, or `undefined` for a module that is not a file. */
  fileOf(input: string): string | undefined {
    const namespaced = /^([a-z][\w-]*):(.*)$/i.exec(input);
    if (!namespaced) return path.resolve(this.#root, input);
    return namespaced[1] === "assemblyline-text" || namespaced[1] === "assemblyline-bytes" ? path.resolve(this.#root, namespaced[2]!) : undefined;
  }

  /**
   * Writes the bundles this compile used, when they differ from what was read (atomically,
   * confined to the agent root — see {@link refusal}). Never throws; returns whether a file was written.
   */
  save(): boolean {
    if (this.#readOnly) return false;
    if (!this.#changed && this.#used.size === this.#stored.size) return false;
    const loaded = this.#loaded;
    if (loaded && loaded.segments < MAX_BUNDLE_SEGMENTS) {
      const changed = [...this.#used].filter(([name, bundle]) => this.#stored.get(name) !== bundle);
      const removed = [...this.#stored.keys()].filter((name) => !this.#used.has(name));
      if (changed.length === 0 && removed.length === 0) {
        this.#refusal = undefined;
        return false;
      }
      // Appended while the appended segments (and the bytes appended to the bytes file) stay under
      // half of the full state (with its bytes file); the whole cache otherwise.
      const size = changed.reduce((sum, [name, bundle]) => sum + name.length + bytesLength(bundle.bytes) + 64 * (bundle.inputs.length + bundle.facts.length), 0);
      const bytesGrowth = Math.max(0, (this.#bytesFile.size() ?? loaded.bytesSize) - loaded.bytesSize);
      if (loaded.identity.size - loaded.baseSize + bytesGrowth + size <= (loaded.baseSize + loaded.bytesSize) / 2) {
        const segment: Changes = { toolchain: this.#toolchain, changes: true, bundles: this.#appendBytes(changed), removed };
        const appended = appendSealedSegment(this.#root, this.#file, loaded.identity, segment);
        this.#refusal = appended.refusal;
        if (appended.appended) return true;
        if (appended.refusal) return false;
      }
    }
    const bytes = this.#writeBytes();
    const payload: Payload = { toolchain: this.#toolchain, bundles: [...this.#used].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), bytesSize: bytes.size };
    const result = writeSealedLog(this.#root, this.#file, BUNDLE_CACHE_MAGIC, payload);
    this.#refusal = result.refusal ?? bytes.refusal;
    return result.written;
  }

  /**
   * `changed` with its bundles' bytes appended to the bytes file and named by their offsets;
   * as it is when the append does not happen (no bytes file, refused, failed): the bytes then
   * stay in `bundles.bin`, which is as correct, only larger.
   */
  #appendBytes(changed: readonly (readonly [string, StoredBundle])[]): (readonly [string, StoredBundle])[] {
    const moved = changed.filter((pair): pair is readonly [string, StoredBundle & { bytes: Uint8Array }] => pair[1].bytes instanceof Uint8Array);
    if (moved.length === 0) return [...changed];
    const { at } = this.#bytesFile.append(moved.map(([, bundle]) => bundle.bytes));
    if (at === undefined) return [...changed];
    const refOf = new Map(moved.map(([name, bundle], i) => [name, { at: at[i]!, length: bundle.bytes.byteLength }]));
    return changed.map(([name, bundle]) => {
      const ref = refOf.get(name);
      return ref === undefined ? ([name, bundle] as const) : ([name, { ...bundle, bytes: ref }] as const);
    });
  }

  /**
   * Writes the bytes of the bundles this compile used to a new bytes file and names them in
   * {@link #used} by their offsets. Bytes named by offset are taken from the old file only when
   * their SHA-512 is the recorded SRI (nothing damaged is carried over); a bundle whose bytes are
   * gone is dropped (a miss next time). When the file is not written, the bytes stay in
   * `bundles.bin` itself. Returns the new file's size (0 when there is none) and a refusal.
   */
  #writeBytes(): { readonly size: number; readonly refusal?: WriteRefusal } {
    const names: string[] = [];
    const records: Uint8Array[] = [];
    for (const [name, bundle] of this.#used) {
      let bytes: Uint8Array | undefined;
      if (bundle.bytes instanceof Uint8Array) bytes = bundle.bytes;
      else {
        this.#bytesFile.readAll();
        bytes = this.#bytesFile.range(bundle.bytes.at, bundle.bytes.length);
        if (bytes !== undefined && bundleIntegrity(bytes) !== bundle.integrity) bytes = undefined;
      }
      if (bytes === undefined) {
        this.#used.delete(name);
        continue;
      }
      names.push(name);
      records.push(bytes);
    }
    const written = this.#bytesFile.writeAll(records);
    names.forEach((name, i) => {
      const at = written.at?.[i];
      this.#used.set(name, { ...this.#used.get(name)!, bytes: at === undefined ? records[i]! : { at, length: records[i]!.byteLength } });
    });
    return { size: written.at ? written.size! : 0, ...(written.refusal ? { refusal: written.refusal } : {}) };
  }

  /** Why the last {@link save} wrote nothing (a link out of the root, or a file where a folder is expected). */
  get refusal(): WriteRefusal | undefined {
    return this.#refusal;
  }

  /**
   * The content hash of an input. With the stat `signature` it had when `known` was computed
   * (it was then older than the build's stamp), an unchanged signature gives `known` without
   * reading the file (as Git trusts its index): any write since changes the change time.
   */
  #hashInput(input: string, signature?: string, known?: string): string {
    const file = this.fileOf(input);
    if (file === undefined) return "?";
    let hash = this.#hashes.get(file);
    if (hash === undefined && signature !== undefined && known !== undefined && signatureOf(file) === signature) {
      hash = known;
      this.#hashes.set(file, hash);
    }
    if (hash === undefined) {
      try {
        hash = digest(fs.readFileSync(file)).toString("base64url");
      } catch {
        hash = "-";
      }
      this.#hashes.set(file, hash);
    }
    return hash;
  }

  #fact(fact: string): string {
    let hash = this.#facts.get(fact);
    if (hash === undefined) {
      hash = computeFact(fact, (folder) => {
        if (!this.#listings.has(folder)) {
          const known = this.#knownListing?.(folder);
          this.#listings.set(folder, known ? listedFolder(known) : listFolder(folder));
        }
        return this.#listings.get(folder);
      });
      this.#facts.set(fact, hash);
    }
    return hash;
  }
}

/** The build key of one bundle: SHA-256 over the shared options key, its name and its root-relative definition. */
export function bundleBuildKey(optionsKey: string, name: string, definition: string): string {
  return sha256Text(`${optionsKey}\0${name}\0${definition}`);
}

/** `crypto.hash` (Node ≥ 20.12: one call, no `Hash` object, half the time of `createHash` for a short text), when there is one. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: "base64url") => string }).hash;

/** SHA-256 (base64url) of a short text's UTF-8 bytes. */
function sha256Text(text: string): string {
  return oneShotHash ? oneShotHash("sha256", text, "base64url") : createHash("sha256").update(text).digest("base64url");
}

/**
 * The options key of a build: the toolchain, the authoring API's bytes and the esbuild options
 * without what is specific to one machine or one set of entries (working directory, output
 * directory, entry points, the alias's absolute path, the plugin instances, named instead).
 */
export function buildOptionsKey(toolchain: string, coreFile: string, options: object): string {
  const { absWorkingDir: _a, outdir: _o, entryPoints: _e, alias, plugins, metafile: _m, ...rest } = options as Record<string, unknown>;
  let core: string;
  try {
    core = digest(fs.readFileSync(coreFile)).toString("base64url");
  } catch {
    core = "-";
  }
  const shown = {
    ...rest,
    alias: Object.keys((alias as Record<string, string> | undefined) ?? {}),
    plugins: ((plugins as { name: string }[] | undefined) ?? []).map((plugin) => plugin.name),
  };
  return createHash("sha256").update(`${toolchain}\0${core}\0${stableJson(shown)}`).digest("base64url");
}

/** The metafile keys of every module reachable from `entry` (itself included), sorted. */
export function reachableInputs(metafile: Metafile, entry: string): string[] {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const current = queue.pop()!;
    for (const imported of metafile.inputs[current]?.imports ?? []) {
      if (imported.external || seen.has(imported.path) || !(imported.path in metafile.inputs)) continue;
      seen.add(imported.path);
      queue.push(imported.path);
    }
  }
  return [...seen].sort();
}

/** The metafile key of a message location (`file`, or `namespace:file` outside the file namespace). */
export function locationKey(location: { file: string; namespace: string }): string {
  return location.namespace === "" || location.namespace === "file" ? location.file : `${location.namespace}:${location.file}`;
}

/**
 * Identifies the code that produces bundles: this package's `package.json` (its version), the
 * size and mtime of every compiled file of `packaging/` and of the authoring API, and the
 * installed esbuild's `package.json`. Cached per process.
 */
export function bundleToolchainKey(): string {
  if (cachedToolchain) return cachedToolchain;
  const hash = createHash("sha256");
  const here = path.dirname(fileURLToPath(import.meta.url));
  const files = [...listFilesRecursively(here), ...listFilesRecursively(path.join(path.dirname(here), "runtime-min", "authoring"))];
  try {
    files.push(path.join(path.dirname(createRequire(import.meta.url).resolve("esbuild")), "..", "package.json"));
  } catch {
    hash.update("\0missing:esbuild");
  }
  updateWithFileStats(hash, files);
  try {
    hash.update(fs.readFileSync(path.join(packageRoot(), "package.json")));
  } catch {
    hash.update("\0missing:package.json");
  }
  return (cachedToolchain = hash.digest("base64url"));
}

let cachedToolchain: string | undefined;

/**
 * The resolution facts of a file: `dir\0<folder>` (the folder's names) for its own folder, and
 * `pkg\0<folder>` (`package.json` bytes and whether `node_modules` exists) for it and every
 * folder above, up to the agent root (to the file system root for a file outside the agent).
 */
function factsOf(root: string, file: string): string[] {
  const folder = path.dirname(file);
  const facts = [`dir\0${folder}`];
  const inside = folder === root || folder.startsWith(root + path.sep);
  for (let current = folder; ; ) {
    facts.push(`pkg\0${current}`);
    if (inside && current === root) break;
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return facts;
}

/** A file's stat signature: size, modification and change time (ns), inode; `-` when missing. */
function signatureOf(file: string): string {
  try {
    const stat = fs.lstatSync(file, { bigint: true });
    return signatureOfStats(stat);
  } catch {
    return "-";
  }
}

/** A folder's entries (name and kind), sorted; `undefined` when it cannot be listed. */
function listFolder(folder: string): (readonly [string, string])[] | undefined {
  try {
    return fs
      .readdirSync(folder, { withFileTypes: true })
      .map((entry) => [entry.name, entry.isDirectory() ? "d" : entry.isSymbolicLink() ? "l" : "f"] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  } catch {
    return undefined;
  }
}

/** A listing the compile took (`BundleCacheOptions.knownListing`) as {@link listFolder} gives it: the same names, kinds and order. */
function listedFolder(entries: readonly DirectoryEntry[]): (readonly [string, string])[] {
  return entries
    .map((entry) => [entry.name, entry.kind === "directory" ? "d" : entry.kind === "symlink" ? "l" : "f"] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function computeFact(fact: string, list: (folder: string) => (readonly [string, string])[] | undefined): string {
  const [kind, folder] = fact.split("\0") as [string, string];
  const hash = createHash("sha256");
  const entries = list(folder);
  if (entries === undefined) return "-";
  if (kind === "dir") {
    for (const [name, type] of entries) hash.update(`${name}\0${type}\0`);
  } else {
    const names = new Set(entries.map(([name]) => name));
    if (names.has("package.json")) {
      try {
        hash.update(fs.readFileSync(path.join(folder, "package.json")));
      } catch {
        hash.update("\0unreadable package.json");
      }
    } else hash.update("\0no package.json");
    hash.update(names.has("node_modules") ? "\0node_modules" : "\0none");
  }
  return hash.digest("base64url");
}

/** The byte length of a stored bundle's bytes (held, or named by offset and length). */
function bytesLength(bytes: Uint8Array | BytesRef): number {
  return bytes instanceof Uint8Array ? bytes.byteLength : bytes.length;
}

function digest(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest();
}

/**
 * The bundles `file` holds when it is intact and written by this toolchain (its first segment
 * with each later segment's changes applied in order); else `undefined`.
 */
function readBundles(file: string, toolchain: string): LoadedBundles | undefined {
  const log = readSealedLog(file, BUNDLE_CACHE_MAGIC);
  const [first, ...rest] = log?.segments ?? [];
  if (!log || !isPayload(first) || first.toolchain !== toolchain) return undefined;
  const bundles = new Map(first.bundles);
  for (const segment of rest) {
    if (!isChanges(segment) || segment.toolchain !== toolchain) return undefined;
    for (const [name, bundle] of segment.bundles) bundles.set(name, bundle);
    for (const name of segment.removed) bundles.delete(name);
  }
  return { bundles, identity: log.identity, baseSize: log.ends[0]!, segments: log.segments.length, bytesSize: first.bytesSize ?? 0 };
}

/** Shape check of an appended segment. */
function isChanges(value: unknown): value is Changes {
  if (typeof value !== "object" || value === null) return false;
  const { toolchain, changes, bundles, removed } = value as Record<string, unknown>;
  return changes === true && isPayload({ toolchain, bundles }) && Array.isArray(removed) && removed.every((name) => typeof name === "string");
}

/** Shape check of a deserialized payload. */
function isPayload(value: unknown): value is Payload {
  if (typeof value !== "object" || value === null) return false;
  const { toolchain, bundles, bytesSize } = value as Record<string, unknown>;
  if (typeof toolchain !== "string" || !Array.isArray(bundles)) return false;
  if (bytesSize !== undefined && !(Number.isSafeInteger(bytesSize) && (bytesSize as number) >= 0)) return false;
  const tuples = (list: unknown, length: number): boolean =>
    Array.isArray(list) && list.every((item) => Array.isArray(item) && item.length === length && item.every((part) => typeof part === "string"));
  return bundles.every((item) => {
    if (!Array.isArray(item) || item.length !== 2 || typeof item[0] !== "string") return false;
    const stored = item[1] as Record<string, unknown> | null;
    return (
      typeof stored === "object" &&
      stored !== null &&
      typeof stored["key"] === "string" &&
      (stored["bytes"] instanceof Uint8Array || isBytesRef(stored["bytes"])) &&
      typeof stored["integrity"] === "string" &&
      tuples(stored["inputs"], 3) &&
      tuples(stored["facts"], 2) &&
      Array.isArray(stored["warnings"])
    );
  });
}

/** JSON with object keys sorted (RegExp and functions as their strings), for hashing options. */
function stableJson(value: unknown): string {
  if (value instanceof RegExp || typeof value === "function") return JSON.stringify(String(value));
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
