/**
 * `plugins.lock`: its types, canonical text, the content hash of plugin directories, reading,
 * writing only when changed, and `compile --check` (issue 3 items 2–6, DESIGN §5).
 *
 * Building the lock's content (which tools, merged config) is the compiler's job; this folder
 * owns the bytes and the file.
 */
export * from "./types.js";
export { serializeCanonicalJson, canonicalKeyOrder, type CanonicalJsonOptions } from "./canonical-json.js";
export { serializeLockfile } from "./serialize-lockfile.js";
export { classifyContent, contentKindOf, normalizeContent, RAW_BYTES_EXTENSIONS, type ContentKind } from "./file-content.js";
export {
  hashPluginDirectory,
  hashFileContent,
  integrityOfLines,
  compareUtf8,
  EXCLUDED_NAMES,
  type HashedFile,
  type PluginDirectoryHash,
} from "./hash-plugin-directory.js";
export { findConflictMarkers, type ConflictMarker } from "./conflict-markers.js";
export { LOCKFILE_SCHEMA, findLockShapeError, type LockShapeError } from "./lockfile-schema.js";
export { readLockfile, type ReadLockfileResult, type ReadLockfileOptions } from "./read-lockfile.js";
export { writeLockfileIfChanged, type WriteLockfileOptions, type WriteLockfileResult } from "./write-lockfile.js";
export { diffLocks, type LockChange, type LockChangeGroup } from "./diff-locks.js";
export { checkLockfile, MAX_DIFF_LINES, type LockfileCheckReport, type CheckLockfileOptions } from "./check-lockfile.js";
export { formatLockfileCheckReport, formatChange, MAX_CHANGE_LINES } from "./format-check-report.js";
export { fixCommandFor, shellQuote } from "./fix-command.js";
export { checkInstalledVersion, type InstalledVersionCheck } from "./installed-version.js";
