/**
 * The artifact's staging folder, made ahead (issue 14 item 4): when a compile will replace an
 * artifact and has no spare to start from (`./artifact-spare.ts`), the new artifact's folders
 * are created on libuv's thread pool while the main thread analyses, packages and serializes,
 * instead of while it waits in `writeArtifact`.
 *
 * Why: after a cold compile (the benchmark's sequence: cold, nothing changed, one file) there is
 * no spare, and the one-file compile made the new artifact's 402 folders (0.1–0.2 ms of kernel
 * time each on ext4) in `writeArtifact`, where the main thread had nothing to do but wait for
 * them (docs/performance.md, "Incremental compiles with packaging", nineteenth round). The
 * folders the new artifact needs are, but for a plugin added or removed, those of the artifact
 * the last compile left (`CompileOptions.knownArtifactFiles`), so they are made from that list.
 *
 * What keeps it sound (the writer's rules, `./write-artifact.ts`, unchanged):
 * - The staging folder is a fresh temporary folder beside the artifact with the writer's own
 *   name (`.<out>.tmp-<random>`, `fs.mkdtemp`), made only after the same confinement check the
 *   writer makes (`checkWriteTarget`: no link out of the agent on the way), so a killed compile
 *   leaves only a temporary a later compile removes (`common/stale-temporaries.ts`).
 * - Nothing in it is visible as the artifact until the writer has filled it and renamed it into
 *   place; the artifact being replaced is never touched. The writer removes the folders made
 *   here that the new artifact does not have before the swap, so the tree is a fresh write's.
 * - A staging folder the writer does not take (the artifact was current, the compile failed or
 *   wrote nothing) is removed: the caller awaits {@link EarlyStaging.discard} before it returns.
 */
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { checkWriteTarget } from "../common/confined-write.js";
import { spareOf } from "./artifact-spare.js";

/** A staging folder handed to the writer: where it is, and the folders made in it (artifact-relative POSIX paths). */
export interface StagedFolders {
  readonly dir: string;
  readonly folders: ReadonlySet<string>;
}

/** A staging folder being made ({@link stageArtifactFolders}). */
export interface EarlyStaging {
  /**
   * Settles once no `mkdir` is in flight; gives the folder to the caller (the writer, which
   * then owns it and removes it on failure) the first time, `undefined` afterwards, after
   * {@link discard}, or when the folder could not be made.
   */
  take(): Promise<StagedFolders | undefined>;
  /** Removes the folder unless it was taken; settles (never rejects) once it is gone. */
  discard(): Promise<void>;
}

/**
 * Starts making, beside the artifact folder `outDir` of the agent `root`, a staging folder with
 * every folder the artifact-relative POSIX `files` lie in (one depth at a time, each depth's
 * `mkdir`s at once on the thread pool), for `writeArtifact` to fill (`ArtifactWriteOptions.staged`).
 * `undefined`, making nothing, when there is nothing to gain or it is not safe: no artifact at
 * `outDir` to replace (a first compile), a spare beside it (the writer fits that instead), no
 * folder to make, or a way to `outDir` that the writer would refuse. Never throws.
 */
export function stageArtifactFolders(root: string, outDir: string, files: Iterable<string>): EarlyStaging | undefined {
  try {
    const target = path.resolve(outDir);
    if (checkWriteTarget(root, target, "directory") !== undefined) return undefined;
    if (fs.lstatSync(target, { throwIfNoEntry: false })?.isDirectory() !== true) return undefined;
    if (fs.lstatSync(spareOf(target), { throwIfNoEntry: false }) !== undefined) return undefined;
    const byDepth = foldersByDepth(files);
    if (byDepth.length === 0) return undefined;
    const dir = fs.mkdtempSync(path.join(path.dirname(target), `.${path.basename(target)}.tmp-`));
    const made = new Set<string>();
    const making = makeByDepth(dir, byDepth, made);
    let taken = false;
    return {
      async take() {
        await making;
        if (taken) return undefined;
        taken = true;
        return { dir, folders: made };
      },
      async discard() {
        await making;
        if (taken) return;
        taken = true;
        await fsp.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      },
    };
  } catch {
    return undefined;
  }
}

/** Every folder (with its parents, but not ".") the artifact-relative POSIX `files` lie in, grouped by depth, shallowest first. */
function foldersByDepth(files: Iterable<string>): string[][] {
  const seen = new Set<string>();
  const byDepth: string[][] = [];
  const add = (folder: string): void => {
    if (folder === "." || seen.has(folder)) return;
    seen.add(folder);
    add(path.posix.dirname(folder));
    (byDepth[folder.split("/").length - 1] ??= []).push(folder);
  };
  for (const file of files) add(path.posix.dirname(file));
  return byDepth.filter((folders) => folders !== undefined);
}

/** Makes `byDepth`'s folders under `dir`, adding each made to `made`; stops at the first depth where one fails (the writer makes what is missing). Never rejects. */
async function makeByDepth(dir: string, byDepth: readonly string[][], made: Set<string>): Promise<void> {
  for (const folders of byDepth) {
    const settled = await Promise.allSettled(folders.map((folder) => fsp.mkdir(path.join(dir, ...folder.split("/")))));
    let failed = false;
    settled.forEach((outcome, index) => {
      if (outcome.status === "fulfilled") made.add(folders[index]!);
      else failed = true;
    });
    if (failed) return;
  }
}
