/**
 * The compile record: `compile`'s up-to-date check (issue 14 item 4), as `tsc -b` or make have
 * one. A compile that succeeds (and either leaves `plugins.lock` as it was, or wrote one that a
 * compile would read to the same effect: `rereadsAlike` in `build/lock-inputs.ts`) writes
 * `<root>/.assemblyline/cache/compile.bin`: every input it read (the inputs record's probes,
 * `./inputs-record.ts`, plus every module and asset esbuild read and the folders that decided
 * how their imports resolved), every file of the artifact it left (with the SHA-256 of the
 * bytes the compile wrote and a stat signature), the options it ran with, and what it reported.
 * The next `compile` with the same options asks every probe again ({@link replayCompile}); when
 * every answer is the same and the artifact on disk is still the one recorded, a compile would
 * read the same bytes, compute the same lock (the one on disk, which it read) and the same
 * artifact (the one on disk), and report the same diagnostics (with `lockChanged: false`), so the command prints the
 * recorded report instead of compiling — the same bytes on stdout and stderr, the same exit code.
 *
 * Anything not provably unchanged runs the compile:
 * - another toolchain (Node's version, any file of this package's compiled layers, `schemas/`,
 *   the installed dependencies: `toolchainIdentity(true)`), another root, other compile options
 *   (flags and project configuration as they resolve: `--out`, `--no-package`, `--target`,
 *   `--token-budget`, `--max-warnings`, `rules`, the install command hints name) or another
 *   working directory (hints name the root as typed) or another command prefix (hints start with
 *   it: `../common/cli-command.ts`);
 * - a file read whose stat signature moved and whose content hash differs, or that was changed
 *   within two seconds before the recording started and now hashes differently (racy, as Git
 *   says); a file that was missing and exists; a folder listing that differs (a plugin folder
 *   added, a new `x.tsx` beside `x.ts`); a `package.json` or `node_modules` appearing on the way
 *   up from an imported module;
 * - an artifact file whose signature moved and whose bytes differ from what the compile wrote,
 *   or that is missing.
 * The record is not used by `--check` (it writes nothing and reports against the lock), `--no-cache`
 * (no cache read or written), `--watch` (it keeps its own state) or a compile with errors.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as v8 from "node:v8";
import type { CompileOptions, CompileResult } from "../build/compile.js";
import { checkWriteTarget, writeFileConfined } from "../common/confined-write.js";
import { createNodeHost, type CompilerHost } from "../common/host.js";
import { readSealedLog, writeSealedLog } from "../common/sealed-file.js";
import { fileHolds } from "../common/file-holds.js";
import { signatureOfStats, statSignature } from "../common/file-stats-hash.js";
import type { KnownArtifactFiles } from "../build/compile.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { bundleIntegrity } from "../packaging/integrity.js";
import { bundleSize, bytesInMemory, integrityOfBundle, type BundleBytes } from "../packaging/bundle-bytes.js";
import { summaryCounts } from "./compile-report.js";
import { BUDGET_TOKENS_CACHE_FILE } from "../build/token-count-cache.js";
import { bytesAnswer, listAnswer, probeHolds, RACY_MARGIN_MS, toolchainIdentity, type Probe, type RecordingHost } from "./inputs-record.js";
import { fileStatOf, newestFileProbe, packProbes, unpackProbes, type PackedProbes } from "../common/probe.js";
import { ProbeSet } from "../common/probes.js";
import { cliCommandPrefix } from "../common/cli-command.js";

/** Where the record lives, relative to the agent root. */
export const COMPILE_RECORD_FILE = path.join(".assemblyline", "cache", "compile.bin");

/** The stamp whose modification time dates the artifact's stat signatures (the file system's own clock). */
const STAMP_FILE = path.join(".assemblyline", "cache", "compile.stamp");

/**
 * First bytes of a record of this format: a sealed log of one segment (`common/sealed-file.ts`),
 * so that the 2 MB of packed probes' bytes are written and read as they are, without the copies
 * `v8.serialize` and `v8.deserialize` make of a typed array (docs/performance.md, "Incremental
 * compiles with packaging", twelfth round).
 */
// 2: the probes are packed (`common/probe.ts`). 3: the packed probes are bytes of their own, the newest file probe apart. 4: a sealed log.
export const COMPILE_RECORD_MAGIC = Buffer.from("assembly-line compile record 4\n", "utf8");

/** An answer no probe ever gives: the file may have changed while the compile read it. */
const UNSETTLED = "unsettled";

/** What a compile reported, as {@link replayCompile} gives it back. */
export interface RecordedOutcome {
  /** The diagnostics as reported (sorted, relative; warnings and infos only: the compile succeeded). */
  readonly diagnostics: readonly Diagnostic[];
  /** The lock's path relative to the root. */
  readonly lockfile: string;
  /** The artifact directory relative to the root, or `null` without packaging. */
  readonly artifact: string | null;
  /** Surfaces and tools, as the pretty summary counts them. */
  readonly surfaces: number;
  readonly tools: number;
}

/** One artifact file: absolute path, SRI (SHA-512) of the bytes the compile wrote, stat signature when settled. */
type ArtifactEntry = readonly [string, string, string | null];

interface CompileRecord {
  readonly toolchain: string;
  readonly root: string;
  readonly key: string;
  readonly startedAt: number;
  readonly probes: readonly Probe[];
  readonly artifact: readonly ArtifactEntry[];
  readonly outcome: RecordedOutcome;
}

/**
 * A {@link CompileRecord} as the file holds it: its probes packed (`common/probe.ts`) and kept as
 * the bytes of their own `v8.serialize`, and apart from them the file probe modified last (packed,
 * none when no file probe has a `stat`), which {@link replayCompile} asks before it deserializes
 * the rest (2 MB of the benchmark agent's 2.2 MB record: a failed check never builds their
 * 25,000 strings; docs/performance.md, "Incremental compiles with packaging", tenth round).
 */
type StoredCompileRecord = Omit<CompileRecord, "probes"> & { readonly probes: Uint8Array; readonly newest: PackedProbes };

/** The {@link StoredCompileRecord} of `record`. */
function storedRecord(record: CompileRecord): StoredCompileRecord {
  const packed = packProbes(record.probes);
  const newest = newestFileProbe(packed);
  return { ...record, probes: v8.serialize(packed), newest: packProbes(newest ? [newest] : []) };
}

/**
 * The options a record is valid for: every compile option that can change what a compile
 * writes or reports (functions excluded; the compile path never receives any here), and the
 * working directory (fix-it hints name the root relative to it), and the command prefix those
 * hints start with (`../common/cli-command.ts`: the same agent compiled through npx and by the
 * script's path prints different fix commands).
 */
export function compileRecordKey(options: CompileOptions): string {
  const plain = Object.fromEntries(Object.entries(options).filter(([, value]) => typeof value !== "function" && value !== undefined));
  return JSON.stringify({ cwd: process.cwd(), command: cliCommandPrefix(), options: sortedValue(plain) });
}

/**
 * The recorded outcome of the last compile of `root` with `key`, when it still holds (see the
 * module comment); `undefined` otherwise. Never throws: anything unreadable or unexpected is
 * `undefined`, and the caller compiles.
 * @param root absolute agent root.
 * @param known filled, when the record is readable, with each artifact file it holds with a
 *   settled stat signature (absolute path → its SRI and signature), for the compile that runs
 *   when the record does not hold (`CompileOptions.knownArtifactFiles`).
 */
export function replayCompile(root: string, key: string, known?: Map<string, readonly [integrity: string, signature: string]>): RecordedOutcome | undefined {
  try {
    const log = readSealedLog(path.join(root, COMPILE_RECORD_FILE), COMPILE_RECORD_MAGIC);
    // One segment, as written: a record is never appended to.
    const stored: unknown = log?.segments.length === 1 ? log.segments[0] : undefined;
    if (!isRecord(stored) || stored.root !== root) return undefined;
    // What the last compile left in the artifact holds whatever this compile's options and
    // toolchain are: the compile may link a file with an unchanged signature without reading it.
    if (known) for (const [file, integrity, signature] of stored.artifact) if (typeof signature === "string") known.set(file, [integrity, signature]);
    if (stored.key !== key || stored.toolchain !== toolchainIdentity(true)) return undefined;
    const host = createNodeHost();
    const trustedBefore = stored.startedAt - RACY_MARGIN_MS;
    // The file modified last is asked before the 14,000 probes of the benchmark agent are even
    // deserialized (they are kept as bytes of their own): after the file being worked on was
    // edited again, its `stat` and hash end the check.
    const newest = unpackProbes(stored.newest);
    if (newest === undefined || newest.length > 1) return undefined;
    if (newest.length === 1 && !probeHolds(host, newest[0]!, trustedBefore)) return undefined;
    const probes = unpackProbes(v8.deserialize(stored.probes));
    if (probes === undefined) return undefined;
    const record: CompileRecord = { ...stored, probes };
    // Files first: an edit is most often found by one `stat` then, before the thousands of
    // listings, kinds and real paths are asked (the answer is the same in any order). The most
    // recently modified first: the file being worked on is most often the one edited again.
    const files = record.probes.filter((probe) => (probe.op === "read" || probe.op === "bytes") && probe.stat !== undefined).sort(byRecentModification);
    const others = record.probes.filter((probe) => !((probe.op === "read" || probe.op === "bytes") && probe.stat !== undefined));
    if (!files.every((probe) => probeHolds(host, probe, trustedBefore)) || !others.every((probe) => probeHolds(host, probe, trustedBefore))) return undefined;
    for (const [file, hash, signature] of record.artifact) {
      if (signature !== null && statSignature(file) === signature) continue;
      if (fileIntegrity(file) !== hash) return undefined;
    }
    return record.outcome;
  } catch {
    return undefined;
  }
}

/** Orders file probes by their recorded modification time, the most recent first. */
function byRecentModification(a: Probe, b: Probe): number {
  return modifiedAt(b) - modifiedAt(a);
}

function modifiedAt(probe: Probe): number {
  return "stat" in probe ? (probe.stat?.mtimeMs ?? 0) : 0;
}

/** Deletes the root's compile record (never throws). */
export function forgetCompileRecord(root: string): void {
  try {
    const file = path.join(root, COMPILE_RECORD_FILE);
    // Never through a link out of the root (the record could not have been written there either).
    if (checkWriteTarget(root, file) === undefined) fs.rmSync(file, { force: true });
  } catch {
    // Not ours to delete, or already gone: the record is checked before use anyway.
  }
}

/** Collects what one compile read, for {@link CompileRecorder.save}. */
export interface CompileRecorder {
  /** Pass as `recordInput` to `compileAgent`: every file read through the host, by esbuild, or copied into the artifact. */
  readonly recordInput: (filePath: string) => void;
  /**
   * Writes the record of a compile that ran with `key` and `recording.host`, when it succeeded
   * and left the lock as it was or wrote one read alike (otherwise deletes any older record). Never throws.
   */
  save(result: CompileResult, key: string): void;
}

/** Starts collecting for a compile that reads through `recording.host` (`./inputs-record.ts`). */
export function compileRecorder(root: string, recording: RecordingHost): CompileRecorder {
  const inputs = new Set<string>();
  // The compile's start in the file system's clock: an artifact file modified before it was not
  // written by this compile, but kept (hard-linked) after comparing its bytes (`emitArtifact`).
  // Only in an agent root: a mistyped root gets no `.assemblyline/` (nothing is recorded there anyway).
  const started = fs.existsSync(path.join(root, "agent.md")) ? stampAfter(root, -1n) : undefined;
  return {
    recordInput: (filePath) => inputs.add(filePath),
    save(result, key) {
      try {
        const recordable = result.ok && (!result.lockChanged || result.lockWritten?.rereadAlike === true);
        const record = recordable ? buildRecord(root, recording, inputs, result, key, started) : undefined;
        const stored: StoredCompileRecord | undefined = record && storedRecord(record);
        if (stored === undefined || !writeSealedLog(root, path.join(root, COMPILE_RECORD_FILE), COMPILE_RECORD_MAGIC, stored).written) forgetCompileRecord(root);
      } catch {
        forgetCompileRecord(root);
      }
    },
  };
}

/** The record of a compile that succeeded (see {@link CompileRecorder.save}); `undefined` when it cannot be made sound. */
function buildRecord(root: string, recording: RecordingHost, inputs: ReadonlySet<string>, result: CompileResult, key: string, started: bigint | undefined): CompileRecord | undefined {
  const host = createNodeHost();
  const probes = new ProbeSet();
  for (const probe of recording.probes()) probes.add(probe);
  const has = (op: Probe["op"], file: string): boolean => probes.has(op, file);
  // The caches a compile reads are not inputs (the same result with or without them), except that
  // `--token-budget` uses its stored counts as they are: a count changed by hand there must reach
  // the budget check, so the record holds only while that file is as this compile left it.
  const budgetCounts = path.join(root, BUDGET_TOKENS_CACHE_FILE);
  probes.set({ op: "bytes", path: budgetCounts, answer: bytesAnswer(host.readBytes(budgetCounts)) });
  if (result.lockChanged) {
    // The compile read the old lock and wrote this text: the next compile reads this text (by
    // content: written just now, its stat proves nothing), and decides alike (`rereadsAlike`).
    const lockPath = path.join(root, result.lockfile);
    if (result.lockWritten === undefined || !probes.has("bytes", lockPath)) return undefined;
    probes.set({ op: "bytes", path: lockPath, answer: bytesAnswer(result.lockWritten.bytes) });
  }
  const read = (file: string): boolean => probes.has("read", file) || probes.has("bytes", file);
  const add = (probe: Probe): void => {
    probes.add(probe);
  };
  const trustedBefore = recording.startedAt - RACY_MARGIN_MS;
  // A file only esbuild (or the artifact's skill copy) read: hashed now, so one changed since the
  // recording started may not be the bytes that were read; it never holds (the next compile runs).
  const readNow = (file: string): void => {
    if (read(file)) return;
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    const settled = stat?.isFile() === true && stat.mtimeMs < trustedBefore && stat.ctimeMs < trustedBefore;
    if (!settled) {
      add({ op: "bytes", path: file, answer: UNSETTLED });
      return;
    }
    add({ op: "bytes", path: file, answer: bytesAnswer(host.readBytes(file)), stat: fileStatOf(stat) });
  };
  const list = (folder: string): void => {
    if (!has("list", folder)) add({ op: "list", path: folder, answer: listAnswer(host.readDirectory(folder)) });
  };
  const kind = (file: string): string => {
    const known = probes.get("kind", file);
    if (known) return known.answer ?? "missing";
    const answer = host.kind(file);
    add({ op: "kind", path: file, answer });
    return answer;
  };
  const folders = new Set<string>();
  for (const file of inputs) {
    readNow(file);
    folders.add(path.dirname(file));
  }
  // How imports resolved: each folder holding an input (a new `x.tsx`, `index.ts`), and on the way
  // up (to the root, or the file system's root outside it) each `package.json` and `node_modules`.
  const climbed = new Set<string>();
  for (const folder of folders) {
    list(folder);
    const inside = folder === root || folder.startsWith(root + path.sep);
    for (let current = folder; !climbed.has(current); ) {
      climbed.add(current);
      const manifest = path.join(current, "package.json");
      if (kind(manifest) === "file") readNow(manifest);
      const modules = path.join(current, "node_modules");
      if (kind(modules) === "directory") list(modules);
      const parent = path.dirname(current);
      if ((inside && current === root) || parent === current) break;
      current = parent;
    }
  }
  const artifact = result.artifact === null ? [] : artifactEntries(root, path.resolve(root, result.artifact), result.artifactFiles, result.bundles, started, result.artifactSignatures);
  if (artifact === undefined) return undefined;
  const outcome: RecordedOutcome = { diagnostics: result.diagnostics, lockfile: result.lockfile, artifact: result.artifact, ...summaryCounts(result.analysis) };
  return { toolchain: toolchainIdentity(true), root, key, startedAt: recording.startedAt, probes: probes.values(), artifact, outcome };
}

/**
 * The artifact's files with the integrity (SRI, SHA-512) of the bytes the compile wrote, and
 * their stat signatures when older than a stamp written after them (a later write, even in the
 * same clock tick as the stamp, gives a newer change time). Each file the compile wrote (modified
 * after `started`, the compile's start in the same clock) is compared byte for byte with what it
 * wrote; a file modified before was not written but kept, its bytes compared by the compile
 * itself (`emitArtifact` links only files whose bytes it found equal). A file in `signatures`
 * (`CompileResult.artifactSignatures`: found unchanged by its recorded signature and left
 * untouched since) is recorded with that signature without an `lstat`: 2,000 calls fewer after
 * one file of the benchmark agent changed; a change since that comparison moved its change time,
 * so the signature never vouches for other bytes. `undefined` when the disk does not hold what
 * the compile wrote.
 */
function artifactEntries(
  root: string,
  outDir: string,
  files: ReadonlyMap<string, BundleBytes> | undefined,
  integrities: ReadonlyMap<string, string> | undefined,
  started: bigint | undefined,
  signatures: ReadonlyMap<string, string> = new Map(),
): ArtifactEntry[] | undefined {
  if (files === undefined || started === undefined) return undefined;
  // Bundles' integrities are in the result already; the manifest's and the skills' are computed here.
  const absolute = [...files].map(([relative, bytes]) => [path.join(outDir, ...relative.split("/")), bytes, integrities?.get(relative), signatures.get(relative)] as const);
  // The stamp is written twice: every artifact file was written before the first write, so its
  // times are at most that stamp's, and the second is later than the first (`stampAfter` waits
  // for the clock), so each file is older than it without an `lstat` of each file to find the
  // newest first (2,000 calls fewer after one file changed). A change after a file's `lstat`
  // below has a change time at or after the stamp, so it never matches the signature recorded.
  const first = stampAfter(root, -1n);
  const stamp = first === undefined ? undefined : stampAfter(root, first);
  const entries: ArtifactEntry[] = [];
  for (const [file, bytes, integrity, known] of absolute) {
    if (known !== undefined && integrity !== undefined) {
      entries.push([file, integrity, known]);
      continue;
    }
    const stat = fs.lstatSync(file, { bigint: true });
    if (!stat.isFile() || stat.size !== BigInt(bundleSize(bytes))) return undefined;
    // Compared a chunk at a time (`fileHolds`), not read whole: the manifest is 2.5 MB on the
    // benchmark agent, written again after every change (docs/performance.md, "Fifteenth round").
    // A file the compile wrote has its bytes in memory (a reused bundle's were read, and
    // verified, to write it); one whose bytes are not is not vouched for.
    if (stat.mtimeNs >= started) {
      const held = bytesInMemory(bytes);
      if (held === undefined || !fileHolds(file, held)) return undefined;
    }
    const settled = stamp !== undefined && stat.mtimeNs < stamp && stat.ctimeNs < stamp;
    // `emitArtifact` compares it with `statSignature` of the file: one format (common/file-stats-hash.ts).
    entries.push([file, integrity ?? integrityOfBundle(bytes), settled ? signatureOfStats(stat) : null]);
  }
  return entries;
}

/**
 * Writes the stamp until its time is after `newest` (`-1n`: any; a few milliseconds at most); its time, or
 * `undefined` when it cannot be written (a read-only agent: the compile then reports its own
 * writes' failures, and no record is kept; helper-73 found this crash the compile). Never throws.
 */
function stampAfter(root: string, newest: bigint): bigint | undefined {
  const file = path.join(root, STAMP_FILE);
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      if (writeFileConfined(root, file, "", { createFolders: true, durable: false }) !== undefined) return undefined;
      const time = fs.statSync(file, { bigint: true }).mtimeNs;
      if (time > newest) return time;
      const until = Date.now() + 2;
      while (Date.now() < until) {
        // The file system's clock ticks in milliseconds at worst; wait one.
      }
    }
  } catch {
    // Fall through: no stamp, no record.
  }
  return undefined;
}


function fileIntegrity(file: string): string {
  try {
    return fs.lstatSync(file).isFile() ? bundleIntegrity(fs.readFileSync(file)) : "-";
  } catch {
    return "-";
  }
}

/** Shape check of a deserialized record (its probes are checked as they are unpacked, `unpackProbes`). */
function isRecord(value: unknown): value is StoredCompileRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  const outcome = record["outcome"] as Record<string, unknown> | undefined;
  return (
    typeof record["toolchain"] === "string" &&
    typeof record["root"] === "string" &&
    typeof record["key"] === "string" &&
    typeof record["startedAt"] === "number" &&
    record["probes"] instanceof Uint8Array &&
    typeof record["newest"] === "object" &&
    record["newest"] !== null &&
    Array.isArray(record["artifact"]) &&
    record["artifact"].every((entry) => Array.isArray(entry) && entry.length === 3 && typeof entry[0] === "string" && typeof entry[1] === "string") &&
    typeof outcome === "object" &&
    outcome !== null &&
    Array.isArray(outcome["diagnostics"]) &&
    typeof outcome["lockfile"] === "string" &&
    typeof outcome["surfaces"] === "number" &&
    typeof outcome["tools"] === "number"
  );
}

/** `value` with object keys sorted, so the key does not depend on the order options were spread in. */
function sortedValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedValue);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortedValue((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
