/**
 * The CLI bundle's TypeScript copy (`dist/cli-bundle/typescript.cjs`, ./build-cli-bundle.mjs):
 * the installed `typescript.js` cut down to the parser (./trim-typescript.mjs) and minified by
 * esbuild, about 3 s of CPU. It is kept per user too, keyed by content, so that a fresh clone
 * (`pretest`, the pre-commit test's clone of the repository, a contributor's second checkout)
 * copies it instead of making it again (docs/performance.md, "The test suite's budget").
 *
 * - **Key**: the SHA-256 of everything that decides the bytes: the installed file's SHA-256,
 *   the trim script's text, the names kept (what the compiler's sources read of `ts`), the
 *   version of the TypeScript that parses the file for the trim, esbuild's version and the
 *   options below. Not the file's path: the output does not depend on it (the test makes a
 *   copy from the same file at another path and compares the bytes).
 * - **Where**: the user's private cache folder, the one the code caches use
 *   (`common/private-cache-folder.ts`, `codeCacheFolder`: this user's own, not a link, not
 *   writable by group or others; `ASSEMBLY_LINE_CODE_CACHE=0` turns it off, since the copy is
 *   code the CLI runs), as `typescript-<key>.bin`, sealed (`common/sealed-file.ts`: a
 *   truncated or altered file is a miss), mode 0600, read only when the file is this user's
 *   and not writable by group or others (`isPrivateStat`). A writer prunes the copies not
 *   written for 30 days, and the oldest beyond 64 MB (each is about 0.8 MB).
 *
 * The bytes shipped are the same either way: the per-user file holds the very text esbuild
 * wrote, and `dist/` gets it unchanged.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { trimTypeScript } from "./trim-typescript.mjs";

/** esbuild's options for the copy, but `outfile` (the bytes depend on these, so the key holds them). */
export const TYPESCRIPT_COPY_OPTIONS = Object.freeze({ minify: true, format: "cjs", platform: "node", target: "node20", charset: "ascii", legalComments: "inline", logLevel: "warning" });

/** First bytes of a per-user copy; then the SHA-256 of the payload, then the payload (the copy's text). */
const MAGIC = Buffer.from("assembly-line trimmed typescript 1\n", "utf8");

/** The per-user copies and the temporaries of killed writers, for pruning. */
const USER_COPY_FILE = /^typescript-[0-9a-f]{64}\.bin(?:\.\d+-[0-9a-f]{8}\.tmp)?$/;

/** The most bytes the per-user copies keep (about 80 versions). */
const MAX_USER_COPY_BYTES = 64 * 1024 * 1024;

const scripts = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(scripts, "..", "dist");
const requireHere = createRequire(import.meta.url);

/** The helpers of `dist/common/` this module uses (the build runs it once `dist/`'s JavaScript is there). */
async function distHelpers() {
  const folder = await import(pathToFileURL(path.join(dist, "common", "private-cache-folder.js")).href);
  const sealed = await import(pathToFileURL(path.join(dist, "common", "sealed-file.js")).href);
  return { ...folder, ...sealed };
}

/**
 * The content key of the copy of the installed TypeScript whose bytes are `installed`, keeping
 * `names`, made with esbuild `esbuildVersion`: SHA-256 hex (see the module comment).
 */
export function typescriptCopyKey(installed, names, esbuildVersion) {
  const sha256 = (data) => createHash("sha256").update(data).digest("hex");
  return sha256(
    JSON.stringify({
      format: MAGIC.toString("utf8"),
      installed: sha256(installed),
      trim: sha256(fs.readFileSync(path.join(scripts, "trim-typescript.mjs"))),
      names: [...names],
      parser: requireHere("typescript/package.json").version,
      esbuild: esbuildVersion,
      options: TYPESCRIPT_COPY_OPTIONS,
    }),
  );
}

/**
 * Writes the copy of `installedTypeScript` keeping `names` to `outfile`: from the per-user
 * folder when it holds the copy of this content key, otherwise made (`loadTypeScript()` gives
 * the `ts` that parses for the trim, `build` is esbuild's `build`) and then kept there.
 * `userFolder`: the folder, default the code caches' (`codeCacheFolder()`); `null` for none.
 * Resolves to `"user"` (copied) or `"made"`. Throws what the trim or esbuild throws.
 */
export async function writeTypeScriptCopy({ installedTypeScript, names, outfile, build, esbuildVersion, loadTypeScript, userFolder }) {
  const helpers = await distHelpers();
  const folder = userFolder === null ? undefined : userFolder === undefined ? helpers.codeCacheFolder() : helpers.codeCacheFolder(userFolder);
  const installed = fs.readFileSync(installedTypeScript);
  const file = folder === undefined ? undefined : path.join(folder, `typescript-${typescriptCopyKey(installed, names, esbuildVersion)}.bin`);
  const kept = file === undefined ? undefined : readUserCopy(helpers, file);
  if (kept !== undefined) {
    fs.mkdirSync(path.dirname(outfile), { recursive: true });
    fs.writeFileSync(outfile, kept);
    return "user";
  }
  const ts = await loadTypeScript();
  const trimmed = trimTypeScript(ts, installed.toString("utf8"), names);
  await build({ ...TYPESCRIPT_COPY_OPTIONS, outfile, stdin: { contents: trimmed.text, sourcefile: installedTypeScript, loader: "js", resolveDir: path.dirname(installedTypeScript) } });
  if (file !== undefined) {
    helpers.writeSealedFile(folder, file, MAGIC, fs.readFileSync(outfile, "utf8"), { mode: 0o600 });
    helpers.pruneStaleCacheFiles(folder, USER_COPY_FILE, MAX_USER_COPY_BYTES);
  }
  return "made";
}

/** The text of the per-user copy `file` when it is a regular file of this user's that nobody else can write, and its seal holds. */
function readUserCopy(helpers, file) {
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || !helpers.isPrivateStat(stat)) return undefined;
  } catch {
    return undefined;
  }
  const text = helpers.readSealedPayload(file, MAGIC);
  return typeof text === "string" ? text : undefined;
}
