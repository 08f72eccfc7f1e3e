/**
 * Test helper: fresh temporary directories, and maps of files (relative path → text or bytes,
 * `{ link }` for a symlink, `{ dir: true }` for an empty folder) written into them.
 *
 * Importing this module registers an `afterAll` hook in the test file that removes every
 * directory {@link tempDir} (or {@link writeTree}) made, so tests need not clean up.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll } from "vitest";

/** A file's text, raw bytes, or a symlink to create. */
export type TreeEntry = string | Uint8Array | { readonly link: string } | { readonly dir: true };

const created: string[] = [];

afterAll(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh, empty directory under the OS temp dir (its real path), removed after the test file. */
export function tempDir(prefix = "al-test-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

/** Writes the tree under a new {@link tempDir} and returns its absolute path. */
export function writeTree(files: Readonly<Record<string, TreeEntry>>, prefix = "al-test-"): string {
  const root = tempDir(prefix);
  writeFiles(root, files);
  return root;
}

/** Adds (or overwrites) files under an existing directory, creating parent folders. */
export function writeFiles(root: string, files: Readonly<Record<string, TreeEntry>>): void {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(root, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (typeof content === "object" && "link" in content) fs.symlinkSync(content.link, target);
    else if (typeof content === "object" && "dir" in content) fs.mkdirSync(target, { recursive: true });
    else fs.writeFileSync(target, content);
  }
}

/** Absolute path of the repository root (tests read only below it; the corpus is `test/conformance/`'s). */
export const repoRoot = path.resolve(import.meta.dirname, "..", "..");
