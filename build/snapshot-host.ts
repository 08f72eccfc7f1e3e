/**
 * The file-system view of one compile (DESIGN §5: a compile sees one consistent snapshot).
 */
import type { CompilerHost } from "../common/host.js";

/**
 * The host of one compile: asks `base` once per path and answers from memory afterwards, so
 * a compile sees one consistent snapshot of the files and does not read them twice. Raw bytes
 * of a file already read as valid UTF-8 text are its text encoded again (exactly the bytes
 * read: the byte order mark is kept as U+FEFF), so hashing a plugin directory after the
 * analysis read its modules costs no second read.
 */
export function snapshotHost(base: CompilerHost): CompilerHost {
  const reads = new Map<string, ReturnType<CompilerHost["read"]>>();
  const bytes = new Map<string, Uint8Array | undefined>();
  const directories = new Map<string, ReturnType<CompilerHost["readDirectory"]>>();
  const realpaths = new Map<string, string | undefined>();
  const kinds = new Map<string, ReturnType<CompilerHost["kind"]>>();
  const memo = <T>(map: Map<string, T>, key: string, compute: () => T): T => {
    if (map.has(key)) return map.get(key)!;
    const value = compute();
    map.set(key, value);
    return value;
  };
  return {
    read: (filePath) => memo(reads, filePath, () => base.read(filePath)),
    readBytes: (filePath) =>
      memo(bytes, filePath, () => {
        const read = reads.get(filePath);
        return read?.kind === "file" && !read.invalidUtf8 ? Buffer.from(read.text, "utf8") : base.readBytes(filePath);
      }),
    readDirectory: (dirPath) => memo(directories, dirPath, () => base.readDirectory(dirPath)),
    realpath: (filePath) => memo(realpaths, filePath, () => base.realpath(filePath)),
    kind: (filePath) => memo(kinds, filePath, () => base.kind(filePath)),
  };
}
