/**
 * Opening, reading, writing, walking and removing entries beneath a folder without ever
 * following a symbolic link on the way: how the host touches a run's workspace, where a tool's
 * shell command may have left links, or swap one in while the host works (reviews of 5
 * December, N2, and the host-file review of 5 December: the core file tools checked with `realpath` and then opened,
 * so a link swapped in between led `read`, `write`, `delete` and `grep` out of the workspace).
 *
 * Node has no `openat2(RESOLVE_BENEATH)`. On Linux an open folder is named by its descriptor
 * (`/proc/self/fd/<fd>`), so each component is opened `O_NOFOLLOW` through the folder before it,
 * which is what `openat` would do: a link is refused wherever it appears, also one swapped in
 * after an earlier check. Elsewhere ({@link FOLDERS_BY_DESCRIPTOR} false) components are
 * joined as paths: only the last one of each open is guarded, and a link swapped into an
 * earlier one between two opens is followed (there a shell command runs without isolation
 * anyway, `../sandbox/shell-isolation.ts`, and can write anywhere itself).
 *
 * Files are opened `O_NONBLOCK`: a named pipe a shell command made where a file was expected
 * would otherwise block the host's open for good, and four such opens stall every asynchronous
 * file operation of the host (host-file review of 5 December, H4); {@link readFileIn} reads regular files
 * only, and never more than the size it checked (H8, H8b).
 *
 * Errors are Node's own (`ErrnoException`), with `ELOOP` for a link found where a folder or a
 * file was to be opened, `EISDIR` for a folder and `EFTYPE` for anything else that is not a
 * regular file (a named pipe, a socket, a device) where a file was to be read; callers say what
 * that means for their user.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Whether this host can name an open folder by its descriptor (`/proc/self/fd/<fd>`, Linux). */
export const FOLDERS_BY_DESCRIPTOR = process.platform === "linux" && fs.existsSync("/proc/self/fd");

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** A folder held open; entries in it are named with {@link entryOf}. Close it with {@link closeFolder}. */
export interface OpenFolder {
  readonly fd: number;
  /** The folder's path as opened (for messages and the non-Linux fallback). */
  readonly path: string;
}

/** The name under which the folder itself is opened or read (`readdir`): its descriptor on Linux. */
export function folderName(folder: OpenFolder): string {
  return FOLDERS_BY_DESCRIPTOR ? `/proc/self/fd/${folder.fd}` : folder.path;
}

/** The name of entry `name` of `folder`, resolved through the open folder, not through its path. */
export function entryOf(folder: OpenFolder, name: string): string {
  return FOLDERS_BY_DESCRIPTOR ? `/proc/self/fd/${folder.fd}/${name}` : path.join(folder.path, name);
}

const ERRNO_WORDS = { ELOOP: "a symbolic link is on the way", ENOTDIR: "not a folder", EISDIR: "a folder, not a file", EFTYPE: "not a regular file" } as const;

function errnoError(code: keyof typeof ERRNO_WORDS, syscall: string, at: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${ERRNO_WORDS[code]}, ${syscall} '${at}'`);
  error.code = code;
  error.syscall = syscall;
  error.path = at;
  return error;
}

/** Opens `folderPath` itself (the host's own path: links in it are followed). */
export function openFolder(folderPath: string): OpenFolder {
  return { fd: fs.openSync(folderPath, O_RDONLY | O_DIRECTORY), path: folderPath };
}

/** Closes `folder`; closing twice or a descriptor already gone is not an error. */
export function closeFolder(folder: OpenFolder): void {
  try {
    fs.closeSync(folder.fd);
  } catch {
    // Already closed.
  }
}

/**
 * Opens the folder `name` of `parent`, never through a link. With `create`, a missing folder
 * is made first. Throws `ELOOP` when `name` is a symbolic link, `ENOTDIR` when it is a file,
 * `ENOENT` when it is missing.
 */
export function openChildFolder(parent: OpenFolder, name: string, create = false): OpenFolder {
  const at = entryOf(parent, name);
  if (create) {
    try {
      fs.mkdirSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  try {
    // Joined as text, not with path.join: that normalises the whole path again at every level.
    return { fd: fs.openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), path: `${parent.path}${parent.path.endsWith("/") ? "" : "/"}${name}` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // `O_DIRECTORY` answers ENOTDIR for a link as for a file (and ELOOP on some systems): which one it was is said.
    if (code === "ELOOP" || code === "ENOTDIR") {
      throw errnoError(fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink() ? "ELOOP" : "ENOTDIR", "open", path.join(parent.path, name));
    }
    throw error;
  }
}

/**
 * Opens the folder reached from `root` through `parts` (names, none of them `.`, `..` or
 * empty), each through the one before ({@link openChildFolder}); `root` itself is the host's
 * path and opened as it is. The caller closes the result.
 */
export function openFolderBeneath(root: string, parts: readonly string[], create = false): OpenFolder {
  let folder = openFolder(root);
  try {
    for (const part of parts) {
      const next = openChildFolder(folder, part, create);
      closeFolder(folder);
      folder = next;
    }
    return folder;
  } catch (error) {
    closeFolder(folder);
    throw error;
  }
}

/** Runs `use` with the folder {@link openFolderBeneath} opens, and closes it afterwards. */
export async function withFolderBeneath<T>(root: string, parts: readonly string[], create: boolean, use: (folder: OpenFolder) => Promise<T> | T): Promise<T> {
  const folder = openFolderBeneath(root, parts, create);
  try {
    return await use(folder);
  } finally {
    closeFolder(folder);
  }
}

/**
 * Opens the entry `name` of `folder` with `flags` (`O_NOFOLLOW` and `O_NONBLOCK` are added): a
 * link there is refused (`ELOOP`), a named pipe never blocks the open (one without a reader
 * refuses a write with `ENXIO`), a new file is made with `mode`. The caller closes the handle
 * and checks what it opened (`handle.stat()`), as {@link readFileIn} does.
 */
export async function openIn(folder: OpenFolder, name: string, flags: number, mode?: number): Promise<fs.promises.FileHandle> {
  try {
    return await fs.promises.open(entryOf(folder, name), flags | O_NOFOLLOW | O_NONBLOCK, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw errnoError("ELOOP", "open", path.join(folder.path, name));
    throw error;
  }
}

/**
 * Opens the regular file `name` of `folder` with `flags` ({@link openIn}) and returns the handle
 * with what it opened; refuses a folder (`EISDIR`) and anything else that is not a regular file
 * (`EFTYPE`: a named pipe with a reader opens for writing too). The caller closes the handle.
 */
export async function openFileIn(folder: OpenFolder, name: string, flags: number, mode?: number): Promise<{ readonly handle: fs.promises.FileHandle; readonly stats: fs.Stats }> {
  const handle = await openIn(folder, name, flags, mode);
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw errnoError("EISDIR", "open", path.join(folder.path, name));
    if (!stats.isFile()) throw errnoError("EFTYPE", "open", path.join(folder.path, name));
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads the regular file `name` of `folder` ({@link openIn}): refuses a folder (`EISDIR`) and
 * anything else that is not a regular file (`EFTYPE`), calls `tooLarge(size)` for the error to
 * throw when the file is over `maxBytes`, and reads at most the size it checked (a file that
 * grows meanwhile is read as far as that size; host-file review of 5 December, H8b).
 */
export async function readFileIn(folder: OpenFolder, name: string, maxBytes: number, tooLarge: (size: number) => Error): Promise<Buffer> {
  const { handle, stats } = await openFileIn(folder, name, O_RDONLY);
  try {
    if (stats.size > maxBytes) throw tooLarge(stats.size);
    const buffer = Buffer.alloc(stats.size);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** Folder levels below its start that a walk or a recursive removal enters (each holds a descriptor while it is open; host-file review of 5 December, H5). */
export const MAX_FOLDER_DEPTH = 256;

/**
 * Removes the entry `name` of `folder`: a file or a link (the link itself), or a folder (with
 * `recursive`, its contents first, each folder opened through the one before, so a link swapped
 * in anywhere below is removed as a link or refused, never followed; `ETOODEEP` for folders
 * nested more than {@link MAX_FOLDER_DEPTH} levels below it, whose upper levels are left).
 * Returns what it removed.
 */
export async function removeIn(folder: OpenFolder, name: string, recursive: boolean, depth = 0): Promise<"file" | "folder" | "symlink"> {
  const at = entryOf(folder, name);
  const stats = await fs.promises.lstat(at);
  if (!stats.isDirectory()) {
    await fs.promises.unlink(at);
    return stats.isSymbolicLink() ? "symlink" : "file";
  }
  if (recursive) {
    if (depth >= MAX_FOLDER_DEPTH) throw tooDeep(path.join(folder.path, name));
    const child = openChildFolder(folder, name);
    try {
      for (const entry of await fs.promises.readdir(folderName(child))) await removeIn(child, entry, true, depth + 1);
    } finally {
      closeFolder(child);
    }
  }
  await fs.promises.rmdir(at);
  return "folder";
}

/** The error of a recursive removal that reached {@link MAX_FOLDER_DEPTH} (code `ETOODEEP`). */
function tooDeep(at: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ETOODEEP: folders nest more than ${MAX_FOLDER_DEPTH} levels deep, rmdir '${at}'`);
  error.code = "ETOODEEP";
  return error;
}
