/**
 * The integrity of a bundle: an SRI string (`sha512-<base64>`), the same form `plugins.lock`
 * uses for plugin content and runtime-min checks with `ssri.checkData` (DESIGN §5, §6).
 */
import ssri from "ssri";

/** SRI `sha512-…` of the given bytes. */
export function bundleIntegrity(bytes: Uint8Array): string {
  return ssri.fromData(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { algorithms: ["sha512"] }).toString();
}
