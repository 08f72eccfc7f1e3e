/**
 * Probes of the file system and their answers, in the one format the inputs record, the
 * compile record (`cli/inputs-record.ts`, `cli/compile-record.ts`) and the front end's reuse
 * of untouched plugins (`compiler/plugin-reuse.ts`) write and compare (issue 14 items 3 and 4).
 *
 * A probe is one question a compile asked its host (`common/host.ts`): a file's text or bytes,
 * a folder's listing, a path's real path or kind. Its answer is a digest of what came back, so
 * asking again later says whether the compile would see the same input. A file read also keeps
 * the file's `stat`: a file whose `stat` is unchanged and that was not changed within
 * {@link RACY_MARGIN_MS} before the recording started holds without being read (Git's "racily
 * clean" rule: a coarse clock could hide a later write); otherwise it is read and hashed again.
 */
import * as nodeCrypto from "node:crypto";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { withKnownFileReads, type CompilerHost, type DirectoryEntry, type ReadResult } from "./host.js";
import { fileStatOf, type FileStat, type Probe } from "./probe.js";

/** A file changed this close (ms) before the recording started is compared by content, never by `stat` alone. */
export const RACY_MARGIN_MS = 2000;

export type { FileStat, Probe } from "./probe.js";

/**
 * True when `probe` gets the same answer now: a file read whose `stat` is the recorded one and
 * was changed before `trustedBefore` (ms) holds without a read; any other file is read and
 * hashed again; listings, link targets and kinds are asked again. Throws only what `host` throws.
 */
export function probeHolds(host: CompilerHost, probe: Probe, trustedBefore: number): boolean {
  if (typeof probe.path !== "string" || !path.isAbsolute(probe.path)) return false;
  switch (probe.op) {
    case "read":
    case "bytes": {
      if (probe.stat && statHolds(probe.path, probe.stat, trustedBefore)) return true;
      return probe.answer === (probe.op === "read" ? readAnswer(host.read(probe.path)) : bytesAnswer(host.readBytes(probe.path)));
    }
    case "list":
      return probe.answer === listAnswer(host.readDirectory(probe.path));
    case "real":
      return probe.answer === (host.realpath(probe.path) ?? null);
    case "kind":
      return probe.answer === host.kind(probe.path);
    default:
      return false;
  }
}

/**
 * True when the file's `stat` is the recorded one and neither its recorded mtime nor its
 * ctime is at or after `trustedBefore` (ms; the recording's start minus {@link RACY_MARGIN_MS}).
 * With `noLink`, also that the path is no symbolic link (one `lstat` instead of `stat`).
 * Never throws.
 */
export function statHolds(filePath: string, recorded: FileStat, trustedBefore: number, options: { readonly noLink?: boolean } = {}): boolean {
  if (!(recorded.mtimeMs < trustedBefore && recorded.ctimeMs < trustedBefore)) return false;
  let now: fs.Stats | undefined;
  try {
    // `noLink`: the path itself must be the file (`lstat`; a link is never a file here), so
    // that the same answer also says what `kind` would (`common/host.ts`: "file").
    now = options.noLink ? fs.lstatSync(filePath, { throwIfNoEntry: false }) : fs.statSync(filePath, { throwIfNoEntry: false });
  } catch {
    return false;
  }
  return now !== undefined && now.isFile() && now.size === recorded.size && now.mtimeMs === recorded.mtimeMs && now.ctimeMs === recorded.ctimeMs && now.ino === recorded.ino;
}

/** The `stat` of `filePath` when it is a file (and `isFile` says it was read as one); `{}` otherwise. Never throws. */
export function statOf(filePath: string, isFile: boolean): { stat?: FileStat } {
  if (!isFile) return {};
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(filePath, { throwIfNoEntry: false });
  } catch {
    return {};
  }
  return stat?.isFile() ? { stat: fileStatOf(stat) } : {};
}

/** The answer of a text read: `file:<sha256>` (and `:invalid-utf8`), or the kind of non-file met. */
export function readAnswer(result: ReadResult): string {
  if (result.kind !== "file") return result.kind;
  return `file:${textDigest(result)}${result.invalidUtf8 ? ":invalid-utf8" : ""}`;
}

/** {@link textDigest}'s answers, by the read result (hosts hand one object to every reader of a file). */
const textDigests = new WeakMap<ReadResult, string>();

/**
 * The SHA-256 (base64url) of a read file's text, encoded as UTF-8 (for a text decoded from valid
 * UTF-8, the digest of the bytes read), computed once per result object: the probes of the
 * compile record and of the plugin reuse, and the analysis cache's content fingerprints
 * (`compiler/static-analysis/analysis-session.ts`), all ask for it.
 */
export function textDigest(result: ReadResult & { readonly kind: "file" }): string {
  let known = textDigests.get(result);
  if (known === undefined) textDigests.set(result, (known = computeTextDigest(result)));
  return known;
}

/**
 * {@link textDigest} computed: of the bytes the text was decoded from when they were valid UTF-8
 * (the same digest: a decoded text keeps its BOM, `common/host.ts`, so its UTF-8 encoding is
 * those bytes; hashing them skips encoding the text again and checking it for lone surrogates,
 * about 15 ms of a first compile of the 200 × 10 agent); else of the text.
 */
function computeTextDigest(result: ReadResult & { readonly kind: "file" }): string {
  if (result.bytes !== undefined && !result.invalidUtf8) return digest(result.bytes);
  return wellFormed(result.text) ? digest(result.text) : `u16-${createHash("sha256").update(result.text, "utf16le").digest("base64url")}`;
}

/**
 * True when `text` has no lone surrogate, so that its UTF-8 encoding tells it apart from every
 * other text (an editor's unsaved text may hold one; a decoded file never does). A text with
 * one is hashed as UTF-16 instead (`u16-`), where UTF-8 would have made it U+FFFD.
 */
function wellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** The answer of a bytes read: `file:<sha256>`, or `none`. */
export function bytesAnswer(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? "none" : `file:${digest(bytes)}`;
}

/** The answer of a listing: a digest of its names and kinds, or `null` when not a directory. */
export function listAnswer(entries: readonly DirectoryEntry[] | undefined): string | null {
  return entries === undefined ? null : digest(entries.map((entry) => `${entry.kind}:${entry.name}`).join("\0"));
}

/** {@link listAnswer}'s answers, by the listing object (a snapshot host hands one to every caller). */
const listingAnswers = new WeakMap<readonly DirectoryEntry[], string>();

/** {@link listAnswer} of a listing, computed once per listing object. */
function listingAnswer(entries: readonly DirectoryEntry[]): string {
  let known = listingAnswers.get(entries);
  if (known === undefined) listingAnswers.set(entries, (known = listAnswer(entries)!));
  return known;
}

/**
 * SHA-256 of `data` (a text as its UTF-8 bytes), base64url: with `crypto.hash` (Node ≥ 20.12)
 * when there is one, one call and no `Hash` object (the thousands of listings and small files a
 * compile records hash faster; docs/performance.md, "Incremental compiles with packaging",
 * twelfth round).
 */
export function digest(data: string | Uint8Array): string {
  const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "base64url") => string }).hash;
  return oneShot ? oneShot("sha256", data, "base64url") : createHash("sha256").update(data).digest("base64url");
}

/** A file probe's answer and the file's `stat` taken just after it was read. */
type FileAnswer = { readonly answer: string; readonly stat?: FileStat };

/**
 * The answer and `stat` already taken for a read's result or bytes, by the very object a host
 * returned (`snapshotHost` hands every caller the object it read first), with the path it was
 * read from. Probing hosts stacked over one read (the compile record's below the snapshot, the
 * plugin reuse's above it) and repeated reads of one file then hash and `stat` it once: the
 * default compile of the 200 × 10 agent hashed 15,017 times and called `stat` 10,822 times
 * (docs/performance.md, "Eighth round").
 */
const fileAnswers = new WeakMap<object, FileAnswer & { readonly path: string }>();

/**
 * The probe fields (answer, `stat`) of the file read as `read` (a text read's result or the bytes
 * read) from `absolute`: the ones taken for this object before, else `answer()` and the `stat`
 * the read carries (the disk host's, taken as it read: `ReadResult.stat`) or {@link statOf} now.
 * The bytes a valid UTF-8 text was decoded from (`ReadResult.bytes`) get the same answer and
 * `stat` with it: the text's SHA-256 is that of its UTF-8 encoding, those bytes.
 */
function fileProbe(read: ReadResult | Uint8Array, absolute: string, answer: () => string): FileAnswer {
  const known = fileAnswers.get(read);
  if (known !== undefined && known.path === absolute) return known.stat ? { answer: known.answer, stat: known.stat } : { answer: known.answer };
  // The read's own `stat` only on its first probe (probed again under another path: that path's).
  const carried = known === undefined && !(read instanceof Uint8Array) && read.kind === "file" ? read.stat : undefined;
  const fresh = { path: absolute, answer: answer(), ...(carried ? { stat: carried } : statOf(absolute, true)) };
  fileAnswers.set(read, fresh);
  const sameAsBytes = !(read instanceof Uint8Array) && read.kind === "file" && read.bytes !== undefined && !read.invalidUtf8 && !fresh.answer.startsWith("file:u16-");
  if (sameAsBytes && !fileAnswers.has(read.bytes!)) fileAnswers.set(read.bytes!, fresh);
  return fresh.stat ? { answer: fresh.answer, stat: fresh.stat } : { answer: fresh.answer };
}

/**
 * `base` with every question asked through it handed to `keep` as a {@link Probe} with its
 * answer (a file read with its `stat`), after `base` answered. The one place that turns host
 * calls into probes: the CLI's recording host (`cli/inputs-record.ts`) and the front end's
 * per-plugin reuse (`compiler/plugin-reuse.ts`) both record through it. Without `replay`
 * (each caller decides what replayed probes mean).
 */
export function probingHost(base: CompilerHost, keep: (probe: Probe) => void): CompilerHost {
  const probeRead = (filePath: string, result: ReadResult): void => {
    const absolute = path.resolve(filePath);
    keep({ op: "read", path: absolute, ...(result.kind === "file" ? fileProbe(result, absolute, () => readAnswer(result)) : { answer: result.kind }) });
  };
  const host: CompilerHost = {
    read(filePath) {
      const result = base.read(filePath);
      probeRead(filePath, result);
      return result;
    },
    readBytes(filePath) {
      const bytes = base.readBytes(filePath);
      const absolute = path.resolve(filePath);
      keep({ op: "bytes", path: absolute, ...(bytes !== undefined ? fileProbe(bytes, absolute, () => bytesAnswer(bytes)) : { answer: bytesAnswer(bytes) }) });
      return bytes;
    },
    readDirectory(dirPath) {
      const entries = base.readDirectory(dirPath);
      keep({ op: "list", path: path.resolve(dirPath), answer: entries === undefined ? null : listingAnswer(entries) });
      return entries;
    },
    realpath(filePath) {
      const real = base.realpath(filePath);
      keep({ op: "real", path: path.resolve(filePath), answer: real ?? null });
      return real;
    },
    kind(filePath) {
      const kind = base.kind(filePath);
      keep({ op: "kind", path: path.resolve(filePath), answer: kind });
      return kind;
    },
    // Reads filled by a read-ahead are probed here as any other read.
    ...(base.readAhead ? { readAhead: base.readAhead.bind(base) } : {}),
    // Asked only to word an error about a link whose `kind` was probed: that probe covers it.
    ...(base.readLink ? { readLink: base.readLink.bind(base) } : {}),
  };
  // A read of a path the listing called a file, without `stat` first, is probed as `read`'s.
  return withKnownFileReads(host, base, probeRead);
}

/** Where a {@link ProbeSet} keeps one path's probes: the index of each operation's in its list. */
type ProbeSlots = { -readonly [Op in Probe["op"]]?: number };

/**
 * Probes in the order they were first made, each path once per operation: the one rule by which
 * the recording host (`cli/inputs-record.ts`), the compile record (`cli/compile-record.ts`) and
 * the plugin reuse (`compiler/plugin-reuse.ts`) collect what a compile asked. Keyed by path, then
 * operation, without building a key string per question (a compile of the 200 × 10 agent asks
 * about 17,000; docs/performance.md, "Fourteenth round").
 */
export class ProbeSet {
  readonly #slots = new Map<string, ProbeSlots>();
  readonly #list: Probe[] = [];

  /** Adds `probe` unless its path was probed by its operation already; returns whether it was added. */
  add(probe: Probe): boolean {
    let slots = this.#slots.get(probe.path);
    if (slots === undefined) this.#slots.set(probe.path, (slots = {}));
    else if (slots[probe.op] !== undefined) return false;
    slots[probe.op] = this.#list.push(probe) - 1;
    return true;
  }

  /** Puts `probe` in place of its path's probe by its operation (where that one was), or adds it. */
  set(probe: Probe): void {
    const at = this.#slots.get(probe.path)?.[probe.op];
    if (at === undefined) this.add(probe);
    else this.#list[at] = probe;
  }

  /** The probe of `filePath` by `op`, if any. */
  get(op: Probe["op"], filePath: string): Probe | undefined {
    const at = this.#slots.get(filePath)?.[op];
    return at === undefined ? undefined : this.#list[at];
  }

  has(op: Probe["op"], filePath: string): boolean {
    return this.#slots.get(filePath)?.[op] !== undefined;
  }

  /** The probes, in order (a copy). */
  values(): Probe[] {
    return [...this.#list];
  }
}
