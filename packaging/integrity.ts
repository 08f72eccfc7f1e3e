/**
 * The integrity of a bundle: an SRI string (`sha512-<base64>`), the same form `plugins.lock`
 * uses for plugin content and runtime-min checks with `ssri.checkData` (DESIGN §5, §6).
 */
import * as nodeCrypto from "node:crypto";

/**
 * `crypto.hash` (Node ≥ 20.12), when there is one: one call, no `Hash` object. The 2,000 bundles of
 * the benchmark agent spent more on creating a `Hash` each than on hashing their bytes
 * (docs/performance.md, "Incremental compiles with packaging", twelfth round).
 */
const oneShotHash = (nodeCrypto as { hash?: (algorithm: string, data: Uint8Array, encoding: "base64") => string }).hash;

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
    integrity = `sha512-${oneShotHash ? oneShotHash("sha512", bytes, "base64") : nodeCrypto.createHash("sha512").update(bytes).digest("base64")}`;
    known.set(bytes, integrity);
  }
  return integrity;
}
