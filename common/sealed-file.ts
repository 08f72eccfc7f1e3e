/**
 * The on-disk form of the toolchain's caches (the analysis cache, the bundle cache): a format
 * line (`magic`), the SHA-256 of the payload, then the payload (`v8.serialize`). A file that is
 * truncated, altered or of another format reads as nothing — a cache miss, never a crash or a
 * wrong result (docs/caches.md). One rule for both caches (issue 8: a rule in one place).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as v8 from "node:v8";
import { checkWriteTarget, writeFileConfined, type WriteRefusal } from "./confined-write.js";

const DIGEST_LENGTH = 32;

/** The bytes of a sealed file holding `payload` under the format line `magic`. */
export function sealPayload(magic: Buffer, payload: unknown): Buffer {
  const body = v8.serialize(payload);
  return Buffer.concat([magic, sha256(body), body]);
}

/**
 * Writes `payload` sealed under `magic` to `file`, atomically and confined to `root`
 * (`writeFileConfined`: never through a link out of the root), without `fsync` (`durable:
 * false`: a file a power failure damaged reads as nothing, a miss). Never throws: returns whether
 * the file was written and, when the write was refused, why (the caches report it as a warning).
 */
export function writeSealedFile(root: string, file: string, magic: Buffer, payload: unknown): { readonly written: boolean; readonly refusal?: WriteRefusal } {
  return writeCacheBytes(root, file, () => sealPayload(magic, payload));
}

/**
 * Writes the bytes `make` returns to `file`, atomically, confined to `root`, without `fsync`;
 * never throws (a failure to make or write them is `written: false`). The one write path of
 * {@link writeSealedFile} and {@link writeSealedLog}.
 */
function writeCacheBytes(root: string, file: string, make: () => Buffer): { readonly written: boolean; readonly refusal?: WriteRefusal } {
  try {
    const refusal = writeFileConfined(root, file, make(), { createFolders: true, durable: false });
    return refusal === undefined ? { written: true } : { written: false, refusal };
  } catch {
    return { written: false };
  }
}

/**
 * The payload of the sealed file `file` when it starts with `magic` and its digest matches;
 * else `undefined` (missing, unreadable, truncated, altered, another format). The caller still
 * checks the payload's shape.
 */
export function readSealedPayload(file: string, magic: Buffer): unknown {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const bodyStart = magic.length + DIGEST_LENGTH;
  if (bytes.length < bodyStart || !bytes.subarray(0, magic.length).equals(magic)) return undefined;
  const body = bytes.subarray(bodyStart);
  if (!sha256(body).equals(bytes.subarray(magic.length, bodyStart))) return undefined;
  try {
    return v8.deserialize(body) as unknown;
  } catch {
    return undefined;
  }
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest();
}

/**
 * Where a sealed log was read: the file's identity and length then. An append goes ahead only
 * while the file is still that one at that length (no other compile replaced or extended it).
 */
export interface SealedLogIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
}

/** Bytes before a sealed log's segment body: its length (u32, little-endian) and its SHA-256. */
const SEGMENT_HEADER = 4 + DIGEST_LENGTH;

/**
 * The bytes of a sealed log holding one segment, `payload` (a format line `magic`, then
 * segments: each the length of its body as a little-endian u32, the SHA-256 of the body, and the
 * body, `v8.serialize` of the segment). Later segments are appended by {@link appendSealedSegment}.
 */
export function sealLog(magic: Buffer, payload: unknown): Buffer {
  return Buffer.concat([magic, sealSegment(payload)]);
}

function sealSegment(payload: unknown): Buffer {
  const body = v8.serialize(payload);
  const header = Buffer.alloc(SEGMENT_HEADER);
  header.writeUInt32LE(body.length, 0);
  sha256(body).copy(header, 4);
  return Buffer.concat([header, body]);
}

/**
 * Writes a sealed log of one segment, `payload`, to `file` as {@link writeSealedFile} writes a
 * sealed file (atomically, confined to `root`, without `fsync`). Never throws.
 */
export function writeSealedLog(root: string, file: string, magic: Buffer, payload: unknown): { readonly written: boolean; readonly refusal?: WriteRefusal } {
  return writeCacheBytes(root, file, () => sealLog(magic, payload));
}

/**
 * Every segment of the sealed log `file`, in order, with the file's identity, when it starts
 * with `magic` and every segment is whole and matches its digest; else `undefined` (missing,
 * unreadable, truncated — a torn append included —, altered, another format): a cache miss,
 * never a partial or wrong content. `ends`: the file offset after each segment. The caller
 * still checks each segment's shape.
 */
export function readSealedLog(file: string, magic: Buffer): { readonly segments: readonly unknown[]; readonly ends: readonly number[]; readonly identity: SealedLogIdentity } | undefined {
  let bytes: Buffer;
  let identity: SealedLogIdentity;
  try {
    const fd = fs.openSync(file, "r");
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) return undefined;
      bytes = fs.readFileSync(fd);
      identity = { dev: stat.dev, ino: stat.ino, size: bytes.length };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (bytes.length < magic.length + SEGMENT_HEADER || !bytes.subarray(0, magic.length).equals(magic)) return undefined;
  const segments: unknown[] = [];
  const ends: number[] = [];
  for (let at = magic.length; at < bytes.length; ) {
    if (bytes.length - at < SEGMENT_HEADER) return undefined;
    const length = bytes.readUInt32LE(at);
    const start = at + SEGMENT_HEADER;
    if (length > bytes.length - start) return undefined;
    const body = bytes.subarray(start, start + length);
    if (!sha256(body).equals(bytes.subarray(at + 4, start))) return undefined;
    try {
      segments.push(v8.deserialize(body) as unknown);
    } catch {
      return undefined;
    }
    at = start + length;
    ends.push(at);
  }
  return { segments, ends, identity };
}

/**
 * Appends `payload` as one more segment to the sealed log `file`, which must still be the file
 * `identity` describes (same device, inode and length: nothing replaced or extended it since it
 * was read) and pass {@link checkWriteTarget} (confined to `root`: no link, one hard link). One
 * `write` of the whole segment, without `fsync`: a torn or lost append (a crash, a power failure)
 * makes the whole log read as nothing ({@link readSealedLog}), a miss. A short write is cut off
 * again. Never throws: `appended: false` (the caller then writes the whole log anew) when the
 * file changed, the write was refused (`refusal`) or failed.
 */
export function appendSealedSegment(root: string, file: string, identity: SealedLogIdentity, payload: unknown): { readonly appended: boolean; readonly refusal?: WriteRefusal } {
  try {
    const refusal = checkWriteTarget(root, file, "file");
    if (refusal) return { appended: false, refusal };
    const segment = sealSegment(payload);
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW);
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile() || stat.nlink !== 1 || stat.dev !== identity.dev || stat.ino !== identity.ino || stat.size !== identity.size) return { appended: false };
      let written = 0;
      try {
        written = fs.writeSync(fd, segment);
      } finally {
        if (written !== segment.length) fs.ftruncateSync(fd, identity.size);
      }
      return { appended: written === segment.length };
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return { appended: false };
  }
}
