/**
 * Writes the artifact directory (DESIGN §6: `<root>/.assemblyline/build/` unless `--out`):
 * `manifest.json`, the bundles, and any extra files (e.g. copied `SKILL.md`s), all at once.
 *
 * Atomic replacement: everything is written into a fresh temporary directory beside `outDir`
 * (or into the artifact's spare, claimed into it: `ArtifactWriteOptions.spare`,
 * `./artifact-spare.ts`), then the old artifact is renamed aside, the new one renamed into
 * place, and the old one kept as the next spare or removed (awaited, or left to the caller to
 * await: `ArtifactWriteOverlap.deferRemoval`; a removal that fails leaves a `.<out>.old-<uuid>`
 * folder a later compile removes, never an error once the new artifact is in place). If writing
 * fails, the temporary directory is removed and the old artifact was never touched; if the
 * final rename fails, the old artifact is renamed back. (POSIX has no atomic exchange of two
 * directories, so another process may see no `outDir` for the instant between the two renames,
 * but never a half-written one.)
 */
import { randomUUID } from "node:crypto";
import { linkSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { serializeCanonicalJson } from "../common/canonical-json.js";
import { MANIFEST_FILE, type ArtifactManifest } from "../contract/manifest.js";
import { bytesOfBundle, integrityOfBundle, type BundleBytes } from "./bundle-bytes.js";
import { checkWriteTarget, type WriteRefusal } from "../common/confined-write.js";
import { claimSpare, dropSpare, fitSpare, keepAsSpare, type FileIdentity, type FittedSpare } from "./artifact-spare.js";
import type { EarlyStaging } from "./artifact-staging.js";

export type { FileIdentity } from "./artifact-spare.js";

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
 * @param bundles bundle bytes by artifact-relative POSIX path (from `bundleTools`): a reused
 *   bundle's (`DeferredBundle`, `./bundle-bytes.ts`) are read only when its file is written, and
 *   only after their SHA-512 is its recorded SRI.
 * @param manifest written as `manifest.json`; every tool's `bundle` must be a key of `bundles`
 *   and its `integrity` must be that bundle's (computed from built bytes; a reused bundle's
 *   recorded SRI, which its bytes are verified against when they are used).
 * @param extraFiles more files by artifact-relative POSIX path.
 * @param root the agent root: when `outDir` is inside it, no component of the way there may be
 *   a symbolic link out of the root or a file (`common/confined-write.ts`); throws
 *   {@link ArtifactWriteRefusedError} otherwise.
 * @param unchanged the files (artifact-relative POSIX paths) whose new bytes the artifact being
 *   replaced holds already, each with the identity of that file when known: they are linked
 *   from it, or kept in the spare when its file there is that very file.
 * @param options work to overlap with the writes, and whether to keep a spare ({@link ArtifactWriteOptions}).
 * @throws Error, before touching the disk, when a path is not a plain relative path, two paths
 *   name the same file (letter case ignored), or the manifest disagrees with `bundles`; when
 *   `outDir` exists but is not an artifact (a file, or a non-empty directory without
 *   `manifest.json`: it is never replaced); and the file system's error when writing fails —
 *   in every case the previous artifact is left as it was.
 */
export async function writeArtifact(
  outDir: string,
  bundles: ReadonlyMap<string, BundleBytes>,
  manifest: ArtifactManifest,
  extraFiles: ReadonlyMap<string, ArtifactFileContents> = new Map(),
  root?: string,
  unchanged: ReadonlyMap<string, FileIdentity | undefined> = new Map(),
  options: ArtifactWriteOptions = {},
): Promise<WrittenArtifact> {
  const files = collectFiles(bundles, manifest, extraFiles);
  const target = path.resolve(outDir);
  const refusal = root === undefined ? undefined : checkWriteTarget(root, target, "directory");
  if (refusal) throw new ArtifactWriteRefusedError(refusal);
  const parent = path.dirname(target);
  await fs.mkdir(parent, { recursive: true });
  await assertReplaceable(target, options.owned === true);
  const freshTemporary = (): Promise<string> => fs.mkdtemp(path.join(parent, `.${path.basename(target)}.tmp-`));
  // A staging folder made ahead (`./artifact-staging.ts`) is ours from here: it is `temporary`.
  const staged = await options.staged?.take();
  let temporary = staged?.dir ?? (await freshTemporary());
  // The new artifact is made in `temporary` itself, or in the claimed spare moved inside it.
  let staging = temporary;
  let fitted: FittedSpare | undefined;
  if (options.spare === true && staged === undefined) {
    const claimedAt = path.join(temporary, "spare");
    try {
      const claimed = await claimSpare(target, claimedAt);
      if (claimed !== undefined) {
        fitted = await fitSpare(claimed, files, identitiesOf(unchanged));
        staging = claimed;
      }
    } catch {
      // A spare that cannot be fitted is dropped: the artifact is written into a fresh folder. One
      // that cannot even be removed stays in its temporary folder, which a later compile removes
      // (`common/stale-temporaries.ts`), and the artifact is written into another.
      fitted = undefined;
      staging = temporary;
      if (!(await dropSpare(claimedAt))) staging = temporary = await freshTemporary();
    }
  }
  let backup: string | undefined;
  try {
    await writeFiles(staging, files, unchanged.size > 0 ? { from: target, unchanged } : undefined, options.meanwhile, fitted, staged?.folders);
    backup = await swapInto(staging, target);
  } catch (error) {
    await fs.rm(temporary, { recursive: true, force: true });
    throw error;
  }
  // Empty now; one left behind is removed by a later compile, the new artifact is in place either way.
  if (staging !== temporary) await fs.rm(temporary, { recursive: true, force: true }).catch(() => undefined);
  const kept = backup !== undefined && options.spare === true && (await keepAsSpare(backup, target));
  const removal = backup === undefined || kept ? Promise.resolve() : removeTree(backup);
  if (options.deferRemoval !== true) await removal;
  // A file kept from the spare is the replaced artifact's own file (one inode in both): no link,
  // unlink or write touched it, unless the replaced artifact is being removed (each unlink moves
  // the change time of the file it shares).
  return { removal, untouched: fitted !== undefined && (backup === undefined || kept) ? fitted.kept : NOTHING_UNTOUCHED };
}

const NOTHING_UNTOUCHED: ReadonlySet<string> = new Set();

/** The identities among `unchanged`'s (the files {@link fitSpare} may keep). */
function identitiesOf(unchanged: ReadonlyMap<string, FileIdentity | undefined>): Map<string, FileIdentity> {
  const identities = new Map<string, FileIdentity>();
  for (const [file, identity] of unchanged) if (identity !== undefined) identities.set(file, identity);
  return identities;
}

/**
 * Work a caller overlaps with {@link writeArtifact}'s file-system calls that run on libuv's
 * thread pool and need the main thread only to be issued: the new files' writes, and the old
 * artifact's removal (issue 14 item 4). The links of unchanged files are made on the main thread
 * before it (`writeFiles`: one after another they cost less than half the CPU).
 */
export interface ArtifactWriteOverlap {
  /**
   * Synchronous work run once, after the links of the unchanged files are made and the first
   * writes are on their way, before they are awaited (the compile saves its caches
   * there). It runs only when the old artifact is still intact and the new one not yet in place;
   * it must not throw (an exception is reported as the write's failure).
   */
  readonly meanwhile?: () => void;
  /**
   * When true, the old artifact (renamed aside once the new one is in place) is removed in the
   * background: {@link WrittenArtifact.removal} settles when it is gone, and the caller awaits it
   * before anything looks at the artifact's folder or its files' change times (an unlink changes
   * the change time of the new artifact's linked file). Otherwise `writeArtifact` awaits it.
   */
  readonly deferRemoval?: boolean;
}

/** How {@link writeArtifact} writes: the work it overlaps, and whether it keeps a spare. */
export interface ArtifactWriteOptions extends ArtifactWriteOverlap {
  /**
   * When true, the replaced artifact is kept beside `outDir` as its spare (`.<out>.spare`,
   * `./artifact-spare.ts`) instead of being removed, and the next write starts from the spare.
   * The compile asks for it for the default artifact folder only (`<root>/.assemblyline/build`).
   */
  readonly spare?: boolean;
  /**
   * When true, `outDir` is the toolchain's own folder (`<root>/.assemblyline/build`, which nothing
   * else writes): a folder there without `manifest.json` is replaced rather than refused as a
   * foreign folder (the rule that protects a `--out` folder).
   */
  readonly owned?: boolean;
  /**
   * A staging folder the caller started making ahead (`./artifact-staging.ts`, made when there
   * was no spare): the artifact is written into it (the folders it holds are not made again, and
   * those the new artifact does not have are removed before the swap) instead of a fresh
   * temporary folder, and no spare is claimed. When it could not be made, as without it.
   */
  readonly staged?: EarlyStaging;
}

/** What {@link writeArtifact} did. */
export interface WrittenArtifact {
  /**
   * Settles (never rejects) once the old artifact, renamed aside, is removed; at once when there
   * was none. A removal that fails leaves the `.<out>.old-<uuid>` folder, which a later compile
   * removes (`common/stale-temporaries.ts`): the new artifact is in place either way.
   */
  readonly removal: Promise<void>;
  /**
   * Artifact-relative POSIX paths of the files now in place that are the very files the replaced
   * artifact held at those paths (same inode, kept in the fitted spare) and that no link, unlink
   * or write of this call touched, so their `lstat` (change time included) is what it was before
   * the call. Empty without a fitted spare, or when the replaced artifact is removed instead of
   * kept as the spare. The compile record takes their stat signatures from the compile's
   * comparison instead of asking `lstat` again (`build/emit-artifact.ts`, `EmittedArtifact.signatures`).
   */
  readonly untouched: ReadonlySet<string>;
}

/** All files of the artifact, sorted by path, after checking paths and the manifest. */
function collectFiles(
  bundles: ReadonlyMap<string, BundleBytes>,
  manifest: ArtifactManifest,
  extraFiles: ReadonlyMap<string, ArtifactFileContents>,
): [string, BundleBytes][] {
  checkManifestAgainstBundles(manifest, bundles);
  const files: [string, BundleBytes][] = [[MANIFEST_FILE, serializeManifest(manifest)]];
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

/**
 * Checks that every manifest tool names one of `bundles` with that bundle's integrity: computed
 * from the bytes of a bundle just built, the sealed index's recorded SRI for a reused one (whose
 * bytes are not read for this: they are verified against that SRI when they are used,
 * `DeferredBundle.load`, so no bytes but those reach the artifact; docs/caches.md).
 */
function checkManifestAgainstBundles(manifest: ArtifactManifest, bundles: ReadonlyMap<string, BundleBytes>): void {
  for (const [surfaceId, surface] of Object.entries(manifest.surfaces)) {
    for (const [name, tool] of Object.entries(surface.tools)) {
      const bytes = bundles.get(tool.bundle);
      if (bytes === undefined) throw new Error(`manifest tool "${name}" of surface "${surfaceId}" names bundle "${tool.bundle}", which is not among the bundles`);
      if (integrityOfBundle(bytes) !== tool.integrity) {
        throw new Error(`manifest tool "${name}" of surface "${surfaceId}" records integrity ${tool.integrity}, but "${tool.bundle}" hashes differently`);
      }
    }
  }
}

function isPlainRelativePath(file: string): boolean {
  return file.split("/").every((segment) => segment !== "" && segment !== "." && segment !== ".." && !/[\\:\0]/.test(segment));
}

/**
 * Refuses to replace anything that is not an artifact (a file, or a non-empty foreign directory);
 * with `owned` (the toolchain's own `.assemblyline/build`), a directory without `manifest.json` is
 * an artifact someone damaged and is replaced (security re-check 132: deleting the manifest alone
 * made every compile fail with AL7050 until the folder was removed by hand).
 */
async function assertReplaceable(target: string, owned: boolean): Promise<void> {
  let stat;
  try {
    stat = await fs.lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!stat.isDirectory()) throw new Error(`cannot write the artifact to ${target}: it exists and is not a directory`);
  const entries = await fs.readdir(target);
  if (!owned && entries.length > 0 && !entries.includes(MANIFEST_FILE)) {
    throw new Error(`refusing to replace ${target}: it is not empty and holds no ${MANIFEST_FILE}, so it is not an artifact`);
  }
}

/**
 * Writes `files` under `directory`. A file named in `reuse.unchanged` (the caller compared the
 * artifact being replaced and found these exact bytes there) is hard-linked from `reuse.from`
 * instead, and written when linking fails (another device, no link support): a one-bundle change
 * does not rewrite thousands of bundles. A file or folder in `fitted` is there already
 * (`directory` is a fitted spare, `./artifact-spare.ts`) and is left as it is; so is a folder in
 * `staged` (`directory` is a staging folder made ahead, `./artifact-staging.ts`).
 *
 * The links are made one after another on the main thread (`linkSync`), before any write: on
 * the benchmark agent without a spare that is 2,000 links, which took a median 50 ms of CPU this
 * way against 130 ms issued at once on the thread pool (each request's hand-over and wake-up cost
 * more than the link itself; docs/performance.md, "Incremental compiles with packaging", its
 * eighteenth round). A link that fails is written with the new files, so a bundle whose stored
 * bytes had to be built again (`DeferredBundle.load`) is in the caches' save. Writes go
 * {@link WRITE_CONCURRENCY} at a time on the thread pool, and `meanwhile` runs while the first of
 * them are on their way.
 */
async function writeFiles(
  directory: string,
  files: readonly [string, BundleBytes][],
  reuse?: { from: string; unchanged: ReadonlyMap<string, unknown> },
  meanwhile?: () => void,
  fitted?: FittedSpare,
  staged?: ReadonlySet<string>,
): Promise<void> {
  await makeFolders(directory, files, fitted?.folders ?? staged);
  const target = (file: string): string => path.join(directory, ...file.split("/"));
  const missing = fitted ? files.filter(([file]) => !fitted.kept.has(file)) : files;
  // The links first, one after another; a file whose link fails is written with the new files.
  const toWrite: [string, BundleBytes][] = [];
  for (const entry of missing) {
    if (reuse?.unchanged.has(entry[0]) === true && linked(path.join(reuse.from, ...entry[0].split("/")), target(entry[0]))) continue;
    toWrite.push(entry);
  }
  let failure: unknown;
  let pending = meanwhile;
  // Runs `meanwhile` the first time it is called (and never again); what it throws is the write's failure.
  const runMeanwhile = (): void => {
    const run = pending;
    pending = undefined;
    try {
      run?.();
    } catch (error) {
      failure ??= error;
    }
  };
  try {
    // A reused bundle's bytes are read (and verified: `DeferredBundle.load`) where its file is
    // written, and before `meanwhile` saves the caches, so that a bundle built again because its
    // stored bytes were damaged is in the bundle cache's save (the repair).
    await Promise.all(toWrite.map(([, bytes]) => bytesOfBundle(bytes)));
    for (let start = 0; start < toWrite.length; start += WRITE_CONCURRENCY) {
      // allSettled, not all: the caller removes `directory` on failure, which must not race a write still in flight.
      const settled = Promise.allSettled(toWrite.slice(start, start + WRITE_CONCURRENCY).map(async ([file, bytes]) => fs.writeFile(target(file), await bytesOfBundle(bytes), { flag: "wx" })));
      runMeanwhile();
      const rejected = (await settled).find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      if (rejected) throw rejected.reason;
    }
  } catch (error) {
    failure ??= error;
  }
  runMeanwhile();
  if (failure !== undefined) throw failure;
}

/** Hard-links `to` to `from` (`link(2)`, as `fs.link` did before); false when that fails (the caller writes `to` instead). */
function linked(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates under `directory` every folder the artifact-relative `files` lie in, but those in
 * `existing` (a fitted spare's, or a staging folder's made ahead), and removes the folders of
 * `existing` none of them lies in (a staging folder made for a plugin since removed: empty, ours),
 * deepest first, so the tree is a fresh write's. New folders are made one depth at a time with each depth's folders created at once:
 * a `mkdir` costs about 0.1–0.2 ms of file-system work, and the 402 folders of the benchmark
 * agent's artifact took 60–150 ms created one after another, 10–30 ms this way (issue 14 item 4,
 * docs/performance.md, "Seventh round: the artifact's folders, and the replaced artifact kept as a spare").
 */
async function makeFolders(directory: string, files: readonly (readonly [string, unknown])[], existing: ReadonlySet<string> = new Set()): Promise<void> {
  const byDepth: string[][] = [];
  const seen = new Set<string>();
  const add = (folder: string): void => {
    if (folder === "." || seen.has(folder)) return;
    seen.add(folder);
    add(path.posix.dirname(folder));
    if (!existing.has(folder)) (byDepth[folder.split("/").length] ??= []).push(folder);
  };
  for (const [file] of files) add(path.posix.dirname(file));
  const unneeded = [...existing].filter((folder) => !seen.has(folder)).sort((a, b) => b.split("/").length - a.split("/").length);
  for (const folder of unneeded) await fs.rmdir(path.join(directory, ...folder.split("/")));
  for (const folders of byDepth) {
    if (folders === undefined) continue;
    // allSettled: a failure is thrown only once no `mkdir` of this depth is in flight (the caller removes `directory`).
    const rejected = (await Promise.allSettled(folders.map((folder) => fs.mkdir(path.join(directory, ...folder.split("/")))))).find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    if (rejected) throw rejected.reason;
  }
}

/**
 * Moves `source` to `target`, replacing a previous `target` so that it survives any failure.
 * Returns where the previous `target` now is (`undefined` when there was none), for the caller
 * to remove.
 */
async function swapInto(source: string, target: string): Promise<string | undefined> {
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
  return moved ? backup : undefined;
}

/**
 * Removes the folder `dir` (an old artifact renamed aside: our own folder, no one else writes
 * in it) with its contents. Each folder is listed once (its entries' types come with the
 * listing: no `lstat` per file, links are removed as links, never followed) and all its files'
 * unlinks are issued at once, so the thread pool proceeds while the main thread does other work.
 * Never rejects: a failure leaves what remains, which a later compile removes
 * (`common/stale-temporaries.ts`); as a last try it falls back to `fs.rm`.
 */
async function removeTree(dir: string): Promise<void> {
  try {
    await removeFolder(dir);
  } catch {
    await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function removeFolder(dir: string): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  await Promise.all(entries.map((entry) => (entry.isDirectory() ? removeFolder(path.join(dir, entry.name)) : fs.unlink(path.join(dir, entry.name)))));
  await fs.rmdir(dir);
}
