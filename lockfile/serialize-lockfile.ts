/**
 * `plugins.lock` text from lock data (issue 3 item 2, DESIGN §5 "Deterministic bytes").
 */
import { serializeCanonicalJson } from "../common/canonical-json.js";
import type { Lockfile } from "../contract/lockfile-types.js";

/**
 * The exact text of `plugins.lock` for `lock`: JSON with `lockfileVersion` as the first key,
 * every other key at every depth in UTF-16 code-unit order, two-space indent, LF line ends, a
 * trailing newline, no byte order mark. Write it as UTF-8 (see `writeLockfileIfChanged`).
 *
 * The function adds nothing to the data (no timestamp, tool version, host or absolute path):
 * keeping those out of `lock` is the caller's job, and the types leave no room for them.
 *
 * @throws TypeError only when `lock` holds a value JSON cannot represent (a caller bug).
 */
export function serializeLockfile(lock: Lockfile): string {
  return serializeCanonicalJson(lock, { firstKeys: ["lockfileVersion"] });
}
