/**
 * The CLI bundle's build kept per user (./build-cli-bundle.mjs; docs/performance.md, "The test
 * suite's budget"). Bundling the CLI and the host bundle with esbuild, and checking both with
 * TypeScript's parser, is about 5 s of CPU, and ran in every fresh clone with the same sources
 * (`pretest` of a new checkout, and the pre-commit test's clone of the repository in every
 * `npm test`): `build-key.json` beside the bundle holds absolute paths, so it never answers in
 * another folder. So the files a build wrote are kept in the user's private cache folder (the
 * code caches': `common/private-cache-folder.ts`, this user's own, not a link, not writable by
 * group or others; off with `ASSEMBLY_LINE_CODE_CACHE=0`, since the bundle is code the CLI runs)
 * and a later build of the same inputs writes them instead of bundling, as ccache's manifests do
 * (the same scheme as ./declarations-cache.mjs):
 *
 * - **Key** ({@link cliBundleKey}): the SHA-256 of the build's stamp (esbuild's and Node's
 *   versions), the working folder relative to the repository (esbuild's comments name the
 *   modules relative to it), and the path relative to the repository and SHA-256 of every file
 *   the script reads itself (the build scripts, `package.json`, the lock, the installed
 *   TypeScript, the host commands' module).
 * - **Entry** (`cli-bundle-<key>.bin`, sealed: a truncated or altered file is a miss; mode 0600;
 *   read only when the file is this user's and not writable by group or others): every file
 *   esbuild read (the sources, the bundled packages under `node_modules`) with its SHA-256, the
 *   listing of every folder holding one (a file added beside an input can change how an import
 *   resolves: `./build-key.mjs`'s rule), and the files the build wrote, by path relative to the
 *   repository, with their bytes and modes.
 * - **Used** only when each recorded input still has its SHA-256 and each folder its listing, and
 *   only to write files the caller accepts (the bundle's folder and the stubs: checked before
 *   anything is written); each is written atomically and never through a link
 *   (`writeFileConfined`). The same bytes as a build, since every input is the same and no output
 *   depends on the repository's absolute path (a build whose output holds that path, or that read a
 *   file outside the repository, is not kept).
 * - A writer prunes the entries not written for 30 days, and the oldest beyond 128 MB (each is
 *   about 14 MB, mostly the two source maps).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

/** First bytes of an entry; then the SHA-256 of the payload, then the payload. */
const MAGIC = Buffer.from("assembly-line cli bundle 1\n", "utf8");

/** The entries and the temporaries of killed writers, for pruning. */
const ENTRY_FILE = /^cli-bundle-[0-9a-f]{64}\.bin(?:\.\d+-[0-9a-f]{8}\.tmp)?$/;

/** The most bytes the entries keep (each is about 14 MB: about nine builds). */
const MAX_ENTRY_BYTES = 128 * 1024 * 1024;

/** SHA-256 hex of `data`. */
const sha256 = (data) => createHash("sha256").update(data).digest("hex");

/** SHA-256 hex of the file's bytes, or `null` when it is not a readable file. */
function fileHash(file) {
  try {
    return sha256(fs.readFileSync(file));
  } catch {
    return null;
  }
}

/** The sorted entry names of `folder` with their kinds, joined (`./build-key.mjs`'s listing), or `null` when it cannot be read. */
function folderListing(folder) {
  try {
    return fs
      .readdirSync(folder, { withFileTypes: true })
      .map((entry) => `${entry.isDirectory() ? "d" : "f"}:${entry.name}`)
      .sort()
      .join("\0");
  } catch {
    return null;
  }
}

/** `file` relative to `repo` with `/` separators, or absolute when it is outside `repo`. */
function relativeTo(repo, file) {
  const relative = path.relative(repo, file);
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative.split(path.sep).join("/");
}

/**
 * The key of a CLI bundle build of the repository `repo` under `stamp` (a JSON value), run from
 * the working folder `cwd`, whose script reads the files `scriptInputs` (absolute paths): SHA-256
 * hex, or `undefined` when one of those files cannot be read (then nothing is kept or used).
 */
export function cliBundleKey(repo, stamp, cwd, scriptInputs) {
  const inputs = [];
  for (const file of [...new Set(scriptInputs)].sort()) {
    const hash = fileHash(file);
    if (hash === null) return undefined;
    inputs.push([relativeTo(repo, file), hash]);
  }
  return sha256(JSON.stringify({ format: MAGIC.toString("utf8"), stamp, cwd: relativeTo(repo, path.resolve(cwd)), inputs }));
}

/**
 * The per-user CLI bundle builds for the repository `repo` (whose `dist/common/` the build has
 * emitted) under `key` ({@link cliBundleKey}): `restore(accept)` writes the kept files and
 * returns the list of files written (absolute) and the inputs recorded (absolute), when an entry
 * is there, is this user's alone, every input and folder it records is unchanged, and `accept`
 * (absolute path → boolean) takes every file it holds; else `undefined`, writing nothing.
 * `store(inputs, outputs)` keeps a build's (`inputs`: absolute paths of the files esbuild read;
 * `outputs`: absolute paths of the files written); it keeps nothing when an output holds `repo`'s
 * absolute path or an input is outside `repo`. `undefined` when there is no private folder or the helpers cannot be loaded.
 * `folder`: default the code caches'; `distCommon`: where the helpers are, default `repo`'s
 * `dist/common/`. Never throws.
 */
export async function openCliBundleCache(repo, key, folder, distCommon = path.join(repo, "dist", "common")) {
  let helpers;
  try {
    const dist = distCommon;
    helpers = {
      ...(await import(pathToFileURL(path.join(dist, "private-cache-folder.js")).href)),
      ...(await import(pathToFileURL(path.join(dist, "sealed-file.js")).href)),
      ...(await import(pathToFileURL(path.join(dist, "confined-write.js")).href)),
    };
  } catch {
    return undefined;
  }
  const dir = folder === undefined ? helpers.codeCacheFolder() : helpers.codeCacheFolder(folder);
  if (dir === undefined || key === undefined) return undefined;
  const file = path.join(dir, `cli-bundle-${key}.bin`);
  return {
    restore(accept) {
      try {
        const stat = fs.lstatSync(file);
        if (!stat.isFile() || !helpers.isPrivateStat(stat)) return undefined;
        const entry = helpers.readSealedPayload(file, MAGIC);
        if (entry === null || typeof entry !== "object" || !Array.isArray(entry.inputs) || !Array.isArray(entry.folders) || !Array.isArray(entry.outputs)) return undefined;
        for (const [input, hash] of entry.inputs) if (fileHash(path.resolve(repo, input)) !== hash) return undefined;
        for (const [listed, listing] of entry.folders) if (folderListing(path.resolve(repo, listed)) !== listing) return undefined;
        const targets = entry.outputs.map(([output, bytes, mode]) => {
          const target = path.resolve(repo, output);
          if (!(bytes instanceof Uint8Array) || !Number.isInteger(mode) || !target.startsWith(repo + path.sep) || !accept(target)) throw new Error(`not a file of the CLI bundle's build: ${output}`);
          return [target, bytes, mode & 0o755];
        });
        for (const [target, bytes, mode] of targets) {
          const refusal = helpers.writeFileConfined(repo, target, bytes, { createFolders: true, durable: false, mode });
          if (refusal !== undefined) throw new Error(`${target}: ${JSON.stringify(refusal)}`);
          fs.chmodSync(target, mode);
        }
        return { written: targets.map(([target]) => target), inputs: entry.inputs.map(([input]) => path.resolve(repo, input)) };
      } catch {
        return undefined;
      }
    },
    store(inputs, outputs) {
      try {
        const recorded = [...new Set(inputs)].sort().flatMap((input) => {
          const hash = fileHash(input);
          return hash === null ? [] : [[relativeTo(repo, input), hash]];
        });
        // An input outside the repository (a package installed above it) is named by its absolute
        // path, and the bundle's comments and maps by their path from this clone: not for another.
        if (recorded.some(([input]) => path.isAbsolute(input))) return;
        const folders = [...new Set(recorded.map(([input]) => path.dirname(path.resolve(repo, input))))].sort().map((listed) => [relativeTo(repo, listed), folderListing(listed)]);
        const own = Buffer.from(repo, "utf8");
        const written = [];
        for (const output of [...new Set(outputs)].sort()) {
          const bytes = fs.readFileSync(output);
          if (bytes.includes(own)) return; // depends on where the repository is: not for another clone
          written.push([relativeTo(repo, output), bytes, fs.statSync(output).mode & 0o755]);
        }
        helpers.writeSealedFile(dir, file, MAGIC, { inputs: recorded, folders, outputs: written }, { mode: 0o600 });
        helpers.pruneStaleCacheFiles(dir, ENTRY_FILE, MAX_ENTRY_BYTES);
      } catch {
        // Only a shortcut: the next build bundles again.
      }
    },
  };
}
