/**
 * The `package.json` inside an npm package tarball, read without unpacking it to disk, so `add`
 * knows which package a `file:` tarball installs before the package manager runs. The archive
 * is read by `tar` (node-tar, npm's own tar reader: gzip, ustar, GNU and PAX headers).
 */
import * as tar from "tar";

/** `<dir>/package.json` at the top of the archive (`package/package.json` for `npm pack` output). */
const TOP_LEVEL_MANIFEST = /^(?:\.\/)?[^/]+\/package\.json$/;

/**
 * Finds the top-level `package.json` (`<dir>/package.json`, `package/package.json` for
 * `npm pack` output) in a `.tgz`/`.tar.gz`/`.tar` file and parses it. Returns `undefined` —
 * never throws — when the file is unreadable, not a tar archive, or holds no parsable
 * top-level package.json.
 */
export function readTarballManifest(tarballPath: string): Record<string, unknown> | undefined {
  let manifest: Record<string, unknown> | undefined;
  let found = false;
  try {
    tar.list({
      file: tarballPath,
      sync: true,
      strict: true,
      filter: (entryPath) => !found && TOP_LEVEL_MANIFEST.test(entryPath),
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
