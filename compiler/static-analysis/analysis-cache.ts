/**
 * The persistent, content-addressed analysis cache of `compile` (like `tsc --incremental` or
 * `eslint --cache`): `<root>/.assemblyline/cache/analysis.bin` keeps, from one compile to the
 * next, the static analysis of every entry and definition module (a definition's only while its
 * plugin has no record of its own or is being edited: see {@link AnalysisCache.keep}), ajv's
 * verdict on every declared schema, each plugin folder's front-end results
 * (`../plugin-reuse.ts`), each `agent.md`'s parsed front matter (by its exact text) and values
 * a caller derived from bytes (by their SHA-256: what the previous `plugins.lock` gives a
 * compile, {@link AnalysisCache.derived}), so an unchanged agent is neither parsed nor compiled again.
 *
 * Correctness before speed:
 * - A result is reused only while every file its analysis read has the same content (a
 *   SHA-256 of the text, never an mtime), every file it probed is still missing, and every
 *   symlink resolves the same way; a schema verdict is keyed by a hash of the dialect and the
 *   schema's exact JSON text.
 * - The whole cache belongs to one toolchain ({@link toolchainKey}: this package's version and
 *   compiled files — from the CLI bundle, its folder and stubs —, the installed ts-morph, ajv,
 *   ajv-formats, jsonc-parser and yaml, Node's version);
 *   any other toolchain's cache is ignored.
 * - The file carries a SHA-256 of its payload; a truncated, corrupt or foreign file is
 *   ignored (and replaced on save), never a crash and never a wrong result.
 * - The file is a sealed log (`common/sealed-file.ts`): a full state, then the changes of each
 *   later compile appended as one segment each (after a one-file change, its few records rather
 *   than the whole 7.6 MB of the benchmark agent: issue 14 item 4). Each segment carries its own
 *   SHA-256; a torn append reads as a miss. When the appended segments outgrow half of the full
 *   state (or number {@link MAX_SEGMENTS}), or the file is not the one read, the whole state is
 *   written anew (a temporary file renamed over the old one, so a reader sees either). What a
 *   reader gets is what the last compile used, and the file holds at most about 1.5× that.
 *   Saving never throws: a read-only root just has no cache.
 */
import { typescriptModulePath } from "./typescript.js";
import type { WriteRefusal } from "../../common/confined-write.js";
import { createHash, randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { updateWithFileStats } from "../../common/file-stats-hash.js";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as v8 from "node:v8";
import { fileURLToPath } from "node:url";
import type { SourceLocation } from "../../diagnostics/diagnostic.js";
import type { DefinitionAnalysis, EntryAnalysis, ValueLocation } from "../model.js";
import { isLocationTable } from "../location-table.js";
import { packageRoot } from "../../common/package-root.js";
import type { SchemaVerdict, VerdictStore } from "../validation/schema-compiler.js";
import type { ContentFingerprint } from "./analysis-session.js";
import type { AnalysisKind, PersistentAnalyses } from "./static-analyzer.js";
import { appendSealedSegment, readSealedLog, sealLog, writeSealedLog, type SealedLogIdentity } from "../../common/sealed-file.js";
import { listFilesRecursively } from "../../common/list-files.js";
import { bundleStubs } from "../../common/bundle-stubs.js";
import { packProbes, unpackProbes } from "../../common/probe.js";
import type { PluginRecord, PluginResultStore } from "../plugin-reuse.js";
import type { FrontMatter, FrontMatterStore } from "../agent/front-matter.js";
import { createLineMap } from "../../common/positions.js";
import { ANALYSIS_ENTRIES_FILE, EntriesFile, isEntryRef, type EntryRef } from "./analysis-entries.js";

/** Where the cache lives, relative to the agent root. */
export const ANALYSIS_CACHE_FILE = path.join(".assemblyline", "cache", "analysis.bin");

/**
 * First bytes of a cache file of this format; then the segments of a sealed log
 * (`common/sealed-file.ts`): the first a {@link Payload} (`{ toolchain, records, verdicts,
 * plugins }`), each later one a {@link Changes} to apply to it, where each record is itself the
 * bytes of its own `v8.serialize`: a compile deserializes only the records it asks for (after a
 * one-file change, the changed plugin's), and carries the others over as bytes (issue 14 item 4).
 */
// 4: an evaluated entry's locations are a LocationTable (`../location-table.ts`) inside the record.
// 5: sealed-log segments keep their typed arrays' bytes after the structure (`common/sealed-file.ts`).
// 6: a plugin record's probes are packed (`common/probe.ts`); a first compile keeps no definition
//    records of the plugins it keeps records of.
// 7: an entry's record may be an {@link EntryRef} into `analysis-entries.bin` (`./analysis-entries.ts`).
export const ANALYSIS_CACHE_MAGIC = Buffer.from("assembly-line analysis cache 7\n", "utf8");

/**
 * A record as the state holds it: its bytes, or (an entry module's analysis) where they are in
 * the entries file, read when the analysis is asked for (`./analysis-entries.ts`).
 */
type StoredValue = Uint8Array | EntryRef;

/** Whether a record's key is an entry module's analysis (kept in the entries file). */
function isEntryKey(key: string): boolean {
  return key.startsWith("entry\0");
}

/** Appended segments after which the next save writes the whole state anew. */
export const MAX_SEGMENTS = 64;
const MAGIC = ANALYSIS_CACHE_MAGIC;

interface AnalysisRecord {
  readonly fingerprint: ContentFingerprint;
  readonly result: EntryAnalysis | DefinitionAnalysis;
}

/**
 * A record as stored: an entry's location table (`../location-table.ts`) stays in the result as
 * it is; an entry whose locations are a map (most of its size: a file name per location) has it
 * packed into numbers and one table of file names, and `result.entry.locations` is then `null`.
 */
interface StoredRecord extends AnalysisRecord {
  readonly locations?: PackedLocations;
}

/** A location map as a table of pointers, a table of files and ten numbers per location. */
interface PackedLocations {
  readonly pointers: readonly string[];
  readonly files: readonly string[];
  /** Per location: value file, line, column, end line, end column, then the same for the key; -1 when absent. */
  readonly numbers: Int32Array;
}

/** What the file holds after its header. */
interface Payload {
  readonly toolchain: string;
  /** Each record as the bytes of `v8.serialize(StoredRecord)`, or where they are in the entries file. */
  readonly records: readonly (readonly [string, StoredValue])[];
  readonly verdicts: readonly (readonly [string, SchemaVerdict])[];
  /** Each plugin folder's front-end results (`../plugin-reuse.ts`), as the bytes of `v8.serialize(PluginRecord)`. */
  readonly plugins?: readonly (readonly [string, Uint8Array])[];
  /** The entries file's size when it was written with this state (what its appends are counted from). */
  readonly entriesSize?: number;
}

/** An appended segment: what one compile changed in the state before it (set, then removed keys). */
interface Changes {
  readonly toolchain: string;
  readonly changes: true;
  readonly records: readonly (readonly [string, StoredValue])[];
  readonly verdicts: readonly (readonly [string, SchemaVerdict])[];
  readonly plugins: readonly (readonly [string, Uint8Array])[];
  readonly removed: { readonly records: readonly string[]; readonly verdicts: readonly string[]; readonly plugins: readonly string[] };
}

/** The state a sealed log holds, and where it was read (for appending to it). */
interface LoadedState {
  readonly payload: Payload;
  readonly identity: SealedLogIdentity;
  /** Length of the first segment's file prefix (magic and full state) and number of segments. */
  readonly baseSize: number;
  readonly segments: number;
}

/** The cache of one agent root for one compile: read once, consulted, saved once. */
export class AnalysisCache implements PersistentAnalyses, VerdictStore, PluginResultStore, FrontMatterStore {
  readonly #file: string;
  readonly #root: string;
  #refusal: WriteRefusal | undefined;
  readonly #toolchain: string;
  readonly #stored: ReadonlyMap<string, StoredValue>;
  /** The entries' analyses (`./analysis-entries.ts`), read a record at a time. */
  readonly #entries: EntriesFile;
  /** The entries file's size when the state read was written whole (0 without one). */
  readonly #entriesSize: number;
  readonly #storedVerdicts: ReadonlyMap<string, SchemaVerdict>;
  /** Stored records as handed out by {@link find}, unpacked once. */
  readonly #unpacked = new Map<string, AnalysisRecord>();
  /** What this compile used or produced: the next file's content. */
  readonly #used = new Map<string, StoredValue>();
  readonly #usedVerdicts = new Map<string, SchemaVerdict>();
  readonly #storedPlugins: ReadonlyMap<string, Uint8Array>;
  /** Stored plugin records as handed out by {@link findPlugin}, deserialized once. */
  readonly #foundPlugins = new Map<string, PluginRecord>();
  readonly #usedPlugins = new Map<string, Uint8Array>();
  /**
   * Definition records of plugin roots that had no stored plugin record, by root: held as
   * objects, not yet serialized, until the plugin's own record is kept ({@link keepPlugin}: then
   * they are dropped) or the cache is saved (then they are stored). See {@link keep}.
   */
  readonly #held = new Map<string, Map<string, AnalysisRecord | StoredValue>>();
  /** The plugin roots (resolved) that had a stored plugin record, made on first use. */
  #rootsWithRecord: ReadonlySet<string> | undefined;
  /** Where the keys of records and verdicts used are added while a plugin is worked on. */
  #trace: Set<string> | undefined;
  #changed: boolean;
  /** The file as read, when it held this toolchain's state (what a save may append to). */
  readonly #loaded: Omit<LoadedState, "payload"> | undefined;

  private constructor(root: string, file: string, toolchain: string, loaded: LoadedState | undefined) {
    const payload = loaded?.payload;
    this.#root = root;
    this.#file = file;
    this.#toolchain = toolchain;
    this.#loaded = loaded && { identity: loaded.identity, baseSize: loaded.baseSize, segments: loaded.segments };
    this.#stored = new Map(payload?.records ?? []);
    this.#entries = new EntriesFile(root);
    this.#entriesSize = typeof payload?.entriesSize === "number" ? payload.entriesSize : 0;
    this.#storedVerdicts = new Map(payload?.verdicts ?? []);
    this.#storedPlugins = new Map(storedPlugins(payload));
    this.#changed = payload === undefined;
  }

  /**
   * Reads the cache of the agent at `root` (absolute). Never throws: a missing, unreadable,
   * corrupt or foreign file gives an empty cache.
   */
  static load(root: string): AnalysisCache {
    const file = path.join(root, ANALYSIS_CACHE_FILE);
    const toolchain = toolchainKey();
    return new AnalysisCache(root, file, toolchain, readState(file, toolchain));
  }

  /** Number of stored analyses (of entry and definition modules), verdicts and plugin records that were read. */
  get size(): { readonly analyses: number; readonly verdicts: number; readonly plugins: number } {
    // Stored front matters ({@link frontMatter}) are no module's analysis: a cache holding only
    // them still makes a cold analysis (`build/compile.ts` decides by this count).
    // Nor are derived values ({@link derived}).
    let frontMatters = 0;
    for (const key of this.#stored.keys()) if (key.startsWith(`${FRONT_MATTER}\0`) || key.startsWith(`${DERIVED}\0`)) frontMatters++;
    return { analyses: this.#stored.size - frontMatters, verdicts: this.#storedVerdicts.size, plugins: this.#storedPlugins.size };
  }

  find(kind: AnalysisKind, file: string, pluginRoot: string): AnalysisRecord | undefined {
    const key = recordKey(kind, file, pluginRoot);
    const known = this.#unpacked.get(key);
    if (known) return known;
    const value = this.#stored.get(key);
    const bytes = value && this.#bytesOf(value);
    if (!bytes) return undefined;
    const stored = deserializeRecord(bytes);
    if (!stored) return undefined;
    const record = unpackRecord(stored);
    this.#unpacked.set(key, record);
    return record;
  }

  /**
   * Keeps an analysis for the next compile. A definition module's analysis of a plugin root
   * that had no stored plugin record (every plugin of a first compile) is held instead: when the
   * plugin's own record is kept ({@link keepPlugin}), which the next compile reuses wholesale
   * while the plugin is untouched, it is dropped; it is stored only when the plugin gets no
   * record (a file changed within the racy margin). A plugin whose stored record missed (it is
   * being edited) keeps its definitions' analyses, so that its next edit parses only the file
   * edited. A first compile thus neither serializes nor writes 2,000 records of the 200 × 10
   * agent it would never read (issue 14 item 1; docs/performance.md, "Fourteenth round"); the
   * cost moves to the first edit of each plugin, which parses its other definition modules again.
   */
  keep(kind: AnalysisKind, file: string, pluginRoot: string, fingerprint: ContentFingerprint, result: EntryAnalysis | DefinitionAnalysis): void {
    const key = recordKey(kind, file, pluginRoot);
    this.#trace?.add(`r:${key}`);
    const stored = this.#stored.get(key);
    const reused = stored !== undefined && this.#unpacked.get(key)?.result === result;
    if (!reused) this.#changed = true;
    if (kind === "definition" && !this.#hadPluginRecord(pluginRoot)) {
      // Held, as the stored bytes when the stored analysis was used (a plugin that had no record
      // last time, and may get one now: its definitions' records then go).
      let held = this.#held.get(pluginRoot);
      if (!held) this.#held.set(pluginRoot, (held = new Map()));
      held.set(key, reused ? stored : { fingerprint, result });
      this.#used.delete(key);
      return;
    }
    this.#used.set(key, reused ? stored : v8.serialize(packRecord({ fingerprint, result })));
  }

  /** Whether the cache read held a plugin record of the (resolved) plugin root `root`. */
  #hadPluginRecord(root: string): boolean {
    if (this.#storedPlugins.size === 0) return false;
    this.#rootsWithRecord ??= new Set([...this.#storedPlugins.keys()].map((dir) => path.resolve(dir)));
    return this.#rootsWithRecord.has(root);
  }

  /** Stores the held definition records ({@link keep}) of the plugins that got no record of their own. */
  #storeHeld(): void {
    for (const held of this.#held.values()) for (const [key, record] of held) this.#used.set(key, record instanceof Uint8Array || isEntryRef(record) ? record : v8.serialize(packRecord(record as AnalysisRecord)));
    this.#held.clear();
  }

  get(key: string): SchemaVerdict | undefined {
    const verdict = this.#usedVerdicts.get(key) ?? this.#storedVerdicts.get(key);
    if (verdict) {
      this.#usedVerdicts.set(key, verdict);
      this.#trace?.add(`v:${key}`);
    }
    return verdict;
  }

  set(key: string, verdict: SchemaVerdict): void {
    this.#usedVerdicts.set(key, verdict);
    this.#trace?.add(`v:${key}`);
    this.#changed = true;
  }

  hasPlugin(dir: string): boolean {
    return this.#foundPlugins.has(dir) || this.#storedPlugins.has(dir);
  }

  findPlugin(dir: string): { readonly record: PluginRecord; readonly entry: () => EntryAnalysis | undefined } | undefined {
    const record = this.#foundPlugins.get(dir) ?? this.#deserializePlugin(dir);
    if (!record) return undefined;
    const entryFile = record.entryFile;
    if (entryFile === undefined) return { record, entry: () => undefined };
    const root = path.resolve(dir);
    const read = (): EntryAnalysis | undefined => {
      const entry = this.find("entry", entryFile, root)?.result;
      return entry && "entry" in entry ? entry : undefined;
    };
    if (record.entryOutline === undefined) {
      const entry = read();
      return entry ? { record, entry: () => entry } : undefined;
    }
    // With its outline, the entry's analysis (about 17 KB of the benchmark agent's records) is
    // deserialized only when asked for; it must be there (the sealed file holds what was written).
    if (!this.#stored.has(recordKey("entry", entryFile, root)) && !this.#unpacked.has(recordKey("entry", entryFile, root))) return undefined;
    let entry: EntryAnalysis | undefined;
    let asked = false;
    return {
      record,
      entry: () => {
        if (!asked) [entry, asked] = [read(), true];
        return entry;
      },
    };
  }

  keepPlugin(dir: string, record: PluginRecord): void {
    const stored = this.#storedPlugins.get(dir);
    if (stored && this.#foundPlugins.get(dir) === record) {
      this.#usedPlugins.set(dir, stored);
      return;
    }
    this.#changed = true;
    try {
      this.#usedPlugins.set(dir, v8.serialize({ ...record, probes: packProbes(record.probes) }));
      // The plugin's record stands for its definitions' analyses from now on (see keep).
      this.#held.delete(path.resolve(dir));
    } catch {
      // A result that cannot be stored is worked on again next time.
      this.#usedPlugins.delete(dir);
    }
  }

  /**
   * The front matter of the `agent.md` at `file` with `text` (a function of the two alone,
   * `parseFrontMatter`): the one stored for that path when it was parsed from exactly that text
   * (its SHA-256), else `parse()`'s, stored for the next compile. Its line map is made anew (it
   * holds the text). After one definition changed, the benchmark agent's `agent.md` (200
   * capabilities) is then not parsed again: the YAML parser took 35–80 ms of the compile.
   */
  frontMatter(file: string, text: string, parse: () => FrontMatter): FrontMatter {
    const key = `${FRONT_MATTER}\0${file}`;
    const digest = createHash("sha256").update(text).digest("base64url");
    const stored = this.#inline(key);
    const kept = stored && storedFrontMatter(stored, digest);
    if (stored && kept) {
      this.#used.set(key, stored);
      return { ...kept, lineMap: createLineMap(file, text) };
    }
    const parsed = parse();
    this.#changed = true;
    try {
      const { located, bodyOffset, diagnostics } = parsed;
      this.#used.set(key, v8.serialize({ digest, located, bodyOffset, diagnostics } satisfies StoredFrontMatter));
    } catch {
      // Parsed again next time.
      this.#used.delete(key);
    }
    return parsed;
  }

  /**
   * A value a caller derived from bytes whose SHA-256 is `digest` (a function of those bytes
   * alone) and kept under `name` with {@link keepDerived}: that value when it was kept for exactly
   * this digest, else `undefined` (another digest, nothing kept, a record that does not
   * deserialize). A value found is kept for the next compile as it was read. The caller checks
   * the value's shape (one it cannot use is a miss, and it derives the value again). Used for the
   * previous `plugins.lock`'s reading (`build/lock-inputs.ts`).
   */
  derived(name: string, digest: string): unknown {
    const key = `${DERIVED}\0${name}`;
    const stored = this.#inline(key);
    const value = stored && deserializedObject(stored);
    if (!stored || !value || (value as { digest?: unknown }).digest !== digest) return undefined;
    this.#used.set(key, stored);
    return (value as { value?: unknown }).value;
  }

  /**
   * Keeps `value`, derived from bytes whose SHA-256 is `digest`, under `name` for the next compile
   * ({@link derived}), in place of what was kept under that name. A value V8 cannot serialize is not kept.
   */
  keepDerived(name: string, digest: string, value: unknown): void {
    const key = `${DERIVED}\0${name}`;
    try {
      const bytes = v8.serialize({ digest, value });
      const stored = this.#inline(key);
      if (!stored || !Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).equals(bytes)) this.#changed = true;
      this.#used.set(key, bytes);
    } catch {
      this.#used.delete(key);
    }
  }

  /** A stored value's bytes: held in the state, or read from the entries file (checked against its SHA-256; `undefined` when they are not there). */
  #bytesOf(value: StoredValue): Uint8Array | undefined {
    return value instanceof Uint8Array ? value : this.#entries.read(value);
  }

  /** The stored bytes under `key` when the state holds them itself (front matters, derived values: never in the entries file). */
  #inline(key: string): Uint8Array | undefined {
    const value = this.#stored.get(key);
    return value instanceof Uint8Array ? value : undefined;
  }

  /** The stored record of `dir` when its bytes deserialize to a record's shape; else `undefined` (a miss). */
  #deserializePlugin(dir: string): PluginRecord | undefined {
    const bytes = this.#storedPlugins.get(dir);
    if (!bytes) return undefined;
    const stored = deserializedObject(bytes);
    // Stored with its probes packed (`common/probe.ts`).
    if (stored === undefined) return undefined;
    const probes = unpackProbes((stored as { probes?: unknown }).probes);
    if (!probes) return undefined;
    const value: unknown = { ...stored, probes };
    if (!isPluginRecord(value)) return undefined;
    this.#foundPlugins.set(dir, value);
    return value;
  }

  #byRoot: Map<string, string[]> | undefined;

  /** The keys of the stored records of the plugin root `root`. */
  #recordsOf(root: string): readonly string[] {
    if (!this.#byRoot) {
      this.#byRoot = new Map();
      for (const key of this.#stored.keys()) {
        const of = key.slice(key.lastIndexOf("\0") + 1);
        const list = this.#byRoot.get(of);
        if (list) list.push(key);
        else this.#byRoot.set(of, [key]);
      }
    }
    return this.#byRoot.get(root) ?? [];
  }

  traceKeys(keys: Set<string> | undefined): Set<string> | undefined {
    const previous = this.#trace;
    this.#trace = keys;
    return previous;
  }

  retainKeys(dir: string, keys: readonly string[]): void {
    // Every analysis of the plugin's files (keyed by its root), and the records and verdicts traced while it was worked on.
    for (const key of this.#recordsOf(path.resolve(dir))) if (!this.#used.has(key)) this.#used.set(key, this.#stored.get(key)!);
    for (const key of keys) {
      if (key.startsWith("r:")) {
        const stored = this.#stored.get(key.slice(2));
        if (stored && !this.#used.has(key.slice(2))) this.#used.set(key.slice(2), stored);
      } else if (key.startsWith("v:")) {
        const verdict = this.#storedVerdicts.get(key.slice(2));
        if (verdict && !this.#usedVerdicts.has(key.slice(2))) this.#usedVerdicts.set(key.slice(2), verdict);
      }
    }
  }

  /**
   * Writes what this compile used, when it differs from what was read (atomically: temporary
   * file, then rename; never through a link out of the agent root nor into a file where a
   * folder is expected — see {@link refusal}). Never throws; returns whether a new file was
   * written.
   */
  save(): boolean {
    this.#storeHeld();
    const dropped = this.#used.size !== this.#stored.size || this.#usedVerdicts.size !== this.#storedVerdicts.size || this.#usedPlugins.size !== this.#storedPlugins.size;
    if (!this.#changed && !dropped) return false;
    const loaded = this.#loaded;
    if (loaded && loaded.segments < MAX_SEGMENTS) {
      const changes = this.#changes();
      // What was read is what this compile used (records rebuilt with the same bytes): nothing to write.
      if (changes.empty) {
        this.#refusal = undefined;
        return false;
      }
      // Appended while the appended segments (and the entries appended to the entries file) stay
      // under half of the full state (with its entries file); the whole state otherwise.
      const entriesGrowth = Math.max(0, (this.#entries.size() ?? this.#entriesSize) - this.#entriesSize);
      const appendedSoFar = loaded.identity.size - loaded.baseSize + entriesGrowth;
      if (appendedSoFar + changes.size <= (loaded.baseSize + this.#entriesSize) / 2) {
        const appended = appendSealedSegment(this.#root, this.#file, loaded.identity, this.#appendEntries(changes.segment));
        this.#refusal = appended.refusal;
        if (appended.appended) return true;
        if (appended.refusal) return false;
      }
    }
    const entries = this.#writeEntries();
    const payload: Payload = { toolchain: this.#toolchain, records: [...this.#used], verdicts: [...this.#usedVerdicts], plugins: [...this.#usedPlugins], entriesSize: entries.size };
    const result = writeSealedLog(this.#root, this.#file, MAGIC, payload);
    this.#refusal = result.refusal ?? entries.refusal;
    return result.written;
  }

  /**
   * `segment` with its new entries' analyses appended to the entries file and named by their
   * references; when the append does not happen (no entries file, refused, failed), as it is:
   * the bytes then stay in `analysis.bin`, which is as correct, only larger.
   */
  #appendEntries(segment: Changes): Changes {
    const moved = segment.records.filter((pair): pair is readonly [string, Uint8Array] => isEntryKey(pair[0]) && pair[1] instanceof Uint8Array);
    if (moved.length === 0) return segment;
    const { refs } = this.#entries.append(moved.map(([, bytes]) => bytes));
    if (!refs) return segment;
    const refOf = new Map(moved.map(([key], i) => [key, refs[i]!]));
    return { ...segment, records: segment.records.map(([key, value]) => [key, refOf.get(key) ?? value] as const) };
  }

  /**
   * Writes the entries' analyses this compile used to a new entries file (their bytes read from
   * the old one where they were there; one no longer there is dropped, a miss next time) and
   * names them in {@link #used} by their references. When the file is not written, their bytes
   * stay in the state itself. Returns the new file's size (0 when there is none) and a refusal.
   */
  #writeEntries(): { readonly size: number; readonly refusal?: WriteRefusal } {
    const keys: string[] = [];
    const records: Uint8Array[] = [];
    for (const [key, value] of this.#used) {
      if (!isEntryKey(key)) continue;
      if (!(value instanceof Uint8Array)) this.#entries.readAll();
      const bytes = this.#bytesOf(value);
      if (!bytes) {
        this.#used.delete(key);
        continue;
      }
      keys.push(key);
      records.push(bytes);
    }
    const written = this.#entries.writeAll(records);
    keys.forEach((key, i) => this.#used.set(key, written.refs?.[i] ?? records[i]!));
    return { size: written.refs ? written.size! : 0, ...(written.refusal ? { refusal: written.refusal } : {}) };
  }

  /**
   * What this compile changed in the state read, as a segment (a record rebuilt with the bytes it
   * was read as is no change), its approximate size in bytes, and whether it changes nothing.
   */
  #changes(): { readonly segment: Changes; readonly size: number; readonly empty: boolean } {
    let size = 0;
    const changed = <T>(used: ReadonlyMap<string, T>, stored: ReadonlyMap<string, T>): [string, T][] => {
      const list: [string, T][] = [];
      for (const [key, value] of used) {
        const before = stored.get(key);
        if (before === value || (before instanceof Uint8Array && value instanceof Uint8Array && Buffer.from(before.buffer, before.byteOffset, before.byteLength).equals(value))) continue;
        list.push([key, value]);
        size += key.length + (value instanceof Uint8Array ? value.byteLength : 256);
      }
      return list;
    };
    const removed = <T>(used: ReadonlyMap<string, T>, stored: ReadonlyMap<string, T>): string[] => [...stored.keys()].filter((key) => !used.has(key));
    const segment: Changes = {
      toolchain: this.#toolchain,
      changes: true,
      records: changed(this.#used, this.#stored),
      verdicts: changed(this.#usedVerdicts, this.#storedVerdicts),
      plugins: changed(this.#usedPlugins, this.#storedPlugins),
      removed: { records: removed(this.#used, this.#stored), verdicts: removed(this.#usedVerdicts, this.#storedVerdicts), plugins: removed(this.#usedPlugins, this.#storedPlugins) },
    };
    for (const list of Object.values(segment.removed)) for (const key of list) size += key.length;
    const empty = segment.records.length + segment.verdicts.length + segment.plugins.length + Object.values(segment.removed).reduce((sum, list) => sum + list.length, 0) === 0;
    return { segment, size, empty };
  }

  /** Why the last {@link save} wrote nothing (a link out of the root, or a file where a folder is expected). */
  get refusal(): WriteRefusal | undefined {
    return this.#refusal;
  }
}

/** A record as {@link packRecord} packs it (for the cache file and for the analysis worker's messages). */
export type PackedRecord = StoredRecord;

/**
 * Packs an analysis for storing or posting: an entry's location map (most of its size: a file
 * name per location) becomes a table of pointers, a table of files and numbers; a location
 * table (what the static analysis writes) is already that, and is left as it is. Undone by
 * {@link unpackRecord}.
 */
export function packRecord(record: AnalysisRecord): StoredRecord {
  const entry = "entry" in record.result ? record.result.entry : undefined;
  // A location table (every evaluated entry's) is already numbers: stored and posted as it is.
  const locations = entry && !isLocationTable(entry.locations) && packLocations(entry.locations);
  if (!entry || !locations) return record;
  const result = { ...record.result, entry: { ...entry, locations: null } } as unknown as EntryAnalysis;
  return { fingerprint: record.fingerprint, result, locations };
}

/** The analysis {@link packRecord} packed, equal to the original. */
export function unpackRecord(stored: StoredRecord): AnalysisRecord {
  const packed = stored.locations;
  if (!packed) return { fingerprint: stored.fingerprint, result: stored.result };
  const result = stored.result as EntryAnalysis;
  return { fingerprint: stored.fingerprint, result: { ...result, entry: { ...result.entry!, locations: unpackLocations(packed) } } };
}

const FIELDS_PER_LOCATION = 10;

/**
 * Packs a location map whose locations all have the shapes `locationOf` builds
 * (`{ file, line, column }` or with `endLine, endColumn`) and `{ value }` or `{ value, key }`;
 * `undefined` for anything else (the map is then stored as it is).
 */
function packLocations(locations: ReadonlyMap<string, ValueLocation>): PackedLocations | undefined {
  const pointers: string[] = [];
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const numbers = new Int32Array(locations.size * FIELDS_PER_LOCATION).fill(-1);
  let at = 0;
  // Checked without building strings, arrays or closures per location: an entry has hundreds
  // of locations, and the analysis worker packs every entry it posts (issue 14 item 1).
  const put = (location: SourceLocation | undefined, offset: number): boolean => {
    if (location === undefined) return true;
    const keys = Object.keys(location);
    const point = keys.length === 3 && keys[0] === "file" && keys[1] === "line" && keys[2] === "column";
    const span = keys.length === 5 && keys[0] === "file" && keys[1] === "line" && keys[2] === "column" && keys[3] === "endLine" && keys[4] === "endColumn";
    if (!point && !span) return false;
    if (!fitsPacked(location.line) || !fitsPacked(location.column) || !fitsPacked(location.endLine ?? 0) || !fitsPacked(location.endColumn ?? 0)) return false;
    let index = fileIndex.get(location.file);
    if (index === undefined) {
      index = files.push(location.file) - 1;
      fileIndex.set(location.file, index);
    }
    numbers[offset] = index;
    numbers[offset + 1] = location.line;
    numbers[offset + 2] = location.column;
    if (span) {
      numbers[offset + 3] = location.endLine!;
      numbers[offset + 4] = location.endColumn!;
    }
    return true;
  };
  for (const [pointer, location] of locations) {
    const keys = Object.keys(location);
    if (keys.length !== (location.key === undefined ? 1 : 2) || keys[0] !== "value") return undefined;
    if (!put(location.value, at) || !put(location.key, at + 5)) return undefined;
    pointers.push(pointer);
    at += FIELDS_PER_LOCATION;
  }
  return { pointers, files, numbers };
}

/** Whether a location's number can be packed: a non-negative 32-bit integer. */
function fitsPacked(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0x7fffffff;
}

function unpackLocations(packed: PackedLocations): Map<string, ValueLocation> {
  const { pointers, files, numbers } = packed;
  const location = (offset: number): SourceLocation => {
    const file = files[numbers[offset]!]!;
    const line = numbers[offset + 1]!;
    const column = numbers[offset + 2]!;
    const endLine = numbers[offset + 3]!;
    return endLine === -1 ? { file, line, column } : { file, line, column, endLine, endColumn: numbers[offset + 4]! };
  };
  const locations = new Map<string, ValueLocation>();
  for (let i = 0; i < pointers.length; i++) {
    const at = i * FIELDS_PER_LOCATION;
    locations.set(pointers[i]!, numbers[at + 5] === -1 ? { value: location(at) } : { value: location(at), key: location(at + 5) });
  }
  return locations;
}

/** What `v8.deserialize` makes of `bytes` when that is an object; `undefined` when it throws or gives anything else (a miss). */
function deserializedObject(bytes: Uint8Array): object | undefined {
  try {
    const value: unknown = v8.deserialize(bytes);
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** How the key of a stored front matter begins (then `\0` and the `agent.md`'s absolute path). */
const FRONT_MATTER = "front-matter";

/** How the key of a derived value begins (then `\0` and its name; {@link AnalysisCache.derived}). */
const DERIVED = "derived";

/** A front matter as stored: the SHA-256 (base64url) of the text it was parsed from, and what the parse gave but its line map. */
interface StoredFrontMatter extends Omit<FrontMatter, "lineMap"> {
  readonly digest: string;
}

/** The stored front matter in `bytes` when it was parsed from the text whose SHA-256 is `digest` and has its shape; else `undefined`. */
function storedFrontMatter(bytes: Uint8Array, digest: string): Omit<FrontMatter, "lineMap"> | undefined {
  const value = deserializedObject(bytes);
  if (value === undefined) return undefined;
  const { digest: storedDigest, located, bodyOffset, diagnostics } = value as Record<string, unknown>;
  if (storedDigest !== digest || typeof bodyOffset !== "number" || !Array.isArray(diagnostics)) return undefined;
  const fine = located === undefined || (typeof located === "object" && located !== null && (located as { locations?: unknown }).locations instanceof Map);
  return fine ? { located: located as FrontMatter["located"], bodyOffset, diagnostics: diagnostics as FrontMatter["diagnostics"] } : undefined;
}

function recordKey(kind: AnalysisKind, file: string, pluginRoot: string): string {
  return `${kind}\0${file}\0${pluginRoot}`;
}

/**
 * The state `file` holds when it is intact and written by this toolchain (its first segment
 * with each later segment's changes applied in order); else `undefined`.
 */
function readState(file: string, toolchain: string): LoadedState | undefined {
  const log = readSealedLog(file, MAGIC);
  const [first, ...rest] = log?.segments ?? [];
  if (!log || !isPayload(first) || first.toolchain !== toolchain) return undefined;
  const baseSize = log.ends[0]!;
  if (rest.length === 0) return { payload: first, identity: log.identity, baseSize, segments: 1 };
  const records = new Map(first.records);
  const verdicts = new Map(first.verdicts);
  const plugins = new Map(storedPlugins(first));
  for (const segment of rest) {
    if (!isChanges(segment) || segment.toolchain !== toolchain) return undefined;
    for (const [key, bytes] of segment.records) records.set(key, bytes);
    for (const [key, verdict] of segment.verdicts) verdicts.set(key, verdict);
    for (const [key, bytes] of segment.plugins) plugins.set(key, bytes);
    for (const key of segment.removed.records) records.delete(key);
    for (const key of segment.removed.verdicts) verdicts.delete(key);
    for (const key of segment.removed.plugins) plugins.delete(key);
  }
  const payload: Payload = { toolchain, records: [...records], verdicts: [...verdicts], plugins: [...plugins], ...(first.entriesSize === undefined ? {} : { entriesSize: first.entriesSize }) };
  return { payload, identity: log.identity, baseSize, segments: log.segments.length };
}

/** The plugin records of a payload that have a stored record's shape (a folder and bytes); the others are left out (worked on again). */
function storedPlugins(payload: Payload | undefined): (readonly [string, Uint8Array])[] {
  const plugins: unknown = payload?.plugins;
  return Array.isArray(plugins) ? plugins.filter((item): item is [string, Uint8Array] => Array.isArray(item) && item.length === 2 && typeof item[0] === "string" && item[1] instanceof Uint8Array) : [];
}

/**
 * The state the analysis cache file `file` holds (every segment applied), for tests that
 * inspect or damage it, with every record's bytes (an entry's read from the entries file beside
 * it; one that is not there left out); `undefined` when it reads as a miss.
 */
export function readAnalysisCacheState(file: string): (Omit<Payload, "records"> & { readonly records: readonly (readonly [string, Uint8Array])[] }) | undefined {
  const log = readSealedLog(file, MAGIC);
  const toolchain = log && isPayload(log.segments[0]) ? log.segments[0].toolchain : undefined;
  const payload = toolchain === undefined ? undefined : readState(file, toolchain)?.payload;
  if (!payload) return undefined;
  const entries = new EntriesFile(path.dirname(path.dirname(path.dirname(file))), path.join(path.dirname(file), path.basename(ANALYSIS_ENTRIES_FILE)));
  const records: (readonly [string, Uint8Array])[] = [];
  for (const [key, value] of payload.records) {
    const bytes = value instanceof Uint8Array ? value : entries.read(value);
    if (bytes) records.push([key, bytes]);
  }
  return { toolchain: payload.toolchain, records, verdicts: payload.verdicts, ...(payload.plugins ? { plugins: payload.plugins } : {}) };
}

/** The bytes of an analysis cache file holding `payload` as one full state (for tests that write a damaged one). */
export function sealAnalysisCache(payload: unknown): Buffer {
  return sealLog(MAGIC, payload);
}

/** Shape check of an appended segment (the digest already proved it is what we wrote). */
function isChanges(value: unknown): value is Changes {
  if (typeof value !== "object" || value === null) return false;
  const { toolchain, changes, records, verdicts, plugins, removed } = value as Record<string, unknown>;
  const bytesPairs = (list: unknown): boolean => Array.isArray(list) && list.every((item) => Array.isArray(item) && item.length === 2 && typeof item[0] === "string" && item[1] instanceof Uint8Array);
  const objectPairs = (list: unknown): boolean => Array.isArray(list) && list.every((item) => Array.isArray(item) && item.length === 2 && typeof item[0] === "string" && typeof item[1] === "object" && item[1] !== null);
  const keys = (list: unknown): boolean => Array.isArray(list) && list.every((key) => typeof key === "string");
  if (typeof toolchain !== "string" || changes !== true || !recordPairs(records) || !objectPairs(verdicts) || !bytesPairs(plugins)) return false;
  if (typeof removed !== "object" || removed === null) return false;
  const gone = removed as Record<string, unknown>;
  return keys(gone["records"]) && keys(gone["verdicts"]) && keys(gone["plugins"]);
}

/**
 * Shape check of one stored plugin record (the digest already proved it is what we wrote; a
 * record of another shape is left out, so its plugin is worked on again).
 */
function isPluginRecord(value: unknown): value is PluginRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  const object = (field: unknown): field is Record<string, unknown> => typeof field === "object" && field !== null;
  return (
    typeof record["startedAt"] === "number" &&
    Array.isArray(record["probes"]) &&
    (record["probes"] as unknown[]).every((probe) => object(probe) && typeof probe["path"] === "string" && typeof probe["op"] === "string") &&
    object(record["pluginPackage"]) &&
    object(record["hash"]) &&
    (record["entryFile"] === undefined || typeof record["entryFile"] === "string") &&
    (record["entryOutline"] === undefined ||
      (object(record["entryOutline"]) && typeof record["entryOutline"]["hasValue"] === "boolean" && Array.isArray(record["entryOutline"]["diagnostics"]))) &&
    Array.isArray(record["validated"]) &&
    (record["validated"] as unknown[]).every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string" && object(pair[1])) &&
    Array.isArray(record["keys"]) &&
    (record["keys"] as unknown[]).every((key) => typeof key === "string")
  );
}

/** Shape check of a deserialized payload (the digest already proved it is what we wrote). */
function isPayload(value: unknown): value is Payload {
  if (typeof value !== "object" || value === null) return false;
  const { toolchain, records, verdicts } = value as Record<string, unknown>;
  const pairs = (list: unknown): list is [string, Record<string, unknown>][] =>
    Array.isArray(list) && list.every((item) => Array.isArray(item) && item.length === 2 && typeof item[0] === "string" && typeof item[1] === "object" && item[1] !== null);
  if (typeof toolchain !== "string" || !pairs(verdicts)) return false;
  const entriesSize = (value as Record<string, unknown>)["entriesSize"];
  return recordPairs(records) && (entriesSize === undefined || Number.isSafeInteger(entriesSize));
}

/** Whether `list` is a state's records: key and bytes, or (an entry's analysis) key and {@link EntryRef}. */
function recordPairs(list: unknown): boolean {
  return Array.isArray(list) && list.every((item) => Array.isArray(item) && item.length === 2 && typeof item[0] === "string" && (item[1] instanceof Uint8Array || (isEntryKey(item[0]) && isEntryRef(item[1]))));
}

/** A stored record from its bytes, when they deserialize to a record's shape; else `undefined` (a miss). */
function deserializeRecord(bytes: Uint8Array): StoredRecord | undefined {
  let record: Record<string, unknown>;
  try {
    record = v8.deserialize(bytes) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof record !== "object" || record === null) return undefined;
  if (!Array.isArray(record["fingerprint"]) || typeof record["result"] !== "object" || record["result"] === null) return undefined;
  const packed = record["locations"] as Record<string, unknown> | undefined;
  const fine = packed === undefined || (Array.isArray(packed["pointers"]) && Array.isArray(packed["files"]) && packed["numbers"] instanceof Int32Array);
  return fine ? (record as unknown as StoredRecord) : undefined;
}

let cachedToolchain: string | undefined;

/**
 * Identifies the code that produced the results: Node's version, and the size and mtime of
 * this package's package.json (its version), of every file of the front end and the layers
 * below it (`compiler/`, `contract/`, `diagnostics/`, `common/`: any rebuild or edit changes it)
 * and of the entry files of the libraries the results depend on (`yaml` for the front matters).
 * Run from the CLI bundle through its own stubs (`common/bundle-stubs.ts`), the code that runs
 * is the bundle's folder and the stubs, so those stand for the layers, as in the inputs record
 * (`cli/inputs-record.ts`): about 15–25 ms of every compile that analyses less (the ~200 files of
 * the layers in `dist/` listed and `stat`ed; docs/performance.md, "The test suite's budget").
 */
export function toolchainKey(): string {
  if (cachedToolchain) return cachedToolchain;
  const hash = createHash("sha256").update(process.version);
  const here = path.dirname(fileURLToPath(import.meta.url));
  const layersRoot = path.dirname(path.dirname(here));
  const require = createRequire(import.meta.url);
  const stubs = bundleStubs(layersRoot);
  const files = stubs
    ? [...listFilesRecursively(path.join(layersRoot, "cli-bundle")), ...stubs]
    : ["compiler", "contract", "diagnostics", "common"].flatMap((layer) => listFilesRecursively(path.join(layersRoot, layer)));
  for (const name of ["ts-morph", "ajv", "ajv-formats", "jsonc-parser", "yaml"]) {
    try {
      files.push(require.resolve(name));
    } catch {
      hash.update(`\0missing:${name}`);
    }
  }
  try {
    files.push(typescriptModulePath()); // the parser the analysis loads (`typescript.ts`)
  } catch {
    hash.update("\0missing:typescript");
  }
  files.push(path.join(packageRoot(), "package.json"));
  updateWithFileStats(hash, files);
  return (cachedToolchain = hash.digest("base64url"));
}

