/**
 * Writes the artifact directory (DESIGN §6: `<root>/.assemblyline/build/` unless `--out`):
 * `manifest.json`, the bundles, and any extra files (e.g. copied `SKILL.md`s), all at once.
 *
 * Atomic replacement: everything is written into a fresh temporary directory beside `outDir`,
 * then the old artifact is renamed aside, the new one renamed into place, and the old one
 * removed. If writing fails, the temporary directory is removed and the old artifact was never
 * touched; if the final rename fails, the old artifact is renamed back. (POSIX has no atomic
 * exchange of two directories, so another process may see no `outDir` for the instant between
 * the two renames, but never a half-written one.)
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { serializeCanonicalJson } from "../common/canonical-json.js";
import { MANIFEST_FILE, type ArtifactManifest } from "../contract/manifest.js";
import { bundleIntegrity } from "./integrity.js";
import { checkWriteTarget, type WriteRefusal } from "../common/confined-write.js";

/** Thrown by {@link writeArtifact}, before touching the disk, when the way to `outDir` is refused. */
export class ArtifactWriteRefusedError extends Error {
  constructor(readonly refusal: WriteRefusal) {
    super(`${refusal.path} ${refusal.reason}`);
    this.name = "ArtifactWriteRefusedError";
  }
}

/** Contents of an extra artifact file: bytes, or text written as UTF-8. */
export type ArtifactFileContents = Uint8Array | string;

/** How many files are written at the same time. */
const WRITE_CONCURRENCY = 32;

/** Manifests already serialized, by object (the compile driver compares the bytes, then writes them). */
const serialized = new WeakMap<ArtifactManifest, Uint8Array>();

/**
 * The bytes of `manifest.json`: canonical JSON (keys in code-unit order at every depth,
 * `manifestVersion` first, two-space indent, LF, trailing newline), so the same manifest always
 * gives the same bytes. Memoized per manifest object: neither the manifest nor the returned
 * bytes may be changed afterwards.
 */
export function serializeManifest(manifest: ArtifactManifest): Uint8Array {
  let bytes = serialized.get(manifest);
  if (bytes === undefined) {
    bytes = Buffer.from(serializeCanonicalJson(manifest, { firstKeys: ["manifestVersion"] }), "utf8");
    serialized.set(manifest, bytes);
  }
  return bytes;
}

/**
 * Writes an artifact, replacing any previous one at `outDir` atomically (see the module header).
 *
 * @param outDir the artifact directory (absolute, or relative to the working directory).
 * @param bundles bundle bytes by artifact-relative POSIX path (from `bundleTools`).
 * @param manifest written as `manifest.json`; every tool's `bundle` must be a key of `bundles`
 *   and its `integrity` must match those bytes.
 * @param extraFiles more files by artifact-relative POSIX path.
 * @param root the agent root: when `outDir` is inside it, no component of the way there may be
 *   a symbolic link out of the root or a file (`common/confined-write.ts`); throws
 *   {@link ArtifactWriteRefusedError} otherwise.
 * @throws Error, before touching the disk, when a path is not a plain relative path, two paths
 *   name the same file (letter case ignored), or the manifest disagrees with `bundles`; when
 *   `outDir` exists but is not an artifact (a file, or a non-empty directory without
 *   `manifest.json`: it is never replaced); and the file system's error when writing fails —
 *   in every case the previous artifact is left as it was.
 */
export async function writeArtifact(
  outDir: string,
  bundles: ReadonlyMap<string, Uint8Array>,
  manifest: ArtifactManifest,
  extraFiles: ReadonlyMap<string, ArtifactFileContents> = new Map(),
  root?: string,
  unchanged: ReadonlySet<string> = new Set(),
): Promise<void> {
  const files = collectFiles(bundles, manifest, extraFiles);
  const target = path.resolve(outDir);
  const refusal = root === undefined ? undefined : checkWriteTarget(root, target, "directory");
  if (refusal) throw new ArtifactWriteRefusedError(refusal);
  const parent = path.dirname(target);
  await fs.mkdir(parent, { recursive: true });
  await assertReplaceable(target);
  const temporary = await fs.mkdtemp(path.join(parent, `.${path.basename(target)}.tmp-`));
  try {
    await writeFiles(temporary, files, unchanged.size > 0 ? { from: target, unchanged } : undefined);
  } catch (error) {
    await fs.rm(temporary, { recursive: true, force: true });
    throw error;
  }
  await swapInto(temporary, target);
}

/** All files of the artifact, sorted by path, after checking paths and the manifest. */
function collectFiles(
  bundles: ReadonlyMap<string, Uint8Array>,
  manifest: ArtifactManifest,
  extraFiles: ReadonlyMap<string, ArtifactFileContents>,
): [string, Uint8Array][] {
  checkManifestAgainstBundles(manifest, bundles);
  const files: [string, Uint8Array][] = [[MANIFEST_FILE, serializeManifest(manifest)]];
  for (const [file, bytes] of bundles) files.push([file, bytes]);
  for (const [file, contents] of extraFiles) files.push([file, typeof contents === "string" ? Buffer.from(contents, "utf8") : contents]);
  const seen = new Map<string, string>();
  for (const [file] of files) {
    if (!isPlainRelativePath(file)) throw new Error(`artifact path "${file}" is not a plain relative POSIX path`);
    const folded = file.toLowerCase();
    const earlier = seen.get(folded);
    if (earlier !== undefined) throw new Error(`artifact paths "${earlier}" and "${file}" name the same file`);
    seen.set(folded, file);
  }
  return files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function checkManifestAgainstBundles(manifest: ArtifactManifest, bundles: ReadonlyMap<string, Uint8Array>): void {
  for (const [surfaceId, surface] of Object.entries(manifest.surfaces)) {
    for (const [name, tool] of Object.entries(surface.tools)) {
      const bytes = bundles.get(tool.bundle);
      if (bytes === undefined) throw new Error(`manifest tool "${name}" of surface "${surfaceId}" names bundle "${tool.bundle}", which is not among the bundles`);
      if (bundleIntegrity(bytes) !== tool.integrity) {
        throw new Error(`manifest tool "${name}" of surface "${surfaceId}" records integrity ${tool.integrity}, but "${tool.bundle}" hashes differently`);
      }
    }
  }
}

function isPlainRelativePath(file: string): boolean {
  return file.split("/").every((segment) => segment !== "" && segment !== "." && segment !== ".." && !/[\\:\0]/.test(segment));
}

/** Refuses to replace anything that is not an artifact (a file, or a non-empty foreign directory). */
async function assertReplaceable(target: string): Promise<void> {
  let stat;
  try {
    stat = await fs.lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!stat.isDirectory()) throw new Error(`cannot write the artifact to ${target}: it exists and is not a directory`);
  const entries = await fs.readdir(target);
  if (entries.length > 0 && !entries.includes(MANIFEST_FILE)) {
    throw new Error(`refusing to replace ${target}: it is not empty and holds no ${MANIFEST_FILE}, so it is not an artifact`);
  }
}

/**
 * Writes `files` under `directory`. A file named in `reuse.unchanged` (the caller compared the
 * artifact being replaced and found these exact bytes there) is hard-linked from `reuse.from`
 * instead, and written when linking fails (another device, no link support): a one-bundle change
 * does not rewrite thousands of bundles. The old folder is removed after the swap, so each file
 * ends with one link.
 */
async function writeFiles(directory: string, files: readonly [string, Uint8Array][], reuse?: { from: string; unchanged: ReadonlySet<string> }): Promise<void> {
  const folders = [...new Set(files.map(([file]) => path.posix.dirname(file)).filter((dir) => dir !== "."))].sort();
  for (const folder of folders) await fs.mkdir(path.join(directory, ...folder.split("/")), { recursive: true });
  for (let start = 0; start < files.length; start += WRITE_CONCURRENCY) {
    // allSettled, not all: the caller removes `directory` on failure, which must not race a write still in flight.
    const settled = await Promise.allSettled(
      files
        .slice(start, start + WRITE_CONCURRENCY)
        .map(async ([file, bytes]) => {
          const to = path.join(directory, ...file.split("/"));
          if (reuse?.unchanged.has(file)) {
            try {
              await fs.link(path.join(reuse.from, ...file.split("/")), to);
              return;
            } catch {
              // Written below instead.
            }
          }
          await fs.writeFile(to, bytes, { flag: "wx" });
        }),
    );
    const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    if (failure) throw failure.reason;
  }
}

/** Moves `source` to `target`, replacing a previous `target` so that it survives any failure. */
async function swapInto(source: string, target: string): Promise<void> {
  const backup = path.join(path.dirname(target), `.${path.basename(target)}.old-${randomUUID()}`);
  let moved = false;
  try {
    await fs.rename(target, backup);
    moved = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      await fs.rm(source, { recursive: true, force: true });
      throw error;
    }
  }
  try {
    await fs.rename(source, target);
  } catch (error) {
    if (moved) await fs.rename(backup, target);
    await fs.rm(source, { recursive: true, force: true });
    throw error;
  }
  if (moved) await fs.rm(backup, { recursive: true, force: true });
}
