/**
 * The engine's one host: forwards every call to the overlay host and records what each call
 * saw into the recordings that are active, so a stage result can be kept with a fingerprint of
 * exactly the files, directories and links it read, and reused while that fingerprint holds.
 */
import type { CompilerHost, DirectoryEntry, ReadResult } from "../../common/host.js";

/** What one stage read: calls and their answers; valid while every call answers the same. */
export interface Fingerprint {
  /** Each host call (kind letter + path) with the answer it gave, buffers first. */
  readonly records: readonly (readonly [call: string, state: string])[];
}

/** A host that records into the active recordings. */
export interface RecordingHost extends CompilerHost {
  /**
   * Runs `compute` while recording every host call it makes (an enclosing recording sees the
   * calls too); returns its result and the fingerprint.
   */
  record<T>(compute: () => T): { readonly result: T; readonly fingerprint: Fingerprint };
  /** True when every call of `fingerprint` answers the same now (enclosing recordings see the calls). */
  holds(fingerprint: Fingerprint): boolean;
  /**
   * Starts a round: until the next call, an answer checked by {@link holds} is taken as still
   * true (one editor request sees one state of the disk; buffers do not change within it).
   */
  startRound(): void;
  /**
   * Forgets every answer the disk gave (the next call asks again, whatever `diskRecheckMs`
   * says): for a change the editor was told of, e.g. by a file watcher.
   */
  forgetDiskAnswers(): void;
  /**
   * Records the folder's listing stamp (its modification time on disk: it changes whenever an
   * entry is added, removed or renamed), so what `quietly` learnt about its entries stays valid.
   */
  stampDirectory(dirPath: string): void;
  /** Runs `compute` without recording its calls (pair it with {@link stampDirectory}). */
  quietly<T>(compute: () => T): T;
  /**
   * Runs `compute` recording of each `readBytes` only whether the bytes could be read, not
   * their version: for a stage whose result (as used) does not depend on file contents.
   */
  blindToContent<T>(compute: () => T): T;
}

/**
 * A cheap way to learn what `read(filePath)` would report as its state (`file:<version>`,
 * `missing`, `directory`, `unreadable:…`) without reading the content (a `stat`).
 */
export type ReadStateProbe = (filePath: string) => string;

/** A cheap stamp of a folder's listing (default: the listing itself). */
export type DirectoryStampProbe = (dirPath: string) => string;

/** How the state of a read of an editor buffer starts (the overlay host's versions). */
const BUFFER_STATE = "file:overlay:";

const READ = "r";
const BYTES = "b";
const DIRECTORY = "d";
const REALPATH = "p";
const STAMP = "s";
const PRESENT = "e";
const KIND = "k";

/** How {@link createRecordingHost} checks fingerprints cheaply. */
export interface RecordingOptions {
  /** The state of a read without reading (default: a read). */
  readonly probe?: ReadStateProbe;
  /** A folder's listing stamp (default: its listing). */
  readonly stamp?: DirectoryStampProbe;
  /**
   * True when `path` is an editor buffer: its answers depend on the buffer, never on the disk,
   * and are never reused from an earlier round.
   */
  readonly isBuffer?: (path: string) => boolean;
  /**
   * How long (ms) an answer the disk gave may be reused by later rounds without asking the disk
   * again (default 0: every round asks once). Buffers are always asked.
   */
  readonly diskRecheckMs?: number;
}

/** Wraps `base` (usually an overlay host) in a recording host. */
export function createRecordingHost(base: CompilerHost, options: RecordingOptions = {}): RecordingHost {
  const probe = options.probe ?? ((filePath: string) => readState(base.read(filePath)));
  const stamp = options.stamp ?? ((dirPath: string) => directoryState(base.readDirectory(dirPath)));
  const isBuffer = options.isBuffer ?? (() => false);
  const recheckMs = options.diskRecheckMs ?? 0;
  let active: Map<string, string>[] = [];
  /** Answers already asked for: this round's, and the disk's from earlier rounds (with when). */
  let checked = new Map<string, { readonly state: string; readonly at: number; readonly round: number; readonly buffer: boolean }>();
  let round = 0;
  /** When the current round started (disk answers are as old as the round that asked). */
  let roundAt = performance.now();
  let blind = false;
  /** Files and bytes read, with the state they were read at (re-read only when it changes). */
  const texts = new Map<string, { readonly state: string; readonly result: ReadResult }>();
  const bytes = new Map<string, { readonly state: string; readonly result: Uint8Array | undefined }>();
  /** The answer to `call` now: asked once per round, and disk answers reused for `diskRecheckMs`. */
  const stateInRound = (call: string): string => {
    const known = checked.get(call);
    if (known && (known.round === round || (recheckMs > 0 && !known.buffer && roundAt - known.at < recheckMs && !isBuffer(call.slice(1))))) return known.state;
    const state = answer(call);
    checked.set(call, { state, at: roundAt, round, buffer: isBuffer(call.slice(1)) });
    return state;
  };
  const note = (call: string, state: string): void => {
    for (const recording of active) if (!recording.has(call)) recording.set(call, state);
  };
  const answer = (call: string): string => {
    const target = call.slice(1);
    switch (call[0]) {
      case READ:
      case BYTES:
        return probe(target);
      case DIRECTORY:
        return directoryState(base.readDirectory(target));
      case REALPATH:
        return base.realpath(target) ?? "";
      case STAMP:
        return stamp(target);
      case PRESENT:
        return presence(probe(target));
      default:
        return base.kind(target);
    }
  };
  return {
    read(filePath) {
      // A file whose state (version) is unchanged is not read again: one stat per round.
      const state = stateInRound(READ + filePath);
      const kept = texts.get(filePath);
      const result = kept && kept.state === state ? kept.result : base.read(filePath);
      const now = readState(result);
      if (!kept || kept.result !== result) texts.set(filePath, { state: now, result });
      if (active.length > 0) note(READ + filePath, now);
      return result;
    },
    readBytes(filePath) {
      const state = stateInRound(BYTES + filePath);
      const kept = bytes.get(filePath);
      const result = kept && kept.state === state ? kept.result : base.readBytes(filePath);
      if (!kept || kept.result !== result) bytes.set(filePath, { state, result });
      // Bytes are fingerprinted by the file's version (mtime+size, or the buffer's version).
      if (active.length > 0) note(blind ? PRESENT + filePath : BYTES + filePath, blind ? presence(state) : state);
      return result;
    },
    readDirectory(dirPath) {
      const result = base.readDirectory(dirPath);
      if (active.length > 0) note(DIRECTORY + dirPath, directoryState(result));
      return result;
    },
    realpath(filePath) {
      const state = stateInRound(REALPATH + filePath);
      if (active.length > 0) note(REALPATH + filePath, state);
      return state === "" ? undefined : state;
    },
    kind(filePath) {
      const state = stateInRound(KIND + filePath);
      if (active.length > 0) note(KIND + filePath, state);
      return state as ReturnType<CompilerHost["kind"]>;
    },
    record(compute) {
      const recording = new Map<string, string>();
      active.push(recording);
      try {
        const result = compute();
        // Buffers first: they are what changes between two requests while the user types, so
        // `holds` finds a stale result at its first records.
        const records = [...recording].sort(([, a], [, b]) => Number(b.startsWith(BUFFER_STATE)) - Number(a.startsWith(BUFFER_STATE)));
        return { result, fingerprint: { records } };
      } finally {
        active.splice(active.lastIndexOf(recording), 1);
      }
    },
    holds(fingerprint) {
      for (const [call, state] of fingerprint.records) {
        const now = stateInRound(call);
        if (active.length > 0) note(call, now);
        if (now !== state) return false;
      }
      return true;
    },
    startRound() {
      round++;
      roundAt = performance.now();
      if (recheckMs === 0) checked = new Map();
    },
    forgetDiskAnswers() {
      checked = new Map();
    },
    stampDirectory(dirPath) {
      if (active.length > 0) note(STAMP + dirPath, stamp(dirPath));
    },
    blindToContent(compute) {
      const outer = blind;
      blind = true;
      try {
        return compute();
      } finally {
        blind = outer;
      }
    },
    quietly(compute) {
      const outer = active;
      active = [];
      try {
        return compute();
      } finally {
        active = outer;
      }
    },
  };
}

/**
 * The state of a read as fingerprints record it. A file's version stands for its content (and
 * so for whether it was valid UTF-8).
 */
function readState(result: ReadResult): string {
  switch (result.kind) {
    case "file":
      return `file:${result.version}`;
    case "unreadable":
      return `unreadable:${result.reason}`;
    default:
      return result.kind;
  }
}

/** Whether a read state is a readable file (any version), else the state itself. */
function presence(state: string): string {
  return state.startsWith("file:") ? "file" : state;
}

function directoryState(entries: readonly DirectoryEntry[] | undefined): string {
  return entries === undefined ? "none" : entries.map((e) => `${e.kind}:${e.name}`).join("/");
}
