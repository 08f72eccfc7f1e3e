/**
 * The on-disk form of the toolchain's caches. A sealed file (the code cache):
 * a format line (`magic`), the SHA-256 of the payload, then the payload (`v8.serialize`). A
 * sealed log (the analysis cache, the bundle cache, and the compile record, always one
 * segment): the format line, then segments, each sealed
 * on its own and holding its typed arrays' bytes after its structure ({@link sealLog}). A file
 * that is truncated, altered or of another format reads as nothing — a cache miss, never a crash
 * or a wrong result (docs/caches.md). One rule for every cache (issue 8: a rule in one place).
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
 * `mode`: the file's permission bits (`writeFileConfined`'s, default 0644).
 */
export function writeSealedFile(root: string, file: string, magic: Buffer, payload: unknown, options: { readonly mode?: number } = {}): { readonly written: boolean; readonly refusal?: WriteRefusal } {
  return writeCacheBytes(root, file, () => sealPayload(magic, payload), options.mode);
}

/**
 * Writes the bytes `make` returns to `file`, atomically, confined to `root`, without `fsync`;
 * never throws (a failure to make or write them is `written: false`). The one write path of
 * {@link writeSealedFile} and {@link writeSealedLog}.
 */
function writeCacheBytes(root: string, file: string, make: () => Uint8Array | readonly Uint8Array[], mode?: number): { readonly written: boolean; readonly refusal?: WriteRefusal } {
  try {
    const refusal = writeFileConfined(root, file, make(), { createFolders: true, durable: false, ...(mode === undefined ? {} : { mode }) });
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
  return unsealPayload(bytes, magic);
}

/**
 * The payload of the sealed file whose bytes are `bytes` (as {@link readSealedPayload} reads
 * them); `undefined` when they do not start with `magic` or their digest does not match. Typed
 * arrays in the payload are views into `bytes` (`v8.deserialize` copies none of them).
 */
export function unsealPayload(bytes: Buffer, magic: Buffer): unknown {
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
 * The typed arrays a segment's structure may hold, by the index its serialization writes
 * ({@link TailSerializer}); `Buffer` stays a `Buffer`.
 */
const VIEW_TYPES = [Uint8Array, Buffer, Int8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array] as const;

interface HostObjectSerializer {
  _setTreatArrayBufferViewsAsHostObjects(flag: boolean): void;
  _writeHostObject(object: object): void;
}

/**
 * `v8.Serializer` that writes each typed array of the payload as its type and length only, and
 * keeps its bytes for the segment's tail: Node's own serializer copies every one through a
 * JavaScript callback into its buffer, which cost the analysis cache's 4,400 records about 66 ms
 * and the 12 MB body two more copies into fresh memory (docs/performance.md, "Eighth round").
 */
class TailSerializer extends v8.Serializer {
  readonly tail: Uint8Array[] = [];
  tailLength = 0;

  constructor() {
    super();
    (this as unknown as HostObjectSerializer)._setTreatArrayBufferViewsAsHostObjects(true);
  }

  _writeHostObject(object: object): void {
    const type = VIEW_TYPES.findIndex((constructor) => Object.getPrototypeOf(object) === constructor.prototype);
    if (type === -1 || !ArrayBuffer.isView(object)) throw new TypeError("a sealed segment holds plain data and typed arrays only");
    this.writeUint32(type);
    this.writeUint32(object.byteLength);
    this.tail.push(new Uint8Array(object.buffer, object.byteOffset, object.byteLength));
    this.tailLength += object.byteLength;
  }
}

/**
 * `v8.Deserializer` of a {@link TailSerializer}'s structure: each typed array from the segment's
 * tail, in order (a `Uint8Array` or `Buffer` as a view of the bytes read, other types copied,
 * since their elements must be aligned). Throws when the tail is shorter than the structure says.
 */
class TailDeserializer extends v8.Deserializer {
  #at: number;

  constructor(
    structure: Uint8Array,
    private readonly bytes: Buffer,
    tailStart: number,
    private readonly tailEnd: number,
  ) {
    super(structure);
    this.#at = tailStart;
  }

  /** Where the tail's bytes were used up to. */
  get at(): number {
    return this.#at;
  }

  _readHostObject(): unknown {
    const type = VIEW_TYPES[this.readUint32()];
    const length = this.readUint32();
    if (type === undefined || length > this.tailEnd - this.#at) throw new RangeError("the segment's tail is short");
    const start = this.#at;
    this.#at += length;
    if (type === Uint8Array) return new Uint8Array(this.bytes.buffer, this.bytes.byteOffset + start, length);
    if (type === Buffer) return this.bytes.subarray(start, start + length);
    const typed = type as unknown as { new (buffer: ArrayBuffer, byteOffset: number, length: number): unknown; readonly BYTES_PER_ELEMENT: number };
    if (length % typed.BYTES_PER_ELEMENT !== 0) throw new RangeError("a typed array of a broken length");
    const copy = new Uint8Array(length);
    copy.set(this.bytes.subarray(start, start + length));
    return new typed(copy.buffer, 0, length / typed.BYTES_PER_ELEMENT);
  }
}

/**
 * One segment, `payload`, as the parts of its bytes (header, body: the structure's length as a
 * u32, the structure, then the tail, the bytes of its typed arrays), after `prefix` when given.
 * Nothing of the tail is copied: the parts are written as they are (`writev`).
 */
function segmentParts(payload: unknown, prefix?: Buffer): Uint8Array[] {
  const serializer = new TailSerializer();
  serializer.writeHeader();
  serializer.writeValue(payload);
  const structure = serializer.releaseBuffer();
  const head = Buffer.allocUnsafe(SEGMENT_HEADER + 4);
  head.writeUInt32LE(4 + structure.length + serializer.tailLength, 0);
  head.writeUInt32LE(structure.length, SEGMENT_HEADER);
  const hash = createHash("sha256").update(head.subarray(SEGMENT_HEADER)).update(structure);
  for (const part of serializer.tail) hash.update(part);
  hash.digest().copy(head, 4);
  return [...(prefix ? [prefix] : []), head, structure, ...serializer.tail];
}

/** The value of a segment body (see {@link segmentParts}) found at `start`–`end` of `bytes`; throws when it is not whole. */
function readSegmentBody(bytes: Buffer, start: number, end: number): unknown {
  if (end - start < 4) throw new RangeError("the segment has no structure");
  const structureLength = bytes.readUInt32LE(start);
  const tailStart = start + 4 + structureLength;
  if (tailStart > end) throw new RangeError("the segment's structure is short");
  const deserializer = new TailDeserializer(bytes.subarray(start + 4, tailStart), bytes, tailStart, end);
  deserializer.readHeader();
  const value = deserializer.readValue();
  if (deserializer.at !== end) throw new RangeError("the segment's tail is not what its structure holds");
  return value;
}

/**
 * The bytes of a sealed log holding one segment, `payload` (a format line `magic`, then
 * segments: each the length of its body as a little-endian u32, the SHA-256 of the body, and the
 * body: the length of the segment's structure as a u32, the structure (`v8.Serializer`, typed
 * arrays as their type and length), and the typed arrays' bytes). Later segments are appended by
 * {@link appendSealedSegment}.
 */
export function sealLog(magic: Buffer, payload: unknown): Buffer {
  return Buffer.concat(segmentParts(payload, magic));
}

/**
 * Writes a sealed log of one segment, `payload`, to `file` as {@link writeSealedFile} writes a
 * sealed file (atomically, confined to `root`, without `fsync`). Never throws.
 */
export function writeSealedLog(root: string, file: string, magic: Buffer, payload: unknown): { readonly written: boolean; readonly refusal?: WriteRefusal } {
  return writeCacheBytes(root, file, () => segmentParts(payload, magic));
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
      segments.push(readSegmentBody(bytes, start, start + length));
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
    const segment = Buffer.concat(segmentParts(payload));
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
