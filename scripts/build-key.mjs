/**
 * The up-to-date check of a build script (`scripts/build-cli-bundle.mjs`), as `tsc -b` and make
 * have one: a build that succeeded writes a key file naming everything it read and wrote, and
 * the next run skips the build when every one of them is as it was.
 *
 * What the key holds, and why each part:
 * - `stamp`: what the build is made with and does not read as a file (the script's own text and
 *   anything else the caller passes: esbuild's version, Node's version, options).
 * - `inputs`: the SHA-256 of every file the build read (esbuild's metafile inputs, and files the
 *   script read itself). A changed byte in any of them rebuilds.
 * - `folders`: the sorted listing of every folder holding an input. A file added beside an input
 *   can change how an import resolves (`x.ts` beside `x.js`, an `index.ts`) without any input
 *   changing.
 * - `outputs`: the SHA-256 of every file the build wrote. Something else that wrote one since
 *   (`tsc` emitting a worker script back, a hand edit, a deleted file) rebuilds.
 *
 * Content hashes, not modification times: a checkout or `npm ci` sets times, and a few
 * megabytes hash in tens of milliseconds, against the seconds a build takes.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/** The format of the key file; another format is never up to date. */
const KEY_FORMAT = 1;

/** SHA-256 (hex) of the file's bytes, or `null` when it is not a readable file. */
export function fileHash(file) {
  try {
    return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
  } catch {
    return null;
  }
}

/** SHA-256 (hex) of the folder's sorted entry names with their kinds, or `null` when it cannot be read. */
function folderHash(folder) {
  try {
    const entries = fs.readdirSync(folder, { withFileTypes: true }).map((entry) => `${entry.isDirectory() ? "d" : "f"}:${entry.name}`);
    return createHash("sha256").update(entries.sort().join("\0")).digest("hex");
  } catch {
    return null;
  }
}

/**
 * Whether the build that wrote `keyFile` is current: the key file is readable and of this
 * format, its stamp is `stamp`, and every input, input folder and output hashes as recorded.
 * Never throws (anything unreadable is "not current").
 * @param keyFile absolute path of the key file.
 * @param stamp the build's stamp now (a JSON-serialisable value).
 */
export function buildIsCurrent(keyFile, stamp) {
  let key;
  try {
    key = JSON.parse(fs.readFileSync(keyFile, "utf8"));
  } catch {
    return false;
  }
  if (key?.format !== KEY_FORMAT || JSON.stringify(key.stamp) !== JSON.stringify(stamp)) return false;
  const same = (recorded, hash) => recorded !== null && typeof recorded === "object" && Object.keys(recorded).length > 0 && Object.entries(recorded).every(([file, expected]) => hash(file) === expected);
  return same(key.inputs, fileHash) && same(key.folders, folderHash) && same(key.outputs, fileHash);
}

/**
 * Writes the key file of a build that just succeeded (see the module comment). Inputs and
 * outputs are absolute paths; an input that is not a readable file (esbuild's `<stdin>`, a
 * virtual module) is left out. Writes atomically (a temporary file, then rename), so a killed
 * write leaves no key, and the next run builds.
 * @param keyFile absolute path of the key file.
 * @param stamp the build's stamp (see {@link buildIsCurrent}).
 * @param inputs every file the build read.
 * @param outputs every file the build wrote.
 */
export function writeBuildKey(keyFile, stamp, inputs, outputs) {
  const sorted = (files) => [...new Set(files)].sort();
  const hashed = (files) => Object.fromEntries(sorted(files).flatMap((file) => {
    const hash = fileHash(file);
    return hash === null ? [] : [[file, hash]];
  }));
  const inputHashes = hashed(inputs);
  const folders = Object.fromEntries(sorted(Object.keys(inputHashes).map((file) => path.dirname(file))).map((folder) => [folder, folderHash(folder)]));
  const key = { format: KEY_FORMAT, stamp, inputs: inputHashes, folders, outputs: hashed(outputs) };
  const temporary = `${keyFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(key, null, 1)}\n`);
  fs.renameSync(temporary, keyFile);
}

/** Deletes the key file (before a build starts: a build that fails leaves no key). Never throws. */
export function forgetBuildKey(keyFile) {
  fs.rmSync(keyFile, { force: true });
}
