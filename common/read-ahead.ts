/**
 * Reading a compile's files ahead, on a thread of their own (issue 14 item 1, "keep both cores
 * busy"; docs/performance.md, "Thirteenth round").
 *
 * A cold compile reads every file of every plugin folder on its main thread, one system call
 * after another (open, `fstat`, read, close: about 80 ms for the 2,400 files of the benchmark's
 * 200 × 10 agent), while the other core idles, and the first thing it then does is load
 * TypeScript (about 200 ms that read nothing). A read-ahead walks the plugin folders on a small
 * worker thread (no bundle, no TypeScript: `node:fs` only) and hands the bytes over as they are
 * read, so that the main thread finds most files' bytes waiting when it gets to them.
 *
 * What it reads, and why that is safe to use in place of a read of one's own: only regular
 * files it finds by listing the folders (a directory entry's type is what `lstat` says: links,
 * FIFOs and devices are never opened, linked folders never entered), each opened as the disk
 * host's own reader opens a file it knows ({@link KNOWN_FILE_OPEN_FLAGS}) and kept only when the
 * opened file's `fstat` calls it a regular file; entries named in `skip` are left out at every
 * depth (the listings of the folders it enters are handed out too, with every entry). A file's
 * bytes and `fstat` are those of one opening, read once up to the size `fstat` gave — what
 * `readOpenedFile` in `common/host.ts` returns — only earlier: a compile already
 * reads its files at different moments, and one that changed after it was read ahead is found
 * changed by the next compile's `stat`, as a file that changed right after a read of its own.
 * Each path is handed out once ({@link ReadAhead.take}) and nothing is kept after
 * {@link ReadAhead.close}; a path asked for before its batch arrived is never answered later. A
 * file over `maxFileBytes`, or past `maxTotalBytes` in all (each file counting 256 bytes more and
 * each listed entry 64), is not read ahead (the main thread reads it as before). The worker never
 * throws: a folder it cannot list, or a file it cannot open or read, is simply not read ahead.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import type { MessagePort, Worker } from "node:worker_threads";
import type { FileStat } from "./probe.js";

/** A file as it was read ahead: its bytes and the opened file's `fstat`. */
export interface FileReadAhead {
  readonly bytes: Buffer;
  readonly stat: FileStat;
}

/** A folder's entries as listed ahead, in the order `readdir` gave them; a link is never followed. */
export type ListingReadAhead = readonly { readonly name: string; readonly kind: "file" | "directory" | "symlink" | "other" }[];

/** Files being read ahead on another thread ({@link startReadAhead}). */
export interface ReadAhead {
  /**
   * The bytes and `fstat` of `filePath` (absolute, as the read-ahead joined it: the folder it
   * was given, then each name) when they have been read ahead, handed out once; `undefined`
   * when not (yet) read ahead, already asked for, or after {@link close}. Never waits. A path
   * asked for before its batch arrived is never answered later (the caller read it itself, and
   * an older copy must not follow a newer one).
   */
  take(filePath: string): FileReadAhead | undefined;
  /**
   * The entries of the folder `dirPath` (as the read-ahead joined it) when it has been listed
   * ahead, handed out once, as {@link take} hands out a file: every entry, those named in `skip`
   * too; the kind of each is its directory entry's type (what `lstat` says).
   */
  takeListing(dirPath: string): ListingReadAhead | undefined;
  /** Stops the worker and drops every file not taken. Idempotent. */
  close(): void;
  /**
   * Settles once the worker has stopped: it read all it would, failed, or was closed (for tests).
   * The worker does not keep the process alive, so neither does waiting for this.
   */
  whenDone(): Promise<void>;
}

/** Options of {@link startReadAhead}. */
export interface ReadAheadOptions {
  /** Entry names left out at every depth (the plugin hash's `EXCLUDED_NAMES`). */
  readonly skip?: Iterable<string>;
  /** Files larger than this are not read ahead. Default 1 MiB. */
  readonly maxFileBytes?: number;
  /** The read-ahead stops once it holds this many bytes in all. Default 64 MiB. */
  readonly maxTotalBytes?: number;
  /** Fewer folders than this are not read ahead. Default {@link READ_AHEAD_MIN_FOLDERS}. */
  readonly minFolders?: number;
}

/**
 * The fewest folders read ahead by default. Starting the worker costs about 60 ms of CPU on the
 * other core and 10–20 ms of wall time; on the benchmark's agents (`bench/generate-agent.mjs`,
 * 10 tools each; 11 interleaved runs of `compile --no-package --no-cache`) the read-ahead cost
 * 20 ms at 10 plugins, gained 10 ms at 30 and 90 ms at 200 (docs/performance.md, "Thirteenth round").
 */
export const READ_AHEAD_MIN_FOLDERS = 32;

/**
 * How a file the caller knows to be a regular file is opened: read only, not blocking (a FIFO
 * that replaced it is not waited on), not through a final link (one that replaced it fails with
 * `ELOOP`). The disk host's reader of known files (`readOpenedFile`, `./host.ts`) and the
 * read-ahead's worker (given it as data) both open with it, so a file read ahead is one the
 * host's own reader would have read.
 */
export const KNOWN_FILE_OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

/** What the worker posts: a batch of files read and folders listed (`null` once it is done). */
interface Batch {
  readonly paths: readonly string[];
  readonly buffers: readonly ArrayBuffer[];
  readonly stats: readonly FileStat[];
  /** Folder, then its entries' names and kinds (`f`ile, `d`irectory, `l`ink, `o`ther). */
  readonly listings: readonly (readonly [string, readonly string[], string])[];
}

/**
 * The worker, as source (evaluated, so no file has to be found next to a bundle). It posts a
 * batch at the end of each folder it was given and whenever a batch holds 64 files or 1 MiB,
 * transferring each file's own `ArrayBuffer` (never a pooled one), then `null`. Every folder it
 * lists goes into the batch with its entries, before any of its files.
 */
const WORKER_SOURCE = `"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { workerData } = require("node:worker_threads");
const { port, folders, skip, maxFileBytes, maxTotalBytes, openFlags } = workerData;
const skipped = new Set(skip);
let total = 0;
let batch = { paths: [], buffers: [], stats: [], listings: [] };
let batchBytes = 0;
function flush() {
  if (batch.paths.length === 0 && batch.listings.length === 0) return;
  port.postMessage(batch, batch.buffers);
  batch = { paths: [], buffers: [], stats: [], listings: [] };
  batchBytes = 0;
}
function readOne(filePath) {
  let fd;
  try {
    fd = fs.openSync(filePath, openFlags);
  } catch {
    return;
  }
  try {
    const stat = fs.fstatSync(fd);
    // Each file counts its size and 256 bytes more, so that many empty files are bounded too.
    if (!stat.isFile() || stat.size > maxFileBytes || total + stat.size + 256 > maxTotalBytes) return;
    const buffer = new ArrayBuffer(stat.size);
    const bytes = new Uint8Array(buffer);
    let filled = 0;
    while (filled < bytes.length) {
      const read = fs.readSync(fd, bytes, filled, bytes.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    total += stat.size + 256;
    batch.paths.push(filePath);
    batch.buffers.push(filled === bytes.length ? buffer : buffer.slice(0, filled));
    batch.stats.push({ size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino });
    batchBytes += filled;
    if (batch.paths.length >= 64 || batchBytes >= 1048576) flush();
  } catch {
    // Not read ahead: the compile reads it itself.
  } finally {
    try { fs.closeSync(fd); } catch {}
  }
}
function walk(folder) {
  let entries;
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return;
  }
  // A listing counts 64 bytes an entry, so that a tree of many empty folders is bounded too.
  if (total + entries.length * 64 > maxTotalBytes) {
    total = maxTotalBytes;
    return;
  }
  total += entries.length * 64;
  let kinds = "";
  for (const entry of entries) kinds += entry.isSymbolicLink() ? "l" : entry.isDirectory() ? "d" : entry.isFile() ? "f" : "o";
  batch.listings.push([folder, entries.map((entry) => entry.name), kinds]);
  for (const entry of entries) {
    if (skipped.has(entry.name) || total >= maxTotalBytes) continue;
    const entryPath = path.join(folder, entry.name);
    if (entry.isDirectory()) walk(entryPath);
    else if (entry.isFile()) readOne(entryPath);
  }
}
try {
  for (const folder of folders) {
    walk(folder);
    flush();
  }
} catch {}
port.postMessage(null);
port.close();
`;

/** The read-ahead of nothing (no folders, or a worker that could not start). */
const NOTHING: ReadAhead = { take: () => undefined, takeListing: () => undefined, close: () => {}, whenDone: () => Promise.resolve() };

/** An entry's kind by its letter in a batch's listing (indexed by char code). */
const KINDS: Record<number, ListingReadAhead[number]["kind"]> = { 0x66: "file", 0x64: "directory", 0x6c: "symlink", 0x6f: "other" };

/**
 * Node's `worker_threads`, loaded on the first read ahead: every host command imports this
 * module (through the disk host), and none of them reads ahead (docs/performance.md, "The host
 * bundle").
 */
function workerThreads(): typeof import("node:worker_threads") {
  return (loadedWorkerThreads ??= createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads"));
}

let loadedWorkerThreads: typeof import("node:worker_threads") | undefined;

/**
 * Starts reading the regular files under `folders` (absolute, in the order the compile will
 * need them) on a worker thread, and returns what hands them out. The worker does not keep the
 * process alive, and its failures are never the caller's: a worker that cannot start reads
 * nothing ahead. See the module comment for what is read and why using it is safe.
 */
export function startReadAhead(folders: readonly string[], options: ReadAheadOptions = {}): ReadAhead {
  // Without `O_NOFOLLOW` (Windows) a file could not be opened as the disk host's reader opens it.
  if (folders.length === 0 || folders.length < (options.minFolders ?? READ_AHEAD_MIN_FOLDERS) || fs.constants.O_NOFOLLOW === undefined) return NOTHING;
  const { MessageChannel, Worker } = workerThreads();
  const { port1, port2 } = new MessageChannel();
  let worker: Worker;
  try {
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        port: port2,
        // Absolute and normalized, each once: the paths it hands out are joined to these.
        folders: [...new Set(folders.map((folder) => path.resolve(folder)))],
        skip: [...(options.skip ?? [])],
        maxFileBytes: options.maxFileBytes ?? 1 << 20,
        maxTotalBytes: options.maxTotalBytes ?? 64 << 20,
        openFlags: KNOWN_FILE_OPEN_FLAGS,
      },
      transferList: [port2],
      stdout: true,
      stderr: true,
    });
  } catch {
    port1.close();
    return NOTHING;
  }
  // Its errors are dropped (the compile reads what it lacks); it never holds the process open.
  worker.on("error", () => {});
  const done = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.unref();
  port1.unref();
  return new WorkerReadAhead(worker, port1, done);
}

/** {@link ReadAhead} over a running worker: batches are received synchronously when a path is missing. */
class WorkerReadAhead implements ReadAhead {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #ready = new Map<string, FileReadAhead>();
  readonly #listings = new Map<string, ListingReadAhead>();
  /** Paths (files and folders) asked for before their batch arrived: their copies are dropped. */
  readonly #missed = new Set<string>();
  readonly #exited: Promise<void>;
  #done = false;
  #closed = false;

  constructor(worker: Worker, port: MessagePort, exited: Promise<void>) {
    this.#worker = worker;
    this.#port = port;
    this.#exited = exited;
  }

  whenDone(): Promise<void> {
    return this.#exited;
  }

  take(filePath: string): FileReadAhead | undefined {
    return this.#takeFrom(this.#ready, filePath);
  }

  takeListing(dirPath: string): ListingReadAhead | undefined {
    return this.#takeFrom(this.#listings, dirPath);
  }

  /**
   * `key`'s value in `map` (a file or a listing), after taking the batches posted so far when it
   * is missing; removed once handed out, and never handed out once missed.
   */
  #takeFrom<T>(map: Map<string, T>, key: string): T | undefined {
    if (this.#closed) return undefined;
    let found = map.get(key);
    if (found === undefined && !this.#done) {
      this.#receive();
      found = map.get(key);
    }
    if (found !== undefined) map.delete(key);
    else if (!this.#done) this.#missed.add(key);
    return found;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#ready.clear();
    this.#listings.clear();
    this.#missed.clear();
    this.#port.close();
    this.#worker.terminate().catch(() => {});
  }

  /** Takes every batch the worker has posted so far. */
  #receive(): void {
    for (;;) {
      const received = workerThreads().receiveMessageOnPort(this.#port);
      if (received === undefined) return;
      const batch = received.message as Batch | null;
      if (batch === null) {
        this.#done = true;
        return;
      }
      for (const [folder, names, kinds] of batch.listings) {
        if (!this.#missed.has(folder)) this.#listings.set(folder, names.map((name, i) => ({ name, kind: KINDS[kinds.charCodeAt(i)]! })));
      }
      for (let i = 0; i < batch.paths.length; i++) {
        if (!this.#missed.has(batch.paths[i]!)) this.#ready.set(batch.paths[i]!, { bytes: Buffer.from(batch.buffers[i]!), stat: batch.stats[i]! });
      }
    }
  }
}
