/**
 * The runtime's own entries in a run's workspace, and the rule that keeps them out of the tools'
 * listings (README trial of 6 December: `.tmp` showed among a tool's files). The tools' temporary
 * folder stays in the workspace, the one folder a sandbox process and an isolated shell command
 * may write, so a temporary file is on the file system of the files it becomes (an atomic rename
 * needs that); the listings (`list`, `workspace_info`, `workspace_snapshot`, `grep`) pass over it
 * instead. A shell command's own `ls -a` still shows it, as `ls -a /` shows `/tmp`.
 */
import { randomBytes } from "node:crypto";

/**
 * The folder the runtime makes at the workspace's root for the tools' temporary files: their
 * `TMPDIR` (`../sandbox/sandbox-environment.ts`), made with the workspace (`./workspace.ts`,
 * `makeWorkspace`) and again before a sandbox process starts (`../sandbox/sandbox-spawn.ts`).
 */
export const WORKSPACE_TEMP_FOLDER = ".tmp";

/**
 * A workspace-relative POSIX path that is the runtime's own: the root's {@link WORKSPACE_TEMP_FOLDER},
 * or, in any folder, the temporary of an atomic write that has not been renamed yet
 * ({@link writeTemporaryName}).
 */
export const RUNTIME_ENTRY = /^\.tmp$|(?:^|\/)\.al-[0-9a-f]{16}\.tmp$/;

/**
 * Whether the workspace-relative POSIX path `relative` (`.tmp`, `notes/.al-….tmp`) is one of the
 * runtime's own entries ({@link RUNTIME_ENTRY}), which a listing of the workspace leaves out.
 * A path below `.tmp` is not: a tool that lists `.tmp` itself sees what it put there.
 */
export function isRuntimeEntry(relative: string): boolean {
  return RUNTIME_ENTRY.test(relative);
}

/** A new name for an atomic write's temporary file in the target's folder: `.al-<16 hex>.tmp`. */
export function writeTemporaryName(): string {
  return `.al-${randomBytes(8).toString("hex")}.tmp`;
}
