/**
 * Reading a small state file the toolchain wrote itself (`.assemblyline/cache/isolation.json`,
 * `sandbox-start.json`) from an agent folder that may not be trustworthy: a cloned repository can
 * hold any file there, a link to `/dev/zero` or a named pipe included. Such a file must cost
 * nothing: never followed through a link, never waited on (a FIFO without a writer would block a
 * plain read for good), never read past a size bound (`/dev/zero` has no end).
 */
import * as fs from "node:fs";

/** `O_NOFOLLOW` and `O_NONBLOCK` where the platform has them (not on Windows). */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * The UTF-8 text of `file` when it is a regular file, not a link, of at most `maxBytes` bytes;
 * otherwise `undefined`: missing, unreadable, a link (`O_NOFOLLOW`), a FIFO or device (opened
 * without blocking, then refused by its type), larger than `maxBytes`, or grown past its size
 * while read, or refused by `accept` (given the open file's `stat`: e.g. its owner and mode,
 * checked on the very file read, not on a path that could be replaced in between). Never throws.
 */
export function readSmallRegularFile(file: string, maxBytes: number, accept?: (stat: fs.Stats) => boolean): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes || (accept !== undefined && !accept(stat))) return undefined;
    // One byte more than the size, to notice a file that grows while it is read.
    const buffer = Buffer.alloc(stat.size + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const read = fs.readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return filled > stat.size ? undefined : buffer.toString("utf8", 0, filled);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
