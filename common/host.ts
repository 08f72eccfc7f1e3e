/**
 * The small file-system interface every compiler stage reads through (issue 2, "The analysis
 * reads files through a small host interface (path → text and version)").
 *
 * The CLI uses {@link createNodeHost}; an editor wraps it with {@link createOverlayHost} so
 * unsaved buffers win over the disk. Stages never call `node:fs` directly, so the same analysis
 * serves both, and per-file results can be cached by `version`.
 */
import { isAscii } from "node:buffer";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileStatOf, type FileStat, type Probe } from "./probe.js";
import { KNOWN_FILE_OPEN_FLAGS, startReadAhead, type ReadAhead, type ReadAheadOptions } from "./read-ahead.js";

/** What {@link CompilerHost.read} found at a path. */
export type ReadResult =
  | {
      readonly kind: "file";
      /** UTF-8 decoded text; invalid sequences are replaced by U+FFFD (see `invalidUtf8`). */
      readonly text: string;
      /** Changes whenever the content may have changed (mtime+size on disk, buffer version in an editor). */
      readonly version: string;
      /** True when the bytes were not valid UTF-8 (the text holds replacement characters). */
      readonly invalidUtf8: boolean;
      /**
       * The bytes the text was decoded from, when the host read bytes (the disk host): what
       * {@link CompilerHost.readBytes} gives for the file. Never modified by a reader.
       */
      readonly bytes?: Uint8Array;
      /**
       * The file's `stat` as the disk host read it (the opened file's `fstat`, or the path's
       * `stat` just before reading it): what a probe records for the read (`common/probes.ts`),
       * with no `stat` of its own. Absent from other hosts' reads.
       */
      readonly stat?: FileStat;
    }
  | { readonly kind: "missing" }
  | { readonly kind: "directory" }
  | { readonly kind: "unreadable"; readonly reason: string };

/** One directory entry; `symlink` entries are not followed by {@link CompilerHost.readDirectory}. */
export interface DirectoryEntry {
  readonly name: string;
  readonly kind: "file" | "directory" | "symlink" | "other";
}

/**
 * File access for the compiler. All paths are absolute. Implementations never throw for
 * missing or unreadable files: they return a result the caller turns into a diagnostic.
 */
export interface CompilerHost {
  /** Reads a text file (follows symlinks). */
  read(filePath: string): ReadResult;
  /** Reads raw bytes (follows symlinks); `undefined` when missing, a directory, or unreadable. */
  readBytes(filePath: string): Uint8Array | undefined;
  /** Entries of a directory sorted by name (code-unit order); `undefined` when not a directory. */
  readDirectory(dirPath: string): readonly DirectoryEntry[] | undefined;
  /** The path with every symlink resolved; `undefined` when it (or a link target) does not exist. */
  realpath(filePath: string): string | undefined;
  /** What is at the path without following a final symlink; `missing` when nothing is. */
  kind(filePath: string): "file" | "directory" | "symlink" | "other" | "missing";
  /**
   * Optional: the target of the symbolic link at the path, as the link holds it (`readlink`);
   * `undefined` when it is no link or the host cannot tell. Only to say where a broken link
   * points (AL1002); a host without it gets the sentence without the target.
   */
  readLink?(filePath: string): string | undefined;
  /**
   * Optional, for hosts that record what a compile read (the CLI's recording host,
   * `cli/inputs-record.ts`): takes probes the compile did not make through this host because it
   * reused results that depend on them (an untouched plugin's front-end results,
   * `compiler/plugin-reuse.ts`), each checked just now to get the recorded answer. A recording
   * host keeps them as if asked; a host without the method only reads.
   */
  replay?(probes: readonly Probe[]): void;
  /**
   * Optional, for a host that reads the disk and was asked to (`createNodeHost({ readAhead:
   * true })`, the CLI's compile): starts reading the regular files under `folders` ahead on
   * another thread (`common/read-ahead.ts`), so that this host's reads of them find their bytes
   * waiting. A hint only: every answer is what the host would give without it. Returns what
   * stops the read-ahead and drops what was not read yet; call it when the folders' reads are
   * over. A host that wraps another passes it on (a spread does; a host built anew says so).
   */
  readAhead?(folders: readonly string[], options?: ReadAheadOptions): Pick<ReadAhead, "close" | "whenDone">;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Lossy = new TextDecoder("utf-8", { fatal: false });
const utf8KeepingBom = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8LossyKeepingBom = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Decodes bytes as UTF-8, reporting invalid sequences (as U+FFFD, with `invalidUtf8`) instead of
 * throwing. A leading byte order mark is dropped, as `TextDecoder` does (the lock's readers,
 * `contract/read-lock.ts`), unless `keepBom`: then every mark is kept as U+FEFF, so that offsets
 * match what an editor shows and the text of valid UTF-8 encodes back to exactly `bytes`
 * (the disk host's reads, {@link CompilerHost.read}; `common/probes.ts` hashes those bytes as the text).
 */
export function decodeUtf8(bytes: Uint8Array, options: { readonly keepBom?: boolean } = {}): { text: string; invalidUtf8: boolean } {
  // All ASCII (most modules, manifests and locks): the bytes are the text, taken as Latin-1
  // without the decoder's work (a tenth of its time on the benchmark agent's 2,400 files).
  if (isAscii(bytes)) return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1"), invalidUtf8: false };
  try {
    return { text: (options.keepBom ? utf8KeepingBom : utf8).decode(bytes, { stream: false }), invalidUtf8: false };
  } catch {
    return { text: (options.keepBom ? utf8LossyKeepingBom : utf8Lossy).decode(bytes), invalidUtf8: true };
  }
}

/**
 * Where the disk host keeps {@link readKnownFile}'s reader: a non-enumerable property, so a host
 * that wraps the disk host by spreading it (an overlay) never passes it on and every read of
 * such a host still goes through its own `read`. A host that only watches reads passes it on
 * explicitly ({@link withKnownFileReads}).
 */
const READ_KNOWN_FILE = Symbol("assembly-line.read-known-file");

/** A host that may carry {@link readKnownFile}'s reader. */
type KnownFileReader = { [READ_KNOWN_FILE]?: (filePath: string) => ReadResult | undefined };

/**
 * `host.read(filePath)` for a path that `host.kind` (a folder listing or `lstat`) just called a
 * regular file, without a `stat` of the path first, when `host` is the disk host or a host that
 * watches its reads ({@link withKnownFileReads}: the probing and recording hosts): the file is
 * opened without blocking and its own `fstat` says it is still a regular file. One system call
 * and one path lookup fewer per file (2,400 per compile of the benchmark agent).
 * `undefined` for any other host, and when the path is no longer a regular file it can open
 * (a folder, a FIFO, missing, unreadable): the caller then asks `read`, whose answer is the rule.
 */
export function readKnownFile(host: CompilerHost, filePath: string): ReadResult | undefined {
  return (host as KnownFileReader)[READ_KNOWN_FILE]?.(filePath);
}

/**
 * `wrapper`, a host over `base` that sees every file read through it (a probing host,
 * `common/probes.ts`; a recording host, {@link createRecordingHost}), given `base`'s
 * {@link readKnownFile} reader when `base` has one: each file it reads is handed to `seen` (with
 * the path as asked), exactly as `wrapper`'s own `read` would see it, then returned. The reader
 * stays a non-enumerable property, so a host spread over `wrapper` (an overlay) still does not
 * take it. Without it, the default compile, whose snapshot host sits on two recording hosts,
 * asked `stat` before every read (docs/performance.md, "Tenth round"). Returns `wrapper`.
 */
export function withKnownFileReads<T extends CompilerHost>(wrapper: T, base: CompilerHost, seen: (filePath: string, result: ReadResult) => void): T {
  const reader = (base as KnownFileReader)[READ_KNOWN_FILE];
  if (!reader) return wrapper;
  const watched = (filePath: string): ReadResult | undefined => {
    const result = reader(filePath);
    if (result !== undefined) seen(filePath, result);
    return result;
  };
  return Object.defineProperty(wrapper, READ_KNOWN_FILE, { value: watched, enumerable: false });
}

/**
 * The disk host's {@link readKnownFile}: the file's bytes as read ahead (`ahead`), else open (not
 * blocking on a FIFO, not through a final link), `fstat`, read, close.
 */
function readOpenedFile(filePath: string, ahead: ReadAhead | undefined): ReadResult | undefined {
  const early = ahead?.take(filePath);
  if (early !== undefined) return fileRead(early.bytes, early.stat);
  let fd: number;
  try {
    // Not through a link: the path was a regular file when its kind was asked, and one that became
    // a link since (ELOOP) goes to `read`, whose answer is the rule.
    fd = fs.openSync(filePath, KNOWN_FILE_OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return undefined;
    const bytes = Buffer.allocUnsafe(stat.size);
    // Up to the size `fstat` gave, or the end of a file that shrank (as `readFileSync` reads).
    let filled = 0;
    while (filled < bytes.length) {
      const read = fs.readSync(fd, bytes, filled, bytes.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return fileRead(filled === bytes.length ? bytes : bytes.subarray(0, filled), fileStatOf(stat));
  } catch (error) {
    return { kind: "unreadable", reason: describe(error) };
  } finally {
    fs.closeSync(fd);
  }
}

/** A read of a file's `bytes`: decoded keeping a BOM (so positions match), versioned by its `stat`. */
function fileRead(bytes: Buffer, stat: FileStat): ReadResult {
  const { text, invalidUtf8 } = decodeKeepingBom(bytes);
  // Written out rather than spread: a spread runs slowly in a cold process (issue 14 item 1).
  return { kind: "file", text, invalidUtf8, version: `${stat.mtimeMs}:${stat.size}`, bytes, stat };
}

/** Options of {@link createNodeHost}. */
export interface NodeHostOptions {
  /**
   * Give the host {@link CompilerHost.readAhead}, which reads folders' files ahead on a worker
   * thread (`common/read-ahead.ts`): for a one-shot compile, whose reads of those files follow
   * soon. Default false (an editor's long-lived host reads a few files at a time). Off whatever
   * the caller asks when `ASSEMBLY_LINE_READ_AHEAD=0` (for measuring).
   */
  readonly readAhead?: boolean;
}

/**
 * The host that reads the real file system (used by the CLI and CI). Every answer is that of
 * the file system; a file read ahead ({@link NodeHostOptions.readAhead}) is answered with the
 * bytes and `fstat` of its opening on the read-ahead's thread, handed out once.
 */
export function createNodeHost(options: NodeHostOptions = {}): CompilerHost {
  let ahead: ReadAhead | undefined;
  const host = nodeHost(() => ahead);
  if (options.readAhead === true && process.env["ASSEMBLY_LINE_READ_AHEAD"] !== "0") {
    host.readAhead = (folders, readAheadOptions) => {
      ahead?.close();
      const started = startReadAhead(folders, readAheadOptions);
      ahead = started;
      return {
        close: () => {
          started.close();
          if (ahead === started) ahead = undefined;
        },
        whenDone: () => started.whenDone(),
      };
    };
  }
  return Object.defineProperty(host, READ_KNOWN_FILE, { value: (filePath: string) => readOpenedFile(filePath, ahead), enumerable: false });
}

function nodeHost(readAhead: () => ReadAhead | undefined): CompilerHost {
  return {
    read(filePath) {
      const early = readAhead()?.take(filePath);
      if (early !== undefined) return fileRead(early.bytes, early.stat);
      let stat: fs.Stats | undefined;
      try {
        // A missing path answers `undefined` rather than throwing: building the error costs more
        // than the system call, and a compile probes over a thousand missing paths (issue 14 item 1).
        stat = fs.statSync(filePath, { throwIfNoEntry: false });
      } catch (error) {
        return isMissing(error) ? { kind: "missing" } : { kind: "unreadable", reason: describe(error) };
      }
      if (stat === undefined) return { kind: "missing" };
      if (stat.isDirectory()) return { kind: "directory" };
      if (!stat.isFile()) return { kind: "unreadable", reason: "not a regular file" };
      try {
        return fileRead(fs.readFileSync(filePath), fileStatOf(stat));
      } catch (error) {
        return { kind: "unreadable", reason: describe(error) };
      }
    },
    readBytes(filePath) {
      const early = readAhead()?.take(filePath);
      if (early !== undefined) return early.bytes;
      try {
        const stat = fs.statSync(filePath, { throwIfNoEntry: false });
        return stat?.isFile() ? fs.readFileSync(filePath) : undefined;
      } catch {
        return undefined;
      }
    },
    readDirectory(dirPath) {
      const early = readAhead()?.takeListing(dirPath);
      if (early !== undefined) return [...early].sort(byName);
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dirPath, { withFileTypes: true });
      } catch {
        return undefined;
      }
      return entries
        .map((entry) => ({
          name: entry.name,
          kind: entry.isSymbolicLink()
            ? ("symlink" as const)
            : entry.isDirectory()
              ? ("directory" as const)
              : entry.isFile()
                ? ("file" as const)
                : ("other" as const),
        }))
        .sort(byName);
    },
    realpath(filePath) {
      try {
        return fs.realpathSync.native(filePath);
      } catch {
        return undefined;
      }
    },
    readLink(filePath) {
      try {
        return fs.readlinkSync(filePath);
      } catch {
        return undefined;
      }
    },
    kind(filePath) {
      try {
        const stat = fs.lstatSync(filePath, { throwIfNoEntry: false });
        if (stat === undefined) return "missing";
        if (stat.isSymbolicLink()) return "symlink";
        if (stat.isDirectory()) return "directory";
        if (stat.isFile()) return "file";
        return "other";
      } catch {
        return "missing";
      }
    },
  };
}

/** Directory entries in name order (code units), as {@link CompilerHost.readDirectory} gives them. */
function byName(a: DirectoryEntry, b: DirectoryEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** {@link decodeUtf8} keeping every byte order mark (one stripped by hand and a second by the decoder lost a character: found in review). */
function decodeKeepingBom(bytes: Uint8Array): { text: string; invalidUtf8: boolean } {
  return decodeUtf8(bytes, { keepBom: true });
}

/** An unsaved editor buffer that overrides the disk in {@link createOverlayHost}. */
export interface OverlayFile {
  readonly text: string;
  readonly version: string;
}

/**
 * Wraps a host so that `overlays` (absolute path → unsaved buffer) are read instead of the
 * disk. Used by the editor plugin and the language server; everything else passes through.
 *
 * `overlays` is read at each call, so the caller may keep updating the same map. An overlaid
 * path is a file for `kind` and `read`, and its `readBytes` are the buffer's UTF-8 bytes
 * (what the lock's content hash and the lock reader see) — unless the buffer holds what the
 * disk holds apart from a byte order mark (editors drop it from the text they show), in which
 * case the disk's exact bytes are returned, so an unchanged buffer hashes as the file does.
 */
export function createOverlayHost(base: CompilerHost, overlays: ReadonlyMap<string, OverlayFile>): CompilerHost {
  const overlayOf = (filePath: string): OverlayFile | undefined => overlays.get(path.resolve(filePath));
  return {
    ...base,
    read(filePath) {
      const overlay = overlayOf(filePath);
      return overlay ? { kind: "file", text: overlay.text, version: `overlay:${overlay.version}`, invalidUtf8: false } : base.read(filePath);
    },
    readBytes(filePath) {
      const overlay = overlayOf(filePath);
      if (!overlay) return base.readBytes(filePath);
      const disk = base.read(filePath);
      if (disk.kind === "file" && !disk.invalidUtf8 && withoutBom(disk.text) === withoutBom(overlay.text)) return base.readBytes(filePath);
      return new Uint8Array(Buffer.from(overlay.text, "utf8"));
    },
    kind(filePath) {
      return overlayOf(filePath) ? "file" : base.kind(filePath);
    },
  };
}

function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Wraps a host so that every file it reads (text or bytes) is reported to `record` with its
 * absolute path — `assembly-line inputs` lists what a compile read this way. Directory
 * listings, `kind` and `realpath` probes are not reads of a file and are not reported.
 */
export function createRecordingHost(base: CompilerHost, record: (filePath: string) => void): CompilerHost {
  const host: CompilerHost = {
    ...base,
    read(filePath) {
      const result = base.read(filePath);
      if (result.kind === "file") record(path.resolve(filePath));
      return result;
    },
    readBytes(filePath) {
      const bytes = base.readBytes(filePath);
      if (bytes !== undefined) record(path.resolve(filePath));
      return bytes;
    },
    // Files behind reused results were read by an earlier compile: they are inputs all the same.
    replay(probes) {
      for (const probe of probes) if ((probe.op === "read" || probe.op === "bytes") && probe.answer?.startsWith("file:")) record(probe.path);
      base.replay?.(probes);
    },
  };
  return withKnownFileReads(host, base, (filePath, result) => {
    if (result.kind === "file") record(path.resolve(filePath));
  });
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP";
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException | undefined;
  return e?.code ? `${e.code}: ${e.message}` : String(error);
}

/**
 * `realpath` from the parent folder's real path where the answer is certain, so that a compile
 * asks the operating system once per folder rather than once per file (issue 14 item 1: the
 * 200-plugin benchmark made about 2,600 `realpath` calls, each walking every component of the
 * path with a `readlink`). For an absolute, normalized path whose last component exists and is
 * not a symbolic link (`kind` is `file`, `directory` or `other`), its real path is the parent's
 * real path joined with that name: resolving links component by component, as `realpath(3)`
 * does, changes nothing at a component that is not a link. Only on Linux, whose `realpath`
 * keeps each component's name as written; on case-insensitive file systems (macOS, Windows)
 * `realpath` may also change a name's case, so every path is asked there. Anything else (a
 * link, a missing path, `.`/`..`, the file-system root) is asked of `realpath` itself, so the
 * answers — and with them the rule that package paths stay inside the plugin root after all
 * links are resolved (Agent Plugins v1 §4.1) — are exactly those of `realpath`.
 *
 * @param kind the host's `kind` (memoized by the caller: it is asked for each path and parent).
 * @param realpath the host's `realpath`, for the paths that cannot be derived.
 * @returns a memoizing `realpath`.
 */
export function derivedRealpath(
  kind: CompilerHost["kind"],
  realpath: CompilerHost["realpath"],
  platform: NodeJS.Platform = process.platform,
): CompilerHost["realpath"] {
  const known = new Map<string, string | undefined>();
  const resolve = (filePath: string): string | undefined => {
    if (known.has(filePath)) return known.get(filePath);
    const name = path.basename(filePath);
    const parent = path.dirname(filePath);
    let real: string | undefined;
    const derivable =
      platform === "linux" &&
      path.isAbsolute(filePath) &&
      // A path without `//` or a `/.` needs no normalizing (the check costs about 10 ms a compile).
      ((!filePath.includes("//") && !filePath.includes("/.")) || path.normalize(filePath) === filePath) &&
      // `lstat` of `link/` follows the link: a trailing separator is asked of realpath.
      !filePath.endsWith(path.sep) &&
      parent !== filePath &&
      name !== "" &&
      name !== "." &&
      name !== "..";
    if (derivable) {
      const found = kind(filePath);
      const realParent = found === "file" || found === "directory" || found === "other" ? resolve(parent) : undefined;
      // `name` is one plain component and `realParent` a real path: joining is concatenating.
      real = realParent === undefined ? realpath(filePath) : realParent === "/" ? `/${name}` : `${realParent}/${name}`;
    } else {
      real = realpath(filePath);
    }
    known.set(filePath, real);
    return real;
  };
  return resolve;
}
