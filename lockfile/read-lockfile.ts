/**
 * Reading `plugins.lock` (issue 3 items 5 and 6) for a compile: the bytes come from the one
 * lock reader (`contract/read-lock.ts`, shared with the runtime); this module classifies them.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { fileStart } from "../common/positions.js";
import { createNodeHost, type CompilerHost } from "../common/host.js";
import { readLockBytes } from "../contract/read-lock.js";
import { isJsonObject } from "../common/json-value.js";
import { findConflictMarkers, type ConflictMarker } from "./conflict-markers.js";
import { fixCommandFor } from "./fix-command.js";
import { locateProperty, parseJsonText } from "./json-text.js";
import { findLockShapeError } from "./lockfile-schema.js";
import { LOCKFILE_VERSION, type Lockfile } from "../contract/lockfile-types.js";

/** What {@link readLockfile} found. Every kind but `missing` carries the raw `bytes`. */
export type ReadLockfileResult =
  | { readonly kind: "missing" }
  /** A directory, or a file that cannot be read (AL6011). */
  | { readonly kind: "unreadable"; readonly diagnostic: Diagnostic }
  /** Git conflict markers (AL6003, at the first marker). `compile` recomputes; `--check` fails. */
  | { readonly kind: "conflict"; readonly markers: readonly ConflictMarker[]; readonly diagnostic: Diagnostic; readonly bytes: Uint8Array }
  /** Not JSON (AL6005) or not the lockfileVersion 1 shape (AL6006); `value` when it parsed. */
  | { readonly kind: "invalid"; readonly diagnostic: Diagnostic; readonly bytes: Uint8Array; readonly value?: unknown }
  /** `lockfileVersion` greater than {@link LOCKFILE_VERSION} (AL6007): refuse, never rewrite. */
  | { readonly kind: "unsupported-version"; readonly version: number; readonly diagnostic: Diagnostic; readonly bytes: Uint8Array }
  /** `invalidUtf8` as `readLockBytes` says it: when false, `bytes` are exactly the UTF-8 encoding of `text` after a leading byte order mark, if any. */
  | { readonly kind: "ok"; readonly lock: Lockfile; readonly bytes: Uint8Array; readonly text: string; readonly invalidUtf8: boolean };

/** Options of {@link readLockfile}. */
export interface ReadLockfileOptions {
  readonly host?: CompilerHost;
  /** The command printed in fix-it hints; default {@link fixCommandFor} of the lock's directory. */
  readonly fixCommand?: string;
  /**
   * True for bytes known to be exactly a lock of this toolchain's shape: bytes that read as `ok`
   * before, or that this toolchain wrote from a lock it built (`build/lock-inputs.ts` keeps their
   * SHA-256). Such bytes read as `ok` without the checks (conflict markers, nesting, JSON syntax,
   * version, shape), which decide nothing new for them, and their `lock` is parsed only when first
   * read (a compile after one file changed reads only the pins, which it keeps apart). Asked only
   * of bytes that were read; any other answer, or none, checks them all.
   */
  readonly knownReadable?: (bytes: Uint8Array) => boolean;
}

/**
 * Reads and classifies `plugins.lock`. Never throws. Checks, in order: missing or unreadable;
 * Git conflict markers (before parsing, since a conflicted lock is not JSON); JSON syntax;
 * a `lockfileVersion` greater than this tool understands (before the shape check, since a
 * newer format may have another shape); the lockfileVersion 1 shape (`LOCKFILE_SCHEMA`).
 *
 * CRLF line ends and a leading byte order mark are tolerated when reading (whether the bytes
 * are canonical is `checkLockfile`'s question, not this one's).
 *
 * @param lockPath absolute path of `plugins.lock`; diagnostics carry it as `file`.
 */
export function readLockfile(lockPath: string, options: ReadLockfileOptions = {}): ReadLockfileResult {
  const host = options.host ?? createNodeHost();
  const fix = options.fixCommand ?? fixCommandFor(path.dirname(lockPath));
  const read = readLockBytes(lockPath, host);
  if (read.kind === "missing") return { kind: "missing" };
  if (read.kind === "unreadable") return { kind: "unreadable", diagnostic: createDiagnostic(Diagnostics.LockfileUnreadable, fileStart(lockPath), [read.reason]) };
  const bytes = read.bytes;
  // Known bytes: their text is not even decoded here (`readLockBytes` decodes it when first read).
  if (options.knownReadable?.(bytes) === true) return lazilyParsed(read);
  const { text, invalidUtf8 } = read;
  const markers = findConflictMarkers(text);
  if (markers.length > 0) {
    const first = markers[0]!;
    const location = { file: lockPath, line: first.line, column: 1 };
    return { kind: "conflict", markers, bytes, diagnostic: createDiagnostic(Diagnostics.LockfileConflictMarkers, location, [first.marker, first.line, fix]) };
  }
  const parsed = parseJsonText(lockPath, text);
  if (!parsed.ok) {
    return { kind: "invalid", bytes, diagnostic: createDiagnostic(Diagnostics.LockfileInvalidJson, parsed.location, [parsed.reason, fix]) };
  }
  const version = isJsonObject(parsed.value) ? parsed.value.lockfileVersion : undefined;
  if (typeof version === "number" && Number.isInteger(version) && version > LOCKFILE_VERSION) {
    const location = locateProperty(parsed, ["lockfileVersion"]);
    const diagnostic = createDiagnostic(Diagnostics.LockfileUnsupportedVersion, location, [version, LOCKFILE_VERSION], { path: ["lockfileVersion"] });
    return { kind: "unsupported-version", version, bytes, diagnostic };
  }
  const shapeError = findLockShapeError(parsed.value);
  if (shapeError) {
    const location = locateProperty(parsed, shapeError.segments, true);
    const diagnostic = createDiagnostic(Diagnostics.LockfileInvalidShape, location, [shapeError.message, fix], { path: shapeError.segments });
    return { kind: "invalid", bytes, value: parsed.value, diagnostic };
  }
  return { kind: "ok", lock: parsed.value as Lockfile, bytes, text, invalidUtf8 };
}

/**
 * The `ok` reading of bytes known to read as `ok` ({@link ReadLockfileOptions.knownReadable}):
 * `lock` is `JSON.parse` of the text after a byte order mark, what the checked reading gives for
 * such bytes, parsed when first read; `text` is `read`'s, decoded when first read (all-ASCII
 * bytes, `contract/read-lock.ts`).
 */
function lazilyParsed(read: { readonly bytes: Uint8Array; readonly text: string; readonly invalidUtf8: boolean }): ReadLockfileResult {
  let lock: Lockfile | undefined;
  return {
    kind: "ok",
    get lock(): Lockfile {
      const text = read.text;
      return (lock ??= JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as Lockfile);
    },
    bytes: read.bytes,
    get text(): string {
      return read.text;
    },
    invalidUtf8: read.invalidUtf8,
  };
}

/**
 * The lock in `text` when it is JSON of the lockfileVersion 1 shape this toolchain reads (the
 * checks of {@link readLockfile} after the read: no conflict markers, JSON, a version this tool
 * understands, the shape); `undefined` otherwise. For a lock that is not a file of the agent
 * (`review`'s lock of Git's `HEAD`). Never throws.
 * @param file what the text is called (only for the parser's locations, never reported).
 */
export function lockFromText(file: string, text: string): Lockfile | undefined {
  const body = text.replace(/^\uFEFF/, "");
  if (findConflictMarkers(body).length > 0) return undefined;
  const parsed = parseJsonText(file, body);
  if (!parsed.ok) return undefined;
  const version = isJsonObject(parsed.value) ? parsed.value.lockfileVersion : undefined;
  if (typeof version === "number" && version > LOCKFILE_VERSION) return undefined;
  return findLockShapeError(parsed.value) ? undefined : (parsed.value as Lockfile);
}

