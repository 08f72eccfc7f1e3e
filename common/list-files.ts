/**
 * Every file under a folder, recursively, sorted by path: what the caches' toolchain keys stat
 * (analysis cache, bundle cache, inputs record). An unreadable or missing folder lists nothing.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Absolute paths of the files under `dir` whose names pass `keep` (all by default), sorted. */
export function listFilesRecursively(dir: string, keep: (name: string) => boolean = () => true): string[] {
  const out: string[] = [];
  const visit = (current: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (keep(entry.name)) out.push(full);
    }
  };
  visit(dir);
  return out.sort();
}
