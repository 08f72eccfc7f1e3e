/**
 * The per-run call journal (issue 14 item 2, docs/runtime.md "Tenth round"): the record of a
 * common call — one without `ctx` requests that ends `ok` — as one checksummed, length-prefixed
 * `write()` to `runs/<run>/journal-<epoch>.bin` instead of a SQLite transaction. This module
 * owns the file format, the file names and the file operations; `state-store.ts` owns when a
 * record is written, folded into `state.db` and merged into what readers see.
 *
 * **Format.** A journal is a sequence of records, each `[u32 LE payload length][u32 LE CRC-32 of
 * the payload][payload: UTF-8 JSON of a {@link JournaledCall}]`, written with one `write` (an
 * `O_APPEND` descriptor). A reader takes records in order and stops at the first whose length
 * runs past the end of the file, whose CRC does not match or whose payload is not a journaled
 * call: a torn tail (a crash mid-`write`, a full disk) is discarded whole, never read as half a
 * call, and nothing after it is read.
 *
 * **Names.** `journal-<epoch>.bin` is the journal of the lease epoch `<epoch>` (one writer: the
 * host that took the run's lease in that epoch). A host that takes the lease renames every
 * `journal-*.bin` of the run to `journal-<epoch>.<random>.folding` before folding it
 * ({@link claimJournals}); the writer's identity check after its `write` then fails, and the
 * call fails as a lost lease.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ControlPlaneError } from "../failures.js";
import type { Json } from "../sandbox/json-copy.js";

/** One event of a journaled call, as `StateStore.appendEvent` would record it. */
export interface JournaledEvent {
  readonly type: string;
  readonly data: { readonly [key: string]: Json };
}

/**
 * What one journal record holds: the call's row as `StateStore.beginCall` would write it (an
 * insert, or a retry's `attempts + 1`), its outcome and its events in order. `seq` numbers the
 * records of one journal from 1 (never reused, also after the journal is truncated).
 */
export interface JournaledCall {
  readonly seq: number;
  readonly callId: string;
  readonly surface: string;
  readonly tool: string;
  readonly inputJson: string;
  readonly status: "ok";
  readonly runtimeBoundary: "sandbox" | "host";
  /** The full result; `undefined` when the tool returned nothing. */
  readonly output?: Json;
  /** What the model saw, when it differs from `output` (absent: the same value). */
  readonly modelOutput?: Json;
  readonly events: readonly JournaledEvent[];
}

/** The journal file name of lease epoch `epoch`. */
export function journalName(epoch: number): string {
  return `journal-${epoch}.bin`;
}

const JOURNAL_NAME = /^journal-(\d{1,15})\.(?:bin|[0-9a-f]{16}\.folding)$/;

/** The lease epoch a journal file name (live or claimed) names, or `undefined` for any other name. */
export function journalEpoch(name: string): number | undefined {
  const match = JOURNAL_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

let crcTable: Int32Array | undefined;

/** CRC-32 (IEEE 802.3, the polynomial zlib uses) of `bytes[start, end)`. Node 20 has no `zlib.crc32`. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let crc = -1;
  for (let i = start; i < end; i++) crc = crcTable[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** The bytes of one record of `call` (header and payload, written with one `write`). */
export function encodeRecord(call: JournaledCall): Buffer {
  return encodeRecordText(JSON.stringify(call));
}

/** The bytes of one record whose payload is `json`, the JSON text of a {@link JournaledCall}. */
export function encodeRecordText(json: string): Buffer {
  const length = Buffer.byteLength(json, "utf8");
  const record = Buffer.allocUnsafe(8 + length);
  record.write(json, 8, "utf8");
  record.writeUInt32LE(length, 0);
  record.writeUInt32LE(crc32(record, 8, 8 + length), 4);
  return record;
}

/**
 * The journal's valid records in order, up to the first torn or foreign one (see the module
 * comment), and the byte length they span.
 */
export function decodeRecords(bytes: Uint8Array): { readonly records: JournaledCall[]; readonly validBytes: number } {
  const records: JournaledCall[] = [];
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  while (offset + 8 <= view.length) {
    const length = view.readUInt32LE(offset);
    const end = offset + 8 + length;
    if (end > view.length || crc32(view, offset + 8, end) !== view.readUInt32LE(offset + 4)) break;
    let call: unknown;
    try {
      call = JSON.parse(view.toString("utf8", offset + 8, end));
    } catch {
      break;
    }
    if (!isJournaledCall(call) || (records.length > 0 && call.seq <= records[records.length - 1]!.seq)) break;
    records.push(call);
    offset = end;
  }
  return { records, validBytes: offset };
}

function isJournaledCall(value: unknown): value is JournaledCall {
  if (typeof value !== "object" || value === null) return false;
  const call = value as { [key: string]: unknown };
  return (
    Number.isSafeInteger(call.seq) &&
    (call.seq as number) > 0 &&
    typeof call.callId === "string" &&
    typeof call.surface === "string" &&
    typeof call.tool === "string" &&
    typeof call.inputJson === "string" &&
    call.status === "ok" &&
    (call.runtimeBoundary === "sandbox" || call.runtimeBoundary === "host") &&
    Array.isArray(call.events) &&
    call.events.every((event: unknown) => typeof event === "object" && event !== null && typeof (event as JournaledEvent).type === "string" && typeof (event as JournaledEvent).data === "object" && (event as JournaledEvent).data !== null)
  );
}

/** One journal file read from disk: its lease epoch and valid records. */
export interface JournalFile {
  readonly name: string;
  readonly epoch: number;
  readonly records: JournaledCall[];
}

/**
 * Reads every journal of the run folder `runDir` (live and claimed), oldest epoch first; no
 * folder, no journals. A journal renamed away while this read (a host claiming it) is read again
 * under its new name (the listing is retried). Never follows a link. Throws the
 * `state_store_failure` ControlPlaneError when the folder or a journal cannot be read.
 */
export function readJournals(runDir: string): JournalFile[] {
  // A run folder (or `runs/`) that is a link holds no journal of ours: the writer refuses links.
  if (linkedRunDir(runDir) !== undefined) return [];
  for (let attempt = 0; ; attempt++) {
    let names: string[];
    try {
      names = fs.readdirSync(runDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw journalFailure(`read the run folder ${runDir}`, error);
    }
    const files: JournalFile[] = [];
    let vanished = false;
    for (const name of names) {
      const epoch = journalEpoch(name);
      if (epoch === undefined) continue;
      const bytes = readNoFollow(path.join(runDir, name));
      if (bytes === undefined) {
        vanished = true;
        break;
      }
      files.push({ name, epoch, records: decodeRecords(bytes).records });
    }
    if (!vanished) return files.sort((a, b) => a.epoch - b.epoch);
    if (attempt >= 20) throw journalFailure(`read the journals of ${runDir}`, new Error("they kept being renamed while read"));
  }
}

/** The file's bytes, `undefined` when it no longer exists; a link or a non-file is refused, and any failure to read it is the `state_store_failure` ControlPlaneError. */
function readNoFollow(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw journalFailure(`open the journal ${file}`, error);
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error("it is not a regular file");
    return fs.readFileSync(fd);
  } catch (error) {
    // An I/O error, or a journal larger than one buffer holds (`ERR_FS_FILE_TOO_LARGE`): the store's failure.
    throw journalFailure(`read the journal ${file}`, error);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Renames every live journal of `runDir` (`journal-<epoch>.bin`) of an epoch up to `upToEpoch`
 * (the taker's own) to a claimed name (`journal-<epoch>.<random>.folding`): called by a host
 * after it took the run's lease in `upToEpoch`, before it folds them, so a writer of an older
 * epoch that still appends fails its identity check. A journal of a newer epoch is never
 * claimed: its writer took the run after this host (which is then a stale taker, paused past
 * its lease) and still holds it. Throws the `state_store_failure` ControlPlaneError when a
 * rename fails.
 */
export function claimJournals(runDir: string, upToEpoch: number): void {
  if (linkedRunDir(runDir) !== undefined) return;
  let names: string[];
  try {
    names = fs.readdirSync(runDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw journalFailure(`read the run folder ${runDir}`, error);
  }
  for (const name of names) {
    const epoch = journalEpoch(name);
    if (!name.endsWith(".bin") || epoch === undefined || epoch > upToEpoch) continue;
    const claimed = name.replace(/\.bin$/, `.${randomBytes(8).toString("hex")}.folding`);
    try {
      fs.renameSync(path.join(runDir, name), path.join(runDir, claimed));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw journalFailure(`claim the journal ${name}`, error);
    }
  }
}

/** Removes a journal file (already folded); a missing one is fine. Throws the `state_store_failure` ControlPlaneError otherwise. */
export function removeJournal(runDir: string, name: string): void {
  try {
    fs.rmSync(path.join(runDir, name), { force: true });
  } catch (error) {
    throw journalFailure(`remove the folded journal ${name}`, error);
  }
}

/** A device and inode pair. */
interface Identity {
  readonly dev: bigint;
  readonly ino: bigint;
}

/**
 * The open journal of one run and lease epoch, written by the host holding that lease: appends
 * records with one `write` each, checks after each that its path still names the file it
 * wrote (fencing), and truncates what was folded.
 */
export class JournalWriter {
  /** Bytes of whole records in the file now (what a failed `write` is cut back to). */
  private length: number;
  private closed = false;

  private constructor(
    private readonly file: string,
    private readonly fd: number,
    private readonly identity: Identity,
    length: number,
    /** The next record's `seq`. */
    public nextSeq: number,
  ) {
    this.length = length;
  }

  /**
   * Opens (creating) the journal of `epoch` in `runDir`, never through a link; an existing one
   * (this host's own journal of the same epoch, left by an earlier writer object) continues
   * after its last valid record, `seq` after `foldedSeq` at least. Throws the
   * `state_store_failure` ControlPlaneError.
   */
  static open(runDir: string, epoch: number, foldedSeq: number): JournalWriter {
    const file = path.join(runDir, journalName(epoch));
    let fd: number | undefined;
    try {
      const linked = linkedRunDir(runDir);
      if (linked !== undefined) throw new Error(`${linked} is a link or not a folder; the journal is never written through one`);
      // The host user's only, as the runtime's own `runs/` and run folders are
      // (`execution/workspace.ts`, `keepPrivate`): a journal holds the calls' inputs and results.
      fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
      fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
      const stat = fs.fstatSync(fd, { bigint: true });
      if (!stat.isFile()) throw new Error("it is not a regular file");
      let length = 0;
      let nextSeq = foldedSeq + 1;
      if (stat.size > 0n) {
        const { records, validBytes } = decodeRecords(fs.readFileSync(fd));
        // A torn tail is cut off under the lease: it held a call that was never returned.
        if (validBytes < Number(stat.size)) fs.ftruncateSync(fd, validBytes);
        length = validBytes;
        if (records.length > 0) nextSeq = Math.max(nextSeq, records[records.length - 1]!.seq + 1);
      }
      return new JournalWriter(file, fd, { dev: stat.dev, ino: stat.ino }, length, nextSeq);
    } catch (error) {
      if (fd !== undefined) fs.closeSync(fd);
      throw journalFailure(`open the call journal ${file}`, error);
    }
  }

  /** The journal's file name (in its run folder). */
  get name(): string {
    return path.basename(this.file);
  }

  /**
   * Appends `record` with one `write` (a short write is completed; a failed one is cut back, so
   * no torn record stays in front of later ones). Throws the `state_store_failure`
   * ControlPlaneError when it cannot be written, and the `lease_expired` one when the path no
   * longer names this file afterwards (another host took the run over and claimed the journal:
   * the record may be folded by it, but the call is not reported as recorded here).
   */
  append(record: Buffer): void {
    if (this.closed) throw new ControlPlaneError("state_store_failure", `The call journal ${this.file} is closed.`);
    try {
      let written = 0;
      while (written < record.length) written += fs.writeSync(this.fd, record, written, record.length - written);
    } catch (error) {
      try {
        fs.ftruncateSync(this.fd, this.length);
      } catch {
        // Could not cut it back: nothing more is written to this journal.
        this.closed = true;
      }
      throw journalFailure(`record the call in the journal ${this.file}`, error);
    }
    this.length += record.length;
    this.nextSeq += 1;
    this.assertStillOurs();
  }

  /** Throws the `lease_expired` ControlPlaneError when the journal's path no longer names this writer's file. */
  assertStillOurs(): void {
    const now = fs.statSync(this.file, { bigint: true, throwIfNoEntry: false });
    if (now && now.dev === this.identity.dev && now.ino === this.identity.ino) return;
    throw new ControlPlaneError(
      "lease_expired",
      `This host's call journal ${this.file} was claimed by another host that took the run over (this host's progress lease had lapsed); the call is not reported as recorded here.`,
    );
  }

  /** Empties the journal once everything in it is folded (`seq` numbering goes on). Throws the `state_store_failure` ControlPlaneError. */
  truncate(): void {
    try {
      fs.ftruncateSync(this.fd, 0);
      this.length = 0;
    } catch (error) {
      throw journalFailure(`truncate the folded journal ${this.file}`, error);
    }
  }

  /** Closes the descriptor; with `remove`, also unlinks the (folded, empty) file when its path still names it. Never throws. */
  close(remove: boolean): void {
    if (remove) {
      try {
        this.assertStillOurs();
        if (this.length === 0) fs.rmSync(this.file, { force: true });
      } catch {
        // Claimed by another host, or gone: theirs to remove.
      }
    }
    if (!this.closed) {
      this.closed = true;
      try {
        fs.closeSync(this.fd);
      } catch {
        // Already closed.
      }
    }
  }
}

/**
 * The first of `runs/` and `runs/<run>/` (`runDir` and its parent) that exists and is not a
 * plain folder — a link, which could lead out of the agent — or `undefined`.
 */
function linkedRunDir(runDir: string): string | undefined {
  for (const folder of [path.dirname(runDir), runDir]) {
    const stat = fs.lstatSync(folder, { throwIfNoEntry: false });
    if (stat && !stat.isDirectory()) return folder;
  }
  return undefined;
}

function journalFailure(what: string, error: unknown): ControlPlaneError {
  const detail = error instanceof Error ? error.message : String(error);
  return new ControlPlaneError("state_store_failure", `The runtime could not ${what}: ${detail}`, { cause: error });
}
