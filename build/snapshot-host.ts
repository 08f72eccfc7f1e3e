/**
 * The file-system view of one compile (DESIGN §5: a compile sees one consistent snapshot).
 */
import * as path from "node:path";
import { derivedRealpath, readKnownFile, type CompilerHost, type DirectoryEntry } from "../common/host.js";

/** Options of {@link snapshotHost}. */
export interface SnapshotHostOptions {
  /**
   * Derive a path's real path from its folder's where certain (`derivedRealpath` in
   * `common/host.ts`): for a base that is the operating system's file system (`createNodeHost`),
   * whose `kind` and `realpath` answer alike. Default false: every path is asked of `base`.
   */
  readonly deriveRealpaths?: boolean;
  /**
   * A folder (absolute; the agent root) inside which the kind of a path is read from its
   * folder's listing (`readDirectory`, asked once per folder; a directory entry's type is what
   * `lstat` says of it) instead of one `lstat` per path, when the listing names it: the
   * compile's own walks (the plugin folder hashes) list those folders anyway, so a plugin's
   * dozen probes cost no system call of their own. A name the listing lacks is missing when the
   * name and every listed name are ASCII and none equals it but for case (so that a file system
   * that ignores case would not find it either); otherwise, and for a folder that cannot be
   * listed, it is asked of `base` as before. Only for a base that is the operating
   * system's file system and records nothing (a recording host must see each probe); not on
   * Windows. Default: none.
   */
  readonly kindsFromListingsWithin?: string;
}

/** The host of one compile ({@link snapshotHost}), which can also say what it has listed so far. */
export interface SnapshotHost extends CompilerHost {
  /**
   * The listing of `dirPath` this host holds already (asked of its base earlier in the compile),
   * without asking anything; `undefined` when it holds none (not listed yet, or not a folder).
   * Packaging's bundle cache checks the folders of unchanged bundles with these instead of listing
   * each plugin folder a second time (`packaging/bundle-cache.ts`, `knownListing`).
   */
  knownListing(dirPath: string): readonly DirectoryEntry[] | undefined;
}

/**
 * The host of one compile: asks `base` once per path and answers from memory afterwards, so
 * a compile sees one consistent snapshot of the files and does not read them twice. Raw bytes
 * of a file already read as text are the bytes that read kept (`ReadResult.bytes`, the disk
 * host's), or else, for valid UTF-8, its text encoded again (exactly the bytes read: the byte
 * order mark is kept as U+FEFF), so hashing a plugin directory after the analysis read its
 * modules costs no second read (and, from the disk, no encoding either).
 */
export function snapshotHost(base: CompilerHost, options: SnapshotHostOptions = {}): SnapshotHost {
  const reads = new Map<string, ReturnType<CompilerHost["read"]>>();
  const bytes = new Map<string, Uint8Array | undefined>();
  const directories = new Map<string, ReturnType<CompilerHost["readDirectory"]>>();
  const kinds = new Map<string, ReturnType<CompilerHost["kind"]>>();
  const realpaths = new Map<string, string | undefined>();
  const memo = <T>(map: Map<string, T>, key: string, compute: () => T): T => {
    const known = map.get(key);
    if (known !== undefined || map.has(key)) return known!;
    const value = compute();
    map.set(key, value);
    return value;
  };
  const readDirectory: CompilerHost["readDirectory"] = (dirPath) => memo(directories, dirPath, () => base.readDirectory(dirPath));
  const listed = options.kindsFromListingsWithin !== undefined && process.platform !== "win32" ? listedKinds(path.resolve(options.kindsFromListingsWithin) + path.sep, readDirectory) : undefined;
  const kind: CompilerHost["kind"] = (filePath) => memo(kinds, filePath, () => listed?.(filePath) ?? base.kind(filePath));
  // One `realpath` per folder: a path whose last component is no link is its folder's real path
  // joined with its name (`derivedRealpath`, which memoizes; Linux only, else every path is asked).
  const realpath = options.deriveRealpaths ? derivedRealpath(kind, (filePath) => base.realpath(filePath)) : (filePath: string) => memo(realpaths, filePath, () => base.realpath(filePath));
  return {
    // A path its listing (or `lstat`) called a regular file is read without a `stat` first
    // when the base is the disk host (`readKnownFile`); any other read is the base's.
    read: (filePath) => memo(reads, filePath, () => (kinds.get(filePath) === "file" ? readKnownFile(base, filePath) : undefined) ?? base.read(filePath)),
    readBytes: (filePath) =>
      memo(bytes, filePath, () => {
        const read = reads.get(filePath);
        if (read?.kind !== "file") return base.readBytes(filePath);
        // The bytes the text came from (the disk host keeps them), else the text encoded again.
        return read.bytes ?? (read.invalidUtf8 ? base.readBytes(filePath) : Buffer.from(read.text, "utf8"));
      }),
    readDirectory,
    realpath,
    kind,
    knownListing: (dirPath) => directories.get(dirPath),
    // Probes of reused results go to the base (a recording host) as they are: nothing is asked.
    ...(base.replay ? { replay: (probes: Parameters<NonNullable<CompilerHost["replay"]>>[0]) => base.replay!(probes) } : {}),
    // A read-ahead fills the base's reads, which this host asks once per path as ever.
    ...(base.readAhead ? { readAhead: base.readAhead.bind(base) } : {}),
    ...(base.readLink ? { readLink: base.readLink.bind(base) } : {}),
  };
}

const DOUBLE_SEPARATOR = path.sep + path.sep;
const DOT_SEGMENT = `${path.sep}.`;

/** One folder's listing as {@link listedKinds} reads it. */
interface ListedFolder {
  readonly kinds: ReadonlyMap<string, ReturnType<CompilerHost["kind"]>>;
  /**
   * The listed names in lower case when every one is ASCII, made on the first name the listing
   * lacks; `null` when one is not ASCII (then a lacking name is asked of `lstat`).
   */
  folded?: ReadonlySet<string> | null;
}

const ASCII_NAME = /^[\x00-\x7f]*$/;

/**
 * The kind of a path strictly inside `within` (ending in a separator) as its folder's listing
 * names it, or `"missing"` when the listing lacks its name and no listed name equals it but for
 * case, all names being ASCII: a file system that ignores case (or Unicode normalization, for
 * names that are not ASCII) could find a name a listing spells otherwise, so only such a name
 * goes to `lstat`. `undefined` when the path is not a plain absolute path there, the folder
 * cannot be listed, or the name is missing from the listing but not certainly missing (then
 * `lstat` decides, as before).
 */
function listedKinds(within: string, readDirectory: CompilerHost["readDirectory"]): (filePath: string) => ReturnType<CompilerHost["kind"]> | undefined {
  const folders = new Map<string, ListedFolder | undefined>();
  return (filePath) => {
    if (!filePath.startsWith(within) || filePath.endsWith(path.sep)) return undefined;
    // A plain path needs no normalizing: only one with `//` or a `/.` segment is checked.
    if ((filePath.includes(DOUBLE_SEPARATOR) || filePath.includes(DOT_SEGMENT)) && path.normalize(filePath) !== filePath) return undefined;
    // `path.dirname` and `path.basename`, for a path known plain and strictly inside `within`.
    const cut = filePath.lastIndexOf(path.sep);
    const folder = cut === 0 ? path.sep : filePath.slice(0, cut);
    let listed = folders.get(folder);
    if (listed === undefined && !folders.has(folder)) {
      const entries = readDirectory(folder);
      listed = entries && { kinds: new Map(entries.map((entry) => [entry.name, entry.kind])) };
      folders.set(folder, listed);
    }
    if (listed === undefined) return undefined;
    const name = filePath.slice(cut + 1);
    const kind = listed.kinds.get(name);
    if (kind !== undefined || !ASCII_NAME.test(name)) return kind;
    if (listed.folded === undefined) {
      const names = [...listed.kinds.keys()];
      listed.folded = names.every((listedName) => ASCII_NAME.test(listedName)) ? new Set(names.map((listedName) => listedName.toLowerCase())) : null;
    }
    return listed.folded !== null && !listed.folded.has(name.toLowerCase()) ? "missing" : undefined;
  };
}
