/**
 * The content hash of a plugin directory, stable across checkouts (issue 3 item 3, DESIGN §5).
 * The algorithm is documented, with a worked example, in `compiler/plugin-package/README-hashing.md`.
 */
import * as path from "node:path";
import { createHash } from "node:crypto";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, folderStart } from "../../common/positions.js";
import { createNodeHost, type CompilerHost } from "../../common/host.js";
import { contentKindOf, normalizeContent, type ContentKind } from "./file-content.js";
import { isPathInside, joinListedName } from "../../common/path-inside.js";

/** Entry names left out at every depth (VCS data, installed dependencies, OS litter). */
export const EXCLUDED_NAMES: ReadonlySet<string> = new Set([".git", "node_modules", ".DS_Store", "Thumbs.db"]);

/** One file as it entered the hash. */
export interface HashedFile {
  /** Path relative to the plugin root: POSIX separators, Unicode NFC (the symlink's path for a linked file). */
  readonly path: string;
  readonly kind: ContentKind;
  /** Length in bytes of the hashed content (after CRLF→LF for text). */
  readonly size: number;
  /** SRI `sha512-<base64>` of the hashed content. */
  readonly integrity: string;
}

/** Result of {@link hashPluginDirectory}. */
export interface PluginDirectoryHash {
  /**
   * SRI `sha512-<base64>` of the directory's content. Only meaningful when `diagnostics` holds
   * no error (files that could not be hashed are missing from it); never write it to a lock then.
   */
  readonly integrity: string;
  /** The hashed files, in hash order (UTF-8 bytes of `path`). */
  readonly files: readonly HashedFile[];
  /** AL61xx diagnostics; `file` is the absolute path of the offending entry, at line 1, column 1. */
  readonly diagnostics: readonly Diagnostic[];
}

interface Walk {
  readonly host: CompilerHost;
  readonly realRoot: string;
  /** Each hashed file and the entry it was found at (named for collision messages only when one occurs). */
  readonly files: Map<string, { readonly file: HashedFile; readonly foundAt: string }>;
  readonly diagnostics: Diagnostic[];
}

/**
 * Hashes a plugin directory so that the result depends only on its content:
 *
 * 1. every regular file under `dir` counts, except entries named `.git`, `node_modules`,
 *    `.DS_Store` or `Thumbs.db` (at any depth); empty directories do not count;
 * 2. a file is named by its path relative to `dir`, with `/` separators, in Unicode NFC;
 * 3. it is classified text or binary by {@link contentKindOf}: a `.bin` or `.wasm` name (any
 *    letter case) is binary, other files are classified from their bytes (`classifyContent`);
 *    text is hashed with CRLF normalised to LF, binary as raw bytes; its integrity is `sha512`
 *    of that content;
 * 4. a symlink whose target is inside `dir` is hashed as what it points to (a file's content,
 *    or a directory's files under the symlink's path); one whose target is outside `dir`, is
 *    missing, or leads into a cycle is a diagnostic and contributes nothing;
 * 5. the files are sorted by the UTF-8 bytes of their paths, and the directory's integrity is
 *    `sha512` of the concatenated lines `<path> NUL <file integrity> LF`.
 *
 * File modes, mtimes, owners, the directory's absolute location and `readdir` order never
 * enter the hash. Never throws; problems become AL61xx diagnostics.
 *
 * @param dir the plugin root (absolute); it may itself be a symlink (pnpm's `node_modules`).
 * @param host file access (default: the real file system).
 */
export function hashPluginDirectory(dir: string, host: CompilerHost = createNodeHost()): PluginDirectoryHash {
  const realRoot = host.realpath(dir);
  if (realRoot === undefined || host.readDirectory(dir) === undefined) {
    const diagnostic = createDiagnostic(Diagnostics.PluginDirectoryMissing, folderStart(dir), [dir]);
    return { integrity: integrityOfLines([]), files: [], diagnostics: [diagnostic] };
  }
  const walk: Walk = { host, realRoot, files: new Map(), diagnostics: [] };
  walkDirectory(walk, dir, "", [realRoot]);
  const files = [...walk.files.values()].map((entry) => entry.file).sort((a, b) => compareUtf8(a.path, b.path));
  return { integrity: integrityOfLines(files), files, diagnostics: walk.diagnostics };
}

/** `sha512` SRI of `<path>\0<integrity>\n` for each file, in the given order (step 5). */
export function integrityOfLines(files: readonly Pick<HashedFile, "path" | "integrity">[]): string {
  const text = files.map((file) => `${file.path}\0${file.integrity}\n`).join("");
  return sha512(Buffer.from(text, "utf8"));
}

/** Compares two strings by their UTF-8 bytes (= code point order), as step 5 sorts paths. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function walkDirectory(walk: Walk, dirPath: string, relDir: string, stack: readonly string[]): void {
  for (const entry of walk.host.readDirectory(dirPath) ?? []) {
    if (EXCLUDED_NAMES.has(entry.name)) continue;
    const entryPath = joinListedName(dirPath, entry.name);
    const relPath = (relDir === "" ? entry.name : `${relDir}/${entry.name}`).normalize("NFC");
    if (entry.kind === "file") addFile(walk, entryPath, entryPath, relPath);
    else if (entry.kind === "directory") walkDirectory(walk, entryPath, relPath, [...stack, walk.host.realpath(entryPath) ?? entryPath]);
    else if (entry.kind === "symlink") followSymlink(walk, entryPath, relPath, stack);
    else report(walk, Diagnostics.PluginSpecialFileSkipped, entryPath, [relPath]);
  }
}

function followSymlink(walk: Walk, linkPath: string, relPath: string, stack: readonly string[]): void {
  const target = walk.host.realpath(linkPath);
  if (target === undefined) {
    report(walk, Diagnostics.PluginSymlinkBroken, linkPath, [relPath]);
    return;
  }
  const fromRoot = path.relative(walk.realRoot, target);
  if (!isPathInside(walk.realRoot, target)) {
    report(walk, Diagnostics.PluginSymlinkEscapes, linkPath, [relPath, fromRoot.split(path.sep).join("/")], walk.host.kind(target) === "directory");
    return;
  }
  const kind = walk.host.kind(target);
  if (kind === "file") addFile(walk, target, linkPath, relPath);
  else if (kind === "directory") {
    if (stack.includes(target)) {
      report(walk, Diagnostics.PluginSymlinkCycle, linkPath, [relPath, fromRoot === "" ? "." : fromRoot.split(path.sep).join("/")], true);
      return;
    }
    walkDirectory(walk, target, relPath, [...stack, target]);
  } else report(walk, Diagnostics.PluginSpecialFileSkipped, linkPath, [relPath]);
}

function addFile(walk: Walk, contentPath: string, reportedPath: string, relPath: string): void {
  const previous = walk.files.get(relPath);
  if (previous) {
    report(walk, Diagnostics.PluginPathCollision, reportedPath, [relativeName(walk, previous.foundAt), relativeName(walk, reportedPath)]);
    return;
  }
  const bytes = walk.host.readBytes(contentPath);
  if (bytes === undefined) {
    report(walk, Diagnostics.PluginFileUnreadable, reportedPath, [relPath]);
    return;
  }
  const file: HashedFile = { path: relPath, ...hashFileContent(relPath, bytes) };
  walk.files.set(relPath, { file, foundAt: reportedPath });
}

/**
 * How one file enters a content hash (step 3): its kind by {@link contentKindOf} (the
 * name `filePath` and the bytes), the size of the hashed content, and its SRI `sha512` integrity
 * (text with CRLF read as LF, binary raw). Also used for a surface's own SKILL.md files in the
 * lock, so they too keep their integrity across CRLF checkouts.
 */
export function hashFileContent(filePath: string, bytes: Uint8Array): Omit<HashedFile, "path"> {
  const kind = contentKindOf(filePath, bytes);
  const content = normalizeContent(bytes, kind);
  return { kind, size: content.length, integrity: sha512(content) };
}

/** The entry's name relative to the root as found on disk (before NFC), for collision messages. */
function relativeName(walk: Walk, entryPath: string): string {
  const realParent = walk.host.realpath(path.dirname(entryPath)) ?? path.dirname(entryPath);
  return path.join(path.relative(walk.realRoot, realParent), path.basename(entryPath)).split(path.sep).join("/");
}

/** Reports at `file`; a linked folder (`folder`) is placed on the folder, without a line and column (common/positions.ts folderStart). */
function report(walk: Walk, message: (typeof Diagnostics)[keyof typeof Diagnostics], file: string, args: readonly string[], folder = false): void {
  walk.diagnostics.push(createDiagnostic(message, folder ? folderStart(file) : fileStart(file), args));
}

/**
 * SRI `sha512-<base64>` of `bytes`: what `ssri.fromData(bytes, { algorithms: ["sha512"] })` (the
 * SRI library npm uses) gives for one hash without options, computed with `node:crypto`
 * directly — half the CPU per file, which counts for the 2,400 files of a large agent (issue 14
 * item 1; `packaging/integrity.ts` does the same for bundles).
 */
function sha512(bytes: Uint8Array): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}
