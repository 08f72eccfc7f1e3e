/**
 * The artifact's spare (issue 14 item 4): the artifact a compile replaced, kept beside the
 * artifact folder as `.<out>.spare` instead of being removed, so that the next compile that
 * replaces the artifact starts from its folders and files instead of creating them again.
 *
 * Why: on the benchmark agent (200 plugins × 10 tools) an artifact is 402 folders and 2,001
 * files. A one-file change made a new folder tree (402 `mkdir`s, 0.1–0.2 ms each on ext4),
 * linked the 2,000 unchanged bundles into it and then removed the old tree (2,001 `unlink`s and
 * 402 `rmdir`s): 100–150 ms of waiting on the file system out of 0.7 s. With the spare, the old
 * tree is renamed aside once, and the next compile renames the spare into its temporary folder,
 * keeps every file the new artifact holds unchanged, and removes or writes only the rest.
 *
 * What keeps it sound:
 * - A file of the spare is kept only when it is the very file (same device and inode, `lstat`,
 *   never followed) that the artifact being replaced holds at that path, and the compile found
 *   that file to hold this path's new bytes (`build/emit-artifact.ts` compares them; the caller
 *   passes their identities). Anything else in the spare — another file, a link, a folder the
 *   new artifact does not have — is removed, links as links.
 * - The spare is claimed by one `rename` into the compile's own fresh temporary folder
 *   (`.<out>.tmp-<random>`), so two compiles never share it, and a compile killed while fitting
 *   it leaves only a temporary that a later compile removes after 15 minutes
 *   (`common/stale-temporaries.ts`, which judges the temporary folder's own, fresh, time).
 * - The artifact being replaced is never touched: a failed compile leaves it as it was.
 * - Only the default artifact folder (`<root>/.assemblyline/build`, the toolchain's own state
 *   folder) keeps a spare (the compile driver, `build/compile.ts`, decides); `--out` elsewhere
 *   removes the old artifact as before, so no hidden folder appears beside a folder the user chose.
 * - Where files cannot be hard-linked (another device, no link support) the spare holds copies,
 *   as the replaced artifact did.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Where the spare of the artifact folder `target` is kept: `.<name>.spare` beside it. */
export function spareOf(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.spare`);
}

/**
 * The identity of a file (`lstat`'s device and inode numbers): two paths with the same identity
 * are the same file, so they hold the same bytes.
 */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
}

/** The identity of the file `stat` describes (taken with `bigint: true`, so no inode number is rounded). */
export function identityOfStats(stat: fs.BigIntStats): FileIdentity {
  return { dev: stat.dev, ino: stat.ino };
}

/** The identity of `file` when it is a regular file (`lstat`: a link is never one); `undefined` otherwise. Never throws. */
export function fileIdentity(file: string): FileIdentity | undefined {
  try {
    const stat = fs.lstatSync(file, { bigint: true, throwIfNoEntry: false });
    return stat?.isFile() ? identityOfStats(stat) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claims the spare of `target` by renaming it to `into` (a path inside the caller's own fresh
 * temporary folder). Returns `into` when the spare was there and is a folder; `undefined` when
 * there was none, another compile claimed it first, or it was not a folder whose mode could be
 * set to a fresh folder's (then what was renamed is removed, a link as a link). Never throws.
 */
export async function claimSpare(target: string, into: string): Promise<string | undefined> {
  try {
    await fs.promises.rename(spareOf(target), into);
  } catch {
    return undefined;
  }
  const stat = await fs.promises.lstat(into).catch(() => undefined);
  // The mode a fresh temporary folder has (`mkdtemp`), whatever the replaced artifact's was.
  if (stat?.isDirectory() && (await fs.promises.chmod(into, 0o700).then(() => true, () => false))) return into;
  await fs.promises.rm(into, { recursive: stat?.isDirectory() === true, force: true }).catch(() => undefined);
  return undefined;
}

/**
 * Removes a claimed spare that could not be fitted (`claimed`, inside the caller's temporary
 * folder). Returns false when it cannot be removed: the caller then leaves that temporary folder
 * to a later compile (`common/stale-temporaries.ts`) and writes into a fresh one. Never throws.
 */
export async function dropSpare(claimed: string): Promise<boolean> {
  return fs.promises.rm(claimed, { recursive: true, force: true }).then(
    () => true,
    () => false,
  );
}

/** What {@link fitSpare} left in a claimed spare. */
export interface FittedSpare {
  /** Artifact-relative POSIX paths of the files kept: each holds its path's new bytes already. */
  readonly kept: ReadonlySet<string>;
  /** Artifact-relative POSIX paths of the folders kept (each one the new artifact needs). */
  readonly folders: ReadonlySet<string>;
}

/**
 * Fits a claimed spare (`staging`) to the new artifact's `files` (artifact-relative POSIX path
 * → bytes): keeps each file whose identity is the one `unchanged` gives for its path (the file
 * of the artifact being replaced that holds these bytes) and each folder the new files lie in;
 * removes everything else (files and links unlinked, other folders removed with their contents).
 * Rejects with the file system's error when a removal fails (the caller then writes a fresh
 * folder instead).
 */
export async function fitSpare(staging: string, files: readonly (readonly [string, unknown])[], unchanged: ReadonlyMap<string, FileIdentity>): Promise<FittedSpare> {
  const needed = new Set<string>();
  for (const [file] of files) {
    for (let folder = path.posix.dirname(file); folder !== "." && !needed.has(folder); folder = path.posix.dirname(folder)) needed.add(folder);
  }
  const kept = new Set<string>();
  const folders = new Set<string>();
  const removals: Promise<void>[] = [];
  const visit = (relative: string): void => {
    const dir = relative === "" ? staging : path.join(staging, ...relative.split("/"));
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory() && needed.has(file)) {
        folders.add(file);
        visit(file);
      } else if (entry.isDirectory()) {
        removals.push(fs.promises.rm(absolute, { recursive: true, force: true }));
      } else if (entry.isFile() && sameFile(absolute, unchanged.get(file))) {
        kept.add(file);
      } else {
        removals.push(fs.promises.unlink(absolute));
      }
    }
  };
  let settled: PromiseSettledResult<void>[];
  try {
    visit("");
  } finally {
    // Every removal issued is settled before this returns or throws: the caller may remove `staging` next.
    settled = await Promise.allSettled(removals);
  }
  const rejected = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (rejected) throw rejected.reason;
  return { kept, folders };
}

function sameFile(file: string, identity: FileIdentity | undefined): boolean {
  if (identity === undefined) return false;
  const found = fileIdentity(file);
  return found !== undefined && found.dev === identity.dev && found.ino === identity.ino;
}

/**
 * Keeps `backup` (the replaced artifact, renamed aside) as the spare of `target`. Returns false
 * when it cannot (another compile kept one meanwhile, or the rename fails): the caller removes
 * `backup` then. Never throws.
 */
export async function keepAsSpare(backup: string, target: string): Promise<boolean> {
  try {
    await fs.promises.rename(backup, spareOf(target));
    return true;
  } catch {
    return false;
  }
}
