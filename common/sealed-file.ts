/**
 * The on-disk form of the toolchain's caches (the analysis cache, the bundle cache): a format
 * line (`magic`), the SHA-256 of the payload, then the payload (`v8.serialize`). A file that is
 * truncated, altered or of another format reads as nothing — a cache miss, never a crash or a
 * wrong result (docs/caches.md). One rule for both caches (issue 8: a rule in one place).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as v8 from "node:v8";
import { writeFileConfined, type WriteRefusal } from "./confined-write.js";

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
  try {
    const refusal = writeFileConfined(root, file, sealPayload(magic, payload), { createFolders: true, durable: false });
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
