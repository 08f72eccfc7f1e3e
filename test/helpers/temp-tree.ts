/**
 * Test helper: fresh temporary directories, and maps of files (relative path → text or bytes,
 * `{ link }` for a symlink, `{ dir: true }` for an empty folder) written into them.
 *
 * Every directory {@link tempDir} (or {@link writeTree}) made is removed after its test file by
 * {@link removeTempDirs}, which `test/setup/temp-dirs.ts` (a setup file of every project, run
 * for each test file) registers, so tests need not clean up. (An `afterAll` registered here, on
 * import, ran only for the first file of a worker that shares its modules across files,
 * `isolate: false`: the later files of the worker left about 600 folders in the OS temp folder
 * per `npm test`.)
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** A file's text, raw bytes, or a symlink to create. */
export type TreeEntry = string | Uint8Array | { readonly link: string } | { readonly dir: true };

const created: string[] = [];

/** Removes every directory {@link tempDir} made since the last call (never throws). */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // A folder a test made unremovable (permissions) stays; the next test file still runs.
    }
  }
}

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
