/**
 * The dist build's declaration files kept per user (./build-dist.mjs; docs/performance.md, "The
 * test suite's budget"). TypeScript's declaration emit over the whole program is about 8 s of CPU
 * and runs in every fresh clone (`pretest` of a new checkout, and the pre-commit test's clone of
 * the repository in every `npm test`), where the sources are the same as in the build before. So
 * an emit's declaration files are kept in the user's private cache folder (the code caches':
 * `common/private-cache-folder.ts`, this user's own, not a link, not writable by group or others;
 * off with `ASSEMBLY_LINE_CODE_CACHE=0`) and a later build of the same inputs writes them instead
 * of emitting, as ccache's manifests do:
 *
 * - **Key**: the SHA-256 of the build's stamp (the build script, both TypeScript configurations,
 *   TypeScript's and esbuild's versions: `stampOf`) and every source's SHA-256.
 * - **Entry** (`declarations-<key>.bin`, sealed: a truncated or altered file is a miss; mode 0600;
 *   read only when the file is this user's and not writable by group or others): every other file
 *   the emit's program read — TypeScript's libraries and the packages' declarations under
 *   `node_modules` — with its SHA-256, and the declaration files written, by path under `dist/`.
 * - **Used** only when each of those files still has that SHA-256 (another installed `@types`
 *   package is a miss); the files are then written where the emit would write them, a file only
 *   when its text changed (as the emit does). Byte for byte what the emit writes, since the emit's
 *   every input is the same.
 * - A writer prunes the entries not written for 30 days, and the oldest beyond 64 MB.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

/** First bytes of an entry; then the SHA-256 of the payload, then the payload. */
const MAGIC = Buffer.from("assembly-line declarations 1\n", "utf8");

/** The entries and the temporaries of killed writers, for pruning. */
const ENTRY_FILE = /^declarations-[0-9a-f]{64}\.bin(?:\.\d+-[0-9a-f]{8}\.tmp)?$/;

/** The most bytes the entries keep (each is about 1.5 MB). */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

/**
 * Writes `text` to `file` (making its folder) unless the file holds exactly that already, so an
 * unchanged declaration keeps its modification time (the build's emit and this cache's restore).
 */
export function writeIfChanged(file, text) {
  let old = null;
  try {
    old = fs.readFileSync(file, "utf8");
  } catch {
    // not there yet
  }
  if (old === text) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** SHA-256 hex of a file's bytes. */
export function sha256File(file) {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** The key of the declarations of sources with SHA-256s `hashes` (relative path → hex) built under `stamp`. */
export function declarationsKey(stamp, hashes) {
  const sorted = Object.fromEntries(Object.entries(hashes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return createHash("sha256").update(JSON.stringify({ format: MAGIC.toString("utf8"), stamp, sources: sorted })).digest("hex");
}

/**
 * The per-user declarations of the repository `repo` (whose `dist/common/` the build has emitted)
 * under `key`: `restore()` writes the kept files and returns `true` when an entry is there, is
 * this user's alone, and every input it records is unchanged (else `false`, writing nothing);
 * `store(inputs, outputs)` keeps an emit's (`inputs`: [path, SHA-256] of the files read besides
 * the sources, `outputs`: [path, text], paths relative to `repo`). `undefined` when there is no
 * private folder or the helpers cannot be loaded. `folder`: default the code caches';
 * `distCommon`: where the helpers are, default `repo`'s `dist/common/`. Never throws.
 */
export async function openDeclarationsCache(repo, key, folder, distCommon = path.join(repo, "dist", "common")) {
  let helpers;
  try {
    const dist = distCommon;
    helpers = { ...(await import(pathToFileURL(path.join(dist, "private-cache-folder.js")).href)), ...(await import(pathToFileURL(path.join(dist, "sealed-file.js")).href)) };
  } catch {
    return undefined;
  }
  const dir = folder === undefined ? helpers.codeCacheFolder() : helpers.codeCacheFolder(folder);
  if (dir === undefined) return undefined;
  const file = path.join(dir, `declarations-${key}.bin`);
  return {
    restore() {
      try {
        const stat = fs.lstatSync(file);
        if (!stat.isFile() || !helpers.isPrivateStat(stat)) return false;
        const entry = helpers.readSealedPayload(file, MAGIC);
        if (entry === null || typeof entry !== "object" || !Array.isArray(entry.inputs) || !Array.isArray(entry.outputs)) return false;
        for (const [input, hash] of entry.inputs) {
          if (sha256File(path.resolve(repo, input)) !== hash) return false;
        }
        const targets = entry.outputs.map(([output, text]) => {
          const target = path.resolve(repo, output);
          if (typeof text !== "string" || !target.startsWith(path.join(repo, "dist") + path.sep) || !target.endsWith(".d.ts")) throw new Error(`not a declaration file of dist/: ${output}`);
          return [target, text];
        });
        for (const [target, text] of targets) writeIfChanged(target, text);
        return true;
      } catch {
        return false;
      }
    },
    store(inputs, outputs) {
      try {
        helpers.writeSealedFile(dir, file, MAGIC, { inputs, outputs }, { mode: 0o600 });
        helpers.pruneStaleCacheFiles(dir, ENTRY_FILE, MAX_ENTRY_BYTES);
      } catch {
        // Only a shortcut: the next build emits again.
      }
    },
  };
}

/**
 * What an emit records beside its outputs: each file the program read that is not one of the
 * `sources` (relative paths), as [path relative to `repo` (absolute when outside it), SHA-256],
 * sorted.
 */
export function emitInputs(repo, fileNames, sources) {
  const own = new Set(sources.map((source) => path.join(repo, source)));
  return [...new Set(fileNames.map((file) => path.resolve(file)))]
    .filter((file) => !own.has(file))
    .map((file) => {
      const relative = path.relative(repo, file);
      return [relative.startsWith("..") || path.isAbsolute(relative) ? file : relative.split(path.sep).join("/"), sha256File(file)];
    })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
