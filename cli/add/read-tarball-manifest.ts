/**
 * The `package.json` (and `plugin.json`) inside an npm package tarball, read without unpacking it
 * to disk, so `add` knows which package a `file:` tarball installs, and under which key, before
 * the package manager runs. The archive
 * is read by `tar` (node-tar, npm's own tar reader: gzip, ustar, GNU and PAX headers).
 */
import * as fs from "node:fs";
import * as tar from "tar";

/** A file at the top of the archive, `<dir>/<name>` (`package/<name>` for `npm pack` output). */
const topLevel = (name: string): RegExp => new RegExp(`^(?:\\./)?[^/]+/${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);

/**
 * Finds the top-level `package.json` (`<dir>/package.json`, `package/package.json` for
 * `npm pack` output) in a `.tgz`/`.tar.gz`/`.tar` file and parses it. Returns `undefined` —
 * never throws — when the file is unreadable, not a tar archive, or holds no parsable
 * top-level package.json.
 */
export function readTarballManifest(tarballPath: string): Record<string, unknown> | undefined {
  return readTarballJson(tarballPath, "package.json");
}

/**
 * The top-level JSON object file `name` (`package.json`, `plugin.json`) of a package tarball,
 * parsed; `undefined` — never throws — when the archive or the file cannot be read or is not a
 * JSON object.
 */
export function readTarballJson(tarballPath: string, name: string): Record<string, unknown> | undefined {
  const wanted = topLevel(name);
  let manifest: Record<string, unknown> | undefined;
  let found = false;
  try {
    tar.list({
      file: tarballPath,
      sync: true,
      strict: true,
      filter: (entryPath) => !found && wanted.test(entryPath),
      onReadEntry: (entry) => {
        if (entry.type !== "File") return;
        found = true;
        const chunks: Buffer[] = [];
        entry.on("data", (chunk: Buffer) => chunks.push(chunk));
        entry.on("end", () => (manifest = parseManifest(Buffer.concat(chunks))));
      },
    });
  } catch {
    return undefined;
  }
  return manifest;
}

function parseManifest(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the file starts as an archive the reader takes: gzip's magic bytes (`1f 8b`, what
 * `npm pack` writes) or a plain tar's `ustar` mark at byte 257. `false` for anything else, or
 * when the file cannot be read, so `add` can say "not a gzip tarball" rather than "holds no
 * package.json" of a file that is no archive at all (helper-73's report, defect 12).
 */
export function looksLikeTarball(tarballPath: string): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync(tarballPath, "r");
    const head = Buffer.alloc(262);
    const read = fs.readSync(fd, head, 0, head.length, 0);
    if (read >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
    return read >= 262 && head.toString("latin1", 257, 262) === "ustar";
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
