/**
 * Removal of this toolchain's own stale temporaries (issue 12 item 8): a compile or host killed
 * mid-write leaves `.build.old-*` / `.build.tmp-*` folders, `plugins.lock.<n>` temporary files
 * and bridge folders behind, which nothing else ever removes. Later runs remove them — only
 * entries whose NAME matches one of our own temporary-name patterns AND that are older than an
 * age no live writer reaches, so a user's file (or a concurrent run's temporary) is never
 * touched. Links are removed as links, never followed. Never throws.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Temporaries younger than this are left alone: a concurrent compile may still be writing them. */
export const STALE_TEMPORARY_AGE_MS = 15 * 60 * 1000;

/** Our temporary names in one folder. */
export interface TemporaryPatterns {
  readonly dir: string;
  readonly patterns: readonly RegExp[];
}

/**
 * Removes the entries of each `dir` whose name matches one of its `patterns` and whose last
 * modification is older than `maxAgeMs` (default {@link STALE_TEMPORARY_AGE_MS}) before `now`.
 * Returns the absolute paths removed, sorted. Missing folders and failures are skipped.
 */
export function removeStaleTemporaries(places: readonly TemporaryPatterns[], maxAgeMs = STALE_TEMPORARY_AGE_MS, now = Date.now()): string[] {
  const removed: string[] = [];
  for (const { dir, patterns } of places) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!patterns.some((pattern) => pattern.test(name))) continue;
      const entry = path.join(dir, name);
      try {
        const stat = fs.lstatSync(entry);
        if (now - stat.mtimeMs < maxAgeMs) continue;
        fs.rmSync(entry, { recursive: stat.isDirectory(), force: true });
        removed.push(entry);
      } catch {
        // Gone meanwhile, or not ours to remove (permissions): leave it.
      }
    }
  }
  return removed.sort();
}

/**
 * The temporaries `compile` leaves when killed, for an agent `root` and its artifact folder
 * `outDir`: write-file-atomic's `plugins.lock.<n>` and `writeFileConfined`'s
 * `plugins.lock.<pid>-<hex>.tmp` in the root; the artifact swap's `.<out>.old-<uuid>` and
 * `.<out>.tmp-<random>` (with the spare a compile claimed into it, `packaging/artifact-spare.ts`)
 * beside `outDir`; the analysis and bundle caches' `analysis.bin.*.tmp`, `analysis-entries.bin.*.tmp`, `bundles.bin.*.tmp`, `bundles-bytes.bin.*.tmp`, `bundles.stamp.*.tmp`, and `--watch`'s `watch.stamp.*.tmp`.
 */
export function compileTemporaries(root: string, outDir: string): TemporaryPatterns[] {
  const out = escape(path.basename(outDir));
  return [
    { dir: root, patterns: [/^plugins\.lock\.\d{1,10}$/, /^plugins\.lock\.\d+-[0-9a-f]{8}\.tmp$/] },
    { dir: path.dirname(outDir), patterns: [new RegExp(`^\\.${out}\\.old-[0-9a-f-]{36}$`), new RegExp(`^\\.${out}\\.tmp-[A-Za-z0-9]{6}$`)] },
    { dir: path.join(root, ".assemblyline", "cache"), patterns: [/^analysis\.bin\.[0-9a-f-]{36}\.tmp$/, /^analysis(?:-entries)?\.bin\.\d+-[0-9a-f]{8}\.tmp$/, /^(?:bundles(?:-bytes)?\.bin|bundles\.stamp|watch\.stamp)\.\d+-[0-9a-f]{8}\.tmp$/] },
  ];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
