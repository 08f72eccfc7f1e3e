/**
 * The committed lock, as Git has it: `review` compares the next lock with the `plugins.lock` of
 * `HEAD` (issue 11 item 3: "every difference between the committed lock and the new one"), since
 * the file on disk is rewritten by every `compile`, and by the host commands, which compile
 * first: after the usual edit, compile, review, the file on disk already is the new lock
 * (helper-67's trial: `review` said "no model-visible changes" while `git diff plugins.lock`
 * showed one).
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import type { Lockfile } from "../contract/lockfile-types.js";
import { LOCKFILE_NAME } from "../contract/lockfile-types.js";
import { lockFromText } from "../lockfile/read-lockfile.js";

/** The most bytes of the committed lock read from Git (a lock of 2,000 tools is about 2.7 MB). */
const MAX_LOCK_BYTES = 64 * 1024 * 1024;

/**
 * What {@link committedLock} found: the lock at `HEAD`, or `null` when the root is in a Git work
 * tree whose `HEAD` has no `plugins.lock` (no commit yet, or the lock was never committed: every
 * tool is new to a reviewer).
 */
export type CommittedLock = Lockfile | null;

/**
 * The lock at `HEAD` of the Git work tree holding `root` (absolute): `git show HEAD:./plugins.lock`
 * run in the root; `null` when `root` is in a work tree but `HEAD` has no such file (or there is
 * no commit yet); `undefined` when Git is not installed, `root` is in no work tree, or the
 * committed text is not a lock this toolchain reads (then the file on disk is the committed lock).
 * Never throws.
 */
export function committedLock(root: string): CommittedLock | undefined {
  try {
    const shown = git(root, ["show", "--no-textconv", `HEAD:./${LOCKFILE_NAME}`]);
    if (shown.status === 0 && typeof shown.stdout === "string") return lockFromText(path.join(root, LOCKFILE_NAME), shown.stdout);
    // Not shown: a work tree without that file at HEAD (or without a HEAD), or no work tree at all.
    return insideWorkTree(root) ? null : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What {@link lockAtRevision} found: the lock (or `null`: the revision has no `plugins.lock` in
 * the agent's folder), or why there is none to compare with.
 */
export type LockAtRevision = { readonly lock: CommittedLock } | { readonly problem: "not-a-work-tree" | "unknown-revision" | "not-a-lock" };

/**
 * The lock at `revision` (a branch, tag or commit: `review --base origin/main`, the pull
 * request's base in CI, where `HEAD` is the pull request's own commit with its recompiled lock:
 * new-user trial 115, B2) of the Git work tree holding `root` (absolute). `revision` must not
 * begin with `-` (the caller refuses it: Git would read it as an option). Never throws.
 */
export function lockAtRevision(root: string, revision: string): LockAtRevision {
  try {
    if (!insideWorkTree(root)) return { problem: "not-a-work-tree" };
    const commit = git(root, ["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]);
    if (commit.status !== 0) return { problem: "unknown-revision" };
    const shown = git(root, ["show", "--no-textconv", `${commit.stdout.trim()}:./${LOCKFILE_NAME}`]);
    if (shown.status !== 0 || typeof shown.stdout !== "string") return { lock: null };
    const lock = lockFromText(path.join(root, LOCKFILE_NAME), shown.stdout);
    return lock === undefined ? { problem: "not-a-lock" } : { lock };
  } catch {
    return { problem: "not-a-work-tree" };
  }
}

/** Runs Git in `root`. The agent may be a clone someone else prepared: no pager, no filesystem monitor, no textconv filter (a repository's own configuration could name a program for each). */
function git(root: string, args: readonly string[]) {
  return spawnSync("git", ["--no-pager", "-c", "core.fsmonitor=false", "-C", root, ...args], { encoding: "utf8", maxBuffer: MAX_LOCK_BYTES, stdio: ["ignore", "pipe", "ignore"], timeout: 30_000 });
}

/** Whether `root` is in a Git work tree (false without Git). */
function insideWorkTree(root: string): boolean {
  const inside = git(root, ["rev-parse", "--is-inside-work-tree"]);
  return inside.status === 0 && inside.stdout.trim() === "true";
}
