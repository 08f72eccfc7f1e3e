/**
 * The bundles' bytes in a file of their own (issue 14 item 4; docs/caches.md, "The bundles'
 * bytes"): `<root>/.assemblyline/cache/bundles-bytes.bin`, a format line followed by bundles'
 * bytes back to back (`common/record-file.ts`). The bundle cache's sealed index
 * (`bundles.bin`, `./bundle-cache.ts`) names each stored bundle's bytes by offset and length
 * ({@link BytesRef}) beside the SRI it recorded when the bundle was built. After a one-file
 * change the artifact keeps the 1,999 unchanged bundle files by their stat signatures, so their
 * 4 MB are no longer read (nor hashed) by every compile: a reused bundle's bytes are a
 * {@link DeferredBundle}, read only when a bundle file must be written or compared.
 *
 * **Verified at use.** {@link DeferredBundle.load} hands out bytes only after their SHA-512 is
 * the recorded SRI, the very integrity the lock and the manifest carry; bytes that miss it (the
 * file damaged, torn, replaced, missing) are never used: the bundle is built again with the same
 * esbuild options, its bytes must have that SRI too (else the artifact's write fails: nothing
 * unverified is ever written), and the cache keeps them for the next compile (a repair).
 */
import * as path from "node:path";
import { bundleIntegrity } from "./integrity.js";

/** Where the bundles' bytes live, relative to the agent root. */
export const BUNDLE_BYTES_FILE = path.join(".assemblyline", "cache", "bundles-bytes.bin");

/** First bytes of a bundle bytes file of this format (then bundles' bytes, back to back). */
export const BUNDLE_BYTES_MAGIC = Buffer.from("assembly-line bundle bytes 1\n", "utf8");

/** Where a stored bundle's bytes are in the bytes file: offset and length (their SRI is the stored bundle's `integrity`). */
export interface BytesRef {
  readonly at: number;
  readonly length: number;
}

/** Whether `value` has a {@link BytesRef}'s shape (as deserialized from `bundles.bin`). */
export function isBytesRef(value: unknown): value is BytesRef {
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return false;
  const { at, length } = value as Record<string, unknown>;
  return Number.isSafeInteger(at) && (at as number) >= BUNDLE_BYTES_MAGIC.length && Number.isSafeInteger(length) && (length as number) >= 0;
}

/** How a {@link DeferredBundle} gets its bytes. */
export interface DeferredSource {
  /** The bundle's artifact-relative path (for messages). */
  readonly bundle: string;
  /** The SRI recorded when the bundle was built (sealed in the cache's index). */
  readonly integrity: string;
  /** The byte length recorded with it. */
  readonly size: number;
  /** The stored bytes, unverified (`undefined`: not there). */
  readonly read: () => Uint8Array | undefined;
  /** Builds the bundle again (the same esbuild options): its bytes. */
  readonly rebuild: () => Promise<Uint8Array>;
  /** Called with bytes a rebuild gave and verified, for the cache to keep. */
  readonly repaired?: (bytes: Uint8Array) => void;
}

/**
 * A reused bundle whose bytes are read only when asked for ({@link load}), and then only
 * handed out when their SHA-512 is the recorded SRI (see the module header).
 */
export class DeferredBundle {
  readonly #source: DeferredSource;
  #loaded: Promise<Uint8Array> | undefined;
  #bytes: Uint8Array | undefined;

  constructor(source: DeferredSource) {
    this.#source = source;
  }

  /** The SRI the sealed index recorded: what the lock and the manifest name. */
  get integrity(): string {
    return this.#source.integrity;
  }

  /** The recorded byte length. */
  get size(): number {
    return this.#source.size;
  }

  /** The verified bytes when {@link load} has given them already; else `undefined`. */
  peek(): Uint8Array | undefined {
    return this.#bytes;
  }

  /**
   * The bundle's bytes, verified against the recorded SRI: the stored ones, else those of a
   * rebuild (kept by the cache). Rejects when neither has that SRI; never gives other bytes.
   */
  load(): Promise<Uint8Array> {
    return (this.#loaded ??= this.#resolve());
  }

  async #resolve(): Promise<Uint8Array> {
    const { read, integrity, rebuild, repaired, bundle } = this.#source;
    const stored = read();
    if (stored !== undefined && bundleIntegrity(stored) === integrity) return (this.#bytes = stored);
    const rebuilt = await rebuild();
    if (bundleIntegrity(rebuilt) !== integrity) throw new Error(`the bundle cache's bytes of "${bundle}" are damaged, and building it again gave bytes of another integrity than the one recorded (${integrity})`);
    repaired?.(rebuilt);
    return (this.#bytes = rebuilt);
  }
}

/** A bundle's bytes as packaging hands them on: built (bytes) or reused from the cache (read when asked for). */
export type BundleBytes = Uint8Array | DeferredBundle;

/** The byte length of a bundle. */
export function bundleSize(bundle: BundleBytes): number {
  return bundle instanceof DeferredBundle ? bundle.size : bundle.byteLength;
}

/** The SRI of a bundle: computed from built bytes, the recorded one of a deferred bundle (verified when its bytes are read). */
export function integrityOfBundle(bundle: BundleBytes): string {
  return bundle instanceof DeferredBundle ? bundle.integrity : bundleIntegrity(bundle);
}

/** The bytes of a bundle (a deferred bundle's read and verified, {@link DeferredBundle.load}). */
export function bytesOfBundle(bundle: BundleBytes): Promise<Uint8Array> {
  return bundle instanceof DeferredBundle ? bundle.load() : Promise.resolve(bundle);
}

/** The bytes of a bundle when they are in memory (built, or a deferred bundle already loaded); else `undefined`. */
export function bytesInMemory(bundle: BundleBytes): Uint8Array | undefined {
  return bundle instanceof DeferredBundle ? bundle.peek() : bundle;
}
