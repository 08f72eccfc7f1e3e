/**
 * An in-memory {@link CompilerHost} for static-analysis tests: a map of absolute paths to
 * texts, optional symlinks and directories, versions that change on every write, and a count
 * of reads per path (to prove results are reused).
 */
import * as path from "node:path";
import type { CompilerHost, DirectoryEntry, ReadResult } from "../../common/host.js";

/** A test host whose files can be changed between analyses. */
export interface MemoryHost extends CompilerHost {
  /** Writes (or replaces) a file; its version changes. */
  write(filePath: string, text: string, options?: { invalidUtf8?: boolean }): void;
  remove(filePath: string): void;
  /** Number of `read` calls per path since the last {@link resetCounts}. */
  readonly reads: Map<string, number>;
  resetCounts(): void;
}

/**
 * @param files absolute path → text.
 * @param symlinks absolute link path → absolute target (followed by `read` and `realpath`).
 * @param directories extra absolute directory paths (parents of files are directories too).
 */
export function createMemoryHost(
  files: Readonly<Record<string, string>>,
  symlinks: Readonly<Record<string, string>> = {},
  directories: readonly string[] = [],
): MemoryHost {
  const contents = new Map<string, { text: string; version: number; invalidUtf8: boolean }>();
  const dirs = new Set<string>(directories);
  const reads = new Map<string, number>();
  let clock = 0;
  const addParents = (filePath: string): void => {
    for (let dir = path.dirname(filePath); !dirs.has(dir); dir = path.dirname(dir)) {
      dirs.add(dir);
      if (dir === path.dirname(dir)) break;
    }
  };
  const write = (filePath: string, text: string, options: { invalidUtf8?: boolean } = {}): void => {
    contents.set(filePath, { text, version: ++clock, invalidUtf8: options.invalidUtf8 ?? false });
    addParents(filePath);
  };
  for (const [filePath, text] of Object.entries(files)) write(filePath, text);
  const resolveLinks = (filePath: string): string => {
    let current = filePath;
    for (let i = 0; i < 40; i++) {
      const link = Object.entries(symlinks).find(([from]) => current === from || current.startsWith(`${from}/`));
      if (!link) return current;
      current = link[1] + current.slice(link[0].length);
    }
    return current;
  };
  const host: MemoryHost = {
    reads,
    write,
    remove: (filePath) => void contents.delete(filePath),
    resetCounts: () => reads.clear(),
    read(filePath): ReadResult {
      reads.set(filePath, (reads.get(filePath) ?? 0) + 1);
      const real = resolveLinks(filePath);
      const file = contents.get(real);
      if (file) return { kind: "file", text: file.text, version: String(file.version), invalidUtf8: file.invalidUtf8 };
      return dirs.has(real) ? { kind: "directory" } : { kind: "missing" };
    },
    readBytes(filePath) {
      const file = contents.get(resolveLinks(filePath));
      return file ? new TextEncoder().encode(file.text) : undefined;
    },
    readDirectory(dirPath): readonly DirectoryEntry[] | undefined {
      if (!dirs.has(dirPath)) return undefined;
      const names = new Map<string, DirectoryEntry["kind"]>();
      for (const filePath of contents.keys()) if (path.dirname(filePath) === dirPath) names.set(path.basename(filePath), "file");
      for (const dir of dirs) if (dir !== dirPath && path.dirname(dir) === dirPath) names.set(path.basename(dir), "directory");
      return [...names].map(([name, kind]) => ({ name, kind })).sort((a, b) => (a.name < b.name ? -1 : 1));
    },
    realpath(filePath) {
      const real = resolveLinks(filePath);
      return contents.has(real) || dirs.has(real) ? real : undefined;
    },
    kind(filePath) {
      if (Object.hasOwn(symlinks, filePath)) return "symlink";
      if (contents.has(filePath)) return "file";
      return dirs.has(filePath) ? "directory" : "missing";
    },
  };
  return host;
}
