/**
 * The integrity of a bundle: an SRI string (`sha512-<base64>`), the same form `plugins.lock`
 * uses for plugin content and runtime-min checks with `ssri.checkData` (DESIGN §5, §6).
 */
import { createHash } from "node:crypto";

/** Integrities already computed, by the very byte array (a compile hashes each bundle's bytes more than once). */
const known = new WeakMap<Uint8Array, string>();

/**
 * SRI `sha512-…` of the given bytes: what `ssri.fromData(bytes, { algorithms: ["sha512"] })`
 * gives (one hash, no options), computed with `node:crypto` directly. Memoized per array: a
 * caller must not change the bytes of an array it hashed (bundles and artifact files never are).
 */
export function bundleIntegrity(bytes: Uint8Array): string {
  let integrity = known.get(bytes);
  if (integrity === undefined) {
    integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
    known.set(bytes, integrity);
  }
  return integrity;
}
