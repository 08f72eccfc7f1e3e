/**
 * Test helper: writes a map of files (relative path → text, or `{ link }` for a symlink) into a
 * fresh temporary directory and returns its absolute path.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** A file's text, raw bytes, or a symlink to create. */
export type TreeEntry = string | Uint8Array | { readonly link: string } | { readonly dir: true };

/** Creates the tree under a new temp directory (removed by the OS; tests need not clean up). */
export function writeTree(files: Readonly<Record<string, TreeEntry>>, prefix = "al-test-"): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  addToTree(root, files);
  return root;
}

/** Adds (or overwrites) files under an existing directory. */
export function addToTree(root: string, files: Readonly<Record<string, TreeEntry>>): void {
  for (const [relative, content] of Object.entries(files)) {
    const target = path.join(root, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (typeof content === "object" && "link" in content) fs.symlinkSync(content.link, target);
    else if (typeof content === "object" && "dir" in content) fs.mkdirSync(target, { recursive: true });
    else fs.writeFileSync(target, content);
  }
}

/** Absolute path of the repository root (for reading `../shared/corpus` in place). */
export const repoRoot = path.resolve(import.meta.dirname, "..", "..");

/** Absolute path of the shared corpus, read in place and never copied into the repo. */
export const corpusRoot = path.resolve(repoRoot, "..", "shared", "corpus");
