/**
 * The private content-addressed blob store of handed-off and delivered files (seed "Execution
 * Model": "Both tools enforce the configured byte limit, private content-addressed blob
 * storage …").
 *
 * Layout: `<stateDir>/blobs/sha512/<128 hex digits>`. A blob is written once (temporary file
 * plus `link`, which fails when the target exists, so a reader never sees a partial blob and
 * a second writer never replaces one), with mode 0400 in folders of mode 0700. Reads verify
 * the SHA-512 and size again.
 *
 * `writeOnceFile` is also used for handoff receipts and delivery selections.
 */
import { createHash, randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";

/** Identity of stored bytes. */
export interface BlobRef {
  /** SHA-512 of the bytes, lower-case hex (128 digits). */
  readonly sha512: string;
  /** The same digest as an SRI string (`sha512-<base64>`). */
  readonly integrity: string;
  /** Length in bytes. */
  readonly size: number;
}

/** Thrown when stored bytes no longer match their recorded digest (a damaged state directory). */
export class BlobIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BlobIntegrityError";
  }
}

const HEX_SHA512 = /^[0-9a-f]{128}$/;

/** Digest of `bytes` as a `BlobRef`. */
export function digestBytes(bytes: Uint8Array): BlobRef {
  const digest = createHash("sha512").update(bytes).digest();
  return { sha512: digest.toString("hex"), integrity: `sha512-${digest.toString("base64")}`, size: bytes.byteLength };
}

/**
 * Absolute path of the blob with digest `sha512` (hex).
 * @throws Error when `sha512` is not 128 lower-case hex digits.
 */
export function blobPath(stateDir: string, sha512: string): string {
  if (!HEX_SHA512.test(sha512)) throw new Error(`"${sha512}" is not a SHA-512 hex digest.`);
  return path.join(stateDir, "blobs", "sha512", sha512);
}

/**
 * Writes `bytes` to `filePath` unless the file exists; never replaces an existing file.
 * @returns `"created"`, or `"exists"` when a file was already there (left untouched).
 */
export async function writeOnceFile(filePath: string, bytes: Uint8Array | string, mode = 0o400): Promise<"created" | "exists"> {
  await mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
  const temp = path.join(path.dirname(filePath), `.${path.basename(filePath)}.${randomBytes(6).toString("hex")}.tmp`);
  await writeFile(temp, bytes, { mode, flag: "wx" });
  try {
    await link(temp, filePath);
    return "created";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return "exists";
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Stores `bytes` under their SHA-512 (write-once; storing the same bytes again is a no-op
 * that re-verifies the existing blob).
 * @throws BlobIntegrityError when an existing blob of that digest holds other bytes.
 */
export async function putBlob(stateDir: string, bytes: Uint8Array): Promise<BlobRef> {
  const ref = digestBytes(bytes);
  const target = blobPath(stateDir, ref.sha512);
  if ((await writeOnceFile(target, bytes)) === "exists") await readBlob(stateDir, ref);
  return ref;
}

/**
 * Reads the blob `ref` and verifies its size and SHA-512.
 * @throws BlobIntegrityError when the stored bytes do not match; the fs error when it is missing.
 */
export async function readBlob(stateDir: string, ref: Pick<BlobRef, "sha512" | "size">): Promise<Buffer> {
  const bytes = await readFile(blobPath(stateDir, ref.sha512));
  const actual = digestBytes(bytes);
  if (actual.sha512 !== ref.sha512 || actual.size !== ref.size) {
    throw new BlobIntegrityError(
      `Stored blob sha512:${ref.sha512.slice(0, 16)}… does not match its digest (expected ${ref.size} bytes, found ${actual.size} bytes with another digest); the state directory is damaged.`,
    );
  }
  return bytes;
}
