/**
 * The file-system view of one compile (DESIGN §5: a compile sees one consistent snapshot).
 */
import { derivedRealpath, type CompilerHost } from "../common/host.js";

/** Options of {@link snapshotHost}. */
export interface SnapshotHostOptions {
  /**
   * Derive a path's real path from its folder's where certain (`derivedRealpath` in
   * `common/host.ts`): for a base that is the operating system's file system (`createNodeHost`),
   * whose `kind` and `realpath` answer alike. Default false: every path is asked of `base`.
   */
  readonly deriveRealpaths?: boolean;
}

/**
 * The host of one compile: asks `base` once per path and answers from memory afterwards, so
 * a compile sees one consistent snapshot of the files and does not read them twice. Raw bytes
 * of a file already read as valid UTF-8 text are its text encoded again (exactly the bytes
 * read: the byte order mark is kept as U+FEFF), so hashing a plugin directory after the
 * analysis read its modules costs no second read.
 */
export function snapshotHost(base: CompilerHost, options: SnapshotHostOptions = {}): CompilerHost {
  const reads = new Map<string, ReturnType<CompilerHost["read"]>>();
  const bytes = new Map<string, Uint8Array | undefined>();
  const directories = new Map<string, ReturnType<CompilerHost["readDirectory"]>>();
  const kinds = new Map<string, ReturnType<CompilerHost["kind"]>>();
  const realpaths = new Map<string, string | undefined>();
  const memo = <T>(map: Map<string, T>, key: string, compute: () => T): T => {
    if (map.has(key)) return map.get(key)!;
    const value = compute();
    map.set(key, value);
    return value;
  };
  const kind: CompilerHost["kind"] = (filePath) => memo(kinds, filePath, () => base.kind(filePath));
  // One `realpath` per folder: a path whose last component is no link is its folder's real path
  // joined with its name (`derivedRealpath`, which memoizes; Linux only, else every path is asked).
  const realpath = options.deriveRealpaths ? derivedRealpath(kind, (filePath) => base.realpath(filePath)) : (filePath: string) => memo(realpaths, filePath, () => base.realpath(filePath));
  return {
    read: (filePath) => memo(reads, filePath, () => base.read(filePath)),
    readBytes: (filePath) =>
      memo(bytes, filePath, () => {
        const read = reads.get(filePath);
        return read?.kind === "file" && !read.invalidUtf8 ? Buffer.from(read.text, "utf8") : base.readBytes(filePath);
      }),
    readDirectory: (dirPath) => memo(directories, dirPath, () => base.readDirectory(dirPath)),
    realpath,
    kind,
    // Probes of reused results go to the base (a recording host) as they are: nothing is asked.
    ...(base.replay ? { replay: (probes: Parameters<NonNullable<CompilerHost["replay"]>>[0]) => base.replay!(probes) } : {}),
  };
}
