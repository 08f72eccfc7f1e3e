/**
 * Reuse of an untouched plugin's front-end results, wholesale (issue 14 item 4: "a one-file
 * change ≤ 0.3× a cold compile"). After one file changed, the front end used to read, hash,
 * check and validate the other 199 plugins of the benchmark agent again only to find what the
 * last compile found; now each plugin's results — its package (plugin.json, components), its
 * entry's analysis, its validated tools per capability key and its folder's content hash — are
 * kept with every probe the work on that plugin made through the host, and are taken as they
 * are when every probe still gets the same answer.
 *
 * Correctness before speed (the rules of the compile record, `cli/compile-record.ts`, per plugin):
 * - A probe is a question asked of the host while the plugin was being worked on: a file's text
 *   or bytes (with the file's `stat`), a folder's listing, a `kind` or `realpath` probe
 *   (`common/probes.ts`). Listings, kinds and real paths are asked again. A file read holds only
 *   when its `stat` (size, mtime, ctime, inode) is the recorded one and neither time is within
 *   {@link RACY_MARGIN_MS} before the recording compile started (Git's "racily clean" rule); a
 *   file whose `stat` moved (even a `touch`) makes the plugin's work run again, which records it
 *   anew. A file that was missing (or a folder) is asked again.
 * - What the results also depend on is part of the key: the capability keys the agent gives the
 *   plugin (the validated tools carry their capability), the toolchain (the results live in the
 *   analysis cache, which belongs to one toolchain: `toolchainKey` in
 *   `static-analysis/analysis-cache.ts`). What depends on the agent — config merge, collisions
 *   across plugins — always runs, on the reused results.
 * - Only a host that reads the disk may trust `stat` (the caller decides: `build/compile.ts`).
 *   The reused plugin's probes are handed to the host's `replay` (a recording host keeps them as
 *   if asked), so the inputs record and the compile record stay complete.
 * - Anything unexpected while checking a stored plugin is a miss: the plugin is worked on again.
 */
import type { CompilerHost } from "../common/host.js";
import { probeHolds, probingHost, ProbeSet, RACY_MARGIN_MS, statHolds, type FileStat, type Probe } from "../common/probes.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { EntryAnalysis, PluginPackage } from "./model.js";
import type { PluginDirectoryHash } from "./plugin-package/hash-plugin-directory.js";
import type { ValidatedPlugin } from "./validation/validate-plugin.js";
import { misspeltEntryFields } from "./validation/entry-shape.js";

export { RACY_MARGIN_MS };

/** One plugin folder's front-end results as kept between compiles, with what they depend on. */
export interface PluginRecord {
  /** `Date.now()` when the compile that made the record started (before its first probe). */
  readonly startedAt: number;
  /** Every probe the plugin's work made, each path once per operation. */
  readonly probes: readonly Probe[];
  readonly pluginPackage: PluginPackage;
  /** The analysed entry (absolute; its analysis is the analysis cache's record), when there was one. */
  readonly entryFile: string | undefined;
  readonly hash: PluginDirectoryHash;
  /** Validation per capability key ({@link validatedKey}). */
  readonly validated: readonly (readonly [string, ValidatedPlugin])[];
  /** Keys of the analysis cache's records and verdicts the work used (kept with the plugin). */
  readonly keys: readonly string[];
  /**
   * What a compile needs of the entry's analysis while it reuses the plugin ({@link EntryOutline}),
   * so that the analysis itself is deserialized only when asked for; absent without an entry
   * (and in records made before it existed: their entry's analysis is read at once, as before).
   */
  readonly entryOutline?: EntryOutline;
}

/**
 * Of an entry's analysis, what a compile reads while it reuses the plugin: whether the entry
 * gave a value (`EntryAnalysis.entry`) and its diagnostics (reported, and telling whether the
 * configSchema is known: `configSchemaKnown` in `./analyze-agent.ts`). The analysis itself
 * (17 KB of located values per plugin of the benchmark agent) is read only by `--target`'s
 * checks, where they locate a finding (docs/performance.md, "Incremental compiles with
 * packaging", ninth round).
 */
export interface EntryOutline {
  readonly hasValue: boolean;
  readonly diagnostics: readonly Diagnostic[];
  /** True when the entry writes `configSchema` misspelt (`configschema`: its AL4001 is the one mistake; `configSchemaKnown`). */
  readonly configSchemaMisspelt: boolean;
}

/** The {@link EntryOutline} of an entry's analysis. */
export function entryOutline(entry: EntryAnalysis): EntryOutline {
  return { hasValue: entry.entry !== undefined, diagnostics: entry.diagnostics, configSchemaMisspelt: entry.entry !== undefined && misspeltEntryFields(entry.entry.value).has("configSchema") };
}

/** Where plugin records are kept between compiles (the analysis cache, `static-analysis/analysis-cache.ts`). */
export interface PluginResultStore {
  /**
   * The stored record of the folder `dir` and its entry's analysis, deserialized when `entry` is
   * first called when the record has an {@link EntryOutline} (at once otherwise); `undefined` when
   * none (or its entry's analysis is gone).
   */
  findPlugin(dir: string): { readonly record: PluginRecord; readonly entry: () => EntryAnalysis | undefined } | undefined;
  /** Whether a record of the folder `dir` is stored (without reading it). */
  hasPlugin(dir: string): boolean;
  /** Keeps `record` for the next compile (the record as found, when reused). */
  keepPlugin(dir: string, record: PluginRecord): void;
  /** Sets where the keys of the records and verdicts used from now on are added; returns the previous set. */
  traceKeys(keys: Set<string> | undefined): Set<string> | undefined;
  /** Keeps the analyses of the plugin folder `dir`'s files and the records and verdicts named by `keys` (a reused plugin's) for the next compile. */
  retainKeys(dir: string, keys: readonly string[]): void;
}

/** A reused plugin's results, as {@link PluginReuse.reuse} hands them out. */
export interface ReusedPlugin {
  readonly pluginPackage: PluginPackage;
  /** Its entry's analysis (read from the store when first called, {@link PluginResultStore.findPlugin}). */
  readonly entry: () => EntryAnalysis | undefined;
  /** What the compile reads of it, when the record keeps that apart (else read `entry()`). */
  readonly entryOutline: EntryOutline | undefined;
  readonly hash: PluginDirectoryHash;
  readonly validated: ReadonlyMap<string, ValidatedPlugin>;
}

/**
 * The key of a plugin's validation for one capability: its capability key, and where the
 * agent requests it when validation reports at that place (a rejected package, no entry).
 */
export function validatedKey(key: string, location: unknown, pluginPackage: PluginPackage, hasEntry: boolean): string {
  return pluginPackage.rejected || !hasEntry ? `${key}\0${JSON.stringify(location)}` : key;
}

/**
 * The front end's view of reuse for one compile: {@link host} (the front end reads through it)
 * collects the probes made while a plugin is worked on ({@link within}); {@link reuse} checks a
 * stored plugin; {@link record} keeps a fresh one.
 */
export class PluginReuse {
  /** The host the front end (and its static analyzer) must read through. */
  readonly host: CompilerHost;
  readonly #base: CompilerHost;
  readonly #store: PluginResultStore;
  readonly #startedAt = Date.now();
  readonly #probes = new Map<string, ProbeSet>();
  readonly #keys = new Map<string, Set<string>>();
  #current: ProbeSet | undefined;
  readonly #verified = new Map<string, string>();
  #reused = 0;
  #recorded = 0;

  /**
   * @param base the compile's host; it must read the disk (a stored `stat` is compared with the disk's).
   * @param store where records are kept.
   */
  constructor(base: CompilerHost, store: PluginResultStore) {
    this.#base = base;
    this.#store = store;
    const keep = (probe: Probe): void => {
      this.#current?.add(probe);
    };
    this.host = {
      ...probingHost(base, keep),
      ...(base.replay ? { replay: (probes: readonly Probe[]) => base.replay!(probes) } : {}),
    };
  }

  /** How many plugins were reused and recorded fresh (for tests and benchmarks). */
  get counts(): { readonly reused: number; readonly recorded: number } {
    return { reused: this.#reused, recorded: this.#recorded };
  }

  /**
   * The files of the plugins reused so far whose bytes this compile proved unchanged by their
   * `stat` (the racily-clean rule above): absolute path → SHA-256 (base64url) of those bytes, the
   * digest the bundle cache keeps of a module esbuild read (`packaging/bundle-cache.ts`), which
   * then need not `lstat` them again (docs/performance.md, "Incremental compiles with packaging",
   * ninth round).
   */
  get verifiedContent(): ReadonlyMap<string, string> {
    return this.#verified;
  }

  /** Runs `work` on the plugin folder `dir`: the probes it makes, and the cache keys it uses, are `dir`'s. */
  within<T>(dir: string, work: () => T): T {
    const outer = this.#current;
    let probes = this.#probes.get(dir);
    if (!probes) this.#probes.set(dir, (probes = new ProbeSet()));
    let keys = this.#keys.get(dir);
    if (!keys) this.#keys.set(dir, (keys = new Set()));
    this.#current = probes;
    const outerKeys = this.#store.traceKeys(keys);
    try {
      return work();
    } finally {
      this.#current = outer;
      this.#store.traceKeys(outerKeys);
    }
  }

  /** Whether the store holds a record of the folder `dir`: {@link reuse} may then find it (nothing is checked or read). */
  hasRecord(dir: string): boolean {
    return this.#store.hasPlugin(dir);
  }

  /**
   * The stored results of the folder `dir` when every probe of its record still holds and it
   * holds a validation for each of the keys `keysOf` gives for it; else `undefined` (the caller
   * works on the plugin). A reused plugin's probes are replayed into the host and its record,
   * records and verdicts are kept for the next compile. Never throws.
   */
  reuse(dir: string, keysOf: (pluginPackage: PluginPackage, hasEntry: boolean) => readonly string[]): ReusedPlugin | undefined {
    try {
      const found = this.#store.findPlugin(dir);
      if (!found) return undefined;
      const { record, entry } = found;
      const validated = new Map(record.validated);
      // The store found the entry's analysis when the record names one.
      if (!keysOf(record.pluginPackage, record.entryFile !== undefined).every((key) => validated.has(key))) return undefined;
      const trustedBefore = record.startedAt - RACY_MARGIN_MS;
      // A file that was read must hold by its `stat`: one that moved is worked on again (and
      // recorded anew). Files first (an edit is found by one `stat`), then everything else.
      // One `lstat` per path answers all its reads (text and bytes share the recorded `stat`)
      // and, when the path is no link, its `kind` probe too ("file"); a linked file is asked by
      // `stat` and its `kind` ("symlink") asked as recorded.
      const checked = new Set<Probe>();
      const heldAsFile = new Set<string>();
      const statOfPath = new Map<string, FileStat>();
      for (const probe of record.probes) {
        if ((probe.op !== "read" && probe.op !== "bytes") || probe.stat === undefined) continue;
        const earlier = statOfPath.get(probe.path);
        if (earlier === undefined) {
          if (statHolds(probe.path, probe.stat, trustedBefore, { noLink: true })) heldAsFile.add(probe.path);
          else if (!statHolds(probe.path, probe.stat, trustedBefore)) return undefined;
          statOfPath.set(probe.path, probe.stat);
        } else if (!sameStat(earlier, probe.stat)) return undefined;
        checked.add(probe);
      }
      for (const probe of record.probes) {
        if (checked.has(probe) || (probe.op === "kind" && probe.answer === "file" && heldAsFile.has(probe.path))) continue;
        if (!probeHolds(this.#base, probe, trustedBefore)) return undefined;
      }
      // Every file read held by its `stat`: a bytes read's answer is the digest of the bytes now.
      for (const probe of checked) if (probe.op === "bytes" && probe.answer.startsWith(BYTES_DIGEST)) this.#verified.set(probe.path, probe.answer.slice(BYTES_DIGEST.length));
      this.#base.replay?.(record.probes);
      this.#store.retainKeys(dir, record.keys);
      this.#store.keepPlugin(dir, record);
      this.#reused++;
      return { pluginPackage: record.pluginPackage, entry, entryOutline: record.entryOutline, hash: record.hash, validated };
    } catch {
      return undefined;
    }
  }

  /**
   * Keeps the fresh results of the folder `dir`, worked on {@link within} it, for the next
   * compile — unless a file it read changed within the racy margin before this compile started
   * (the record could never be trusted; the next compile works on the plugin again).
   */
  record(dir: string, results: { readonly pluginPackage: PluginPackage; readonly entry: EntryAnalysis | undefined; readonly hash: PluginDirectoryHash; readonly validated: ReadonlyMap<string, ValidatedPlugin> }): void {
    const probes = this.#probes.get(dir);
    if (!probes) return;
    // A file changed within the racy margin before this compile started can never be trusted by
    // its `stat` against this record: such a record would never be reused, so none is kept.
    const trustedBefore = this.#startedAt - RACY_MARGIN_MS;
    const made = probes.values();
    for (const probe of made) if ("stat" in probe && probe.stat && !(probe.stat.mtimeMs < trustedBefore && probe.stat.ctimeMs < trustedBefore)) return;
    const entry = results.entry;
    this.#store.keepPlugin(dir, {
      startedAt: this.#startedAt,
      probes: made,
      pluginPackage: results.pluginPackage,
      entryFile: entry?.file,
      hash: results.hash,
      validated: [...results.validated],
      keys: [...(this.#keys.get(dir) ?? [])],
      ...(entry ? { entryOutline: entryOutline(entry) } : {}),
    });
    this.#recorded++;
  }
}

/** How a bytes read's answer begins when the path was a file: then the SHA-256 of its bytes (`bytesAnswer`, `common/probes.ts`). */
const BYTES_DIGEST = "file:";

/** True when two recorded `stat`s are the same. */
function sameStat(a: FileStat, b: FileStat): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}
