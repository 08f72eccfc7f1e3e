/**
 * The one reader of `plugins.lock` (issue 8 item 3: "two `readLockfile`s"): where the lock is
 * read from, what counts as missing or unreadable, and how its bytes become text. The compiler
 * (`lockfile/read-lockfile.ts`: conflict markers, JSON, version and shape, AL6003–AL6011) and the
 * runtime (`runtime-min/artifact/read-lock.ts`: the bytes whose SRI the manifest records, AL8004
 * and AL8005) both start from {@link readLockBytes}, so they cannot disagree on what the file
 * holds; each then reports in its own words. It lives in `contract/` because the runtime must
 * not import `lockfile/`, and it loads nothing but the file-system host.
 */
import { isAscii } from "node:buffer";
import { createNodeHost, decodeUtf8, type CompilerHost } from "../common/host.js";

/** What {@link readLockBytes} found at the lock's path. */
export type LockBytes =
  | { readonly kind: "missing" }
  /** A directory, a broken symlink or a file that cannot be read; `reason` says which, in words. */
  | { readonly kind: "unreadable"; readonly reason: string }
  /**
   * The exact `bytes` (whose SRI an artifact records) and their UTF-8 `text` (a leading byte
   * order mark dropped, invalid sequences replaced by U+FFFD, which `invalidUtf8` then says).
   * When `invalidUtf8` is false, `bytes` are exactly the UTF-8 encoding of `text`, after a
   * leading byte order mark (which `lockfile/check-lockfile.ts` reports as drift).
   */
  | { readonly kind: "read"; readonly bytes: Uint8Array; readonly text: string; readonly invalidUtf8: boolean };

/**
 * Reads the lock at `lockPath` (absolute) through `host` (default: the disk). Never throws.
 * The `text` of all-ASCII bytes is decoded when first read (then kept).
 * @returns `missing` when nothing is there, `unreadable` with the reason, or the bytes and text.
 */
export function readLockBytes(lockPath: string, host: CompilerHost = createNodeHost()): LockBytes {
  const kind = host.kind(lockPath);
  if (kind === "missing") return { kind: "missing" };
  const bytes = kind === "directory" ? undefined : host.readBytes(lockPath);
  if (bytes === undefined) {
    return { kind: "unreadable", reason: kind === "directory" ? "it is a directory" : kind === "symlink" ? "it is a broken symlink" : "it is not a readable file" };
  }
  // All ASCII (every lock this toolchain writes): valid UTF-8, and its text is decoded when first
  // read. A compile that knows the bytes by their digest and compares the next lock by its bytes
  // never reads it (the benchmark agent's lock is 2.7 MB: a 2.7 MB string and about 3 ms fewer,
  // docs/performance.md, "Incremental compiles with packaging", twelfth round).
  if (isAscii(bytes)) {
    let text: string | undefined;
    return {
      kind: "read",
      bytes,
      get text(): string {
        return (text ??= decodeUtf8(bytes).text);
      },
      invalidUtf8: false,
    };
  }
  const { text, invalidUtf8 } = decodeUtf8(bytes);
  return { kind: "read", bytes, text, invalidUtf8 };
}
