/**
 * The `package.json` inside an npm package tarball, read without unpacking it to disk, so `add`
 * knows which package a `file:` tarball installs before the package manager runs.
 */
import * as fs from "node:fs";
import { gunzipSync } from "node:zlib";

const BLOCK = 512;

/**
 * Finds the top-level `package.json` (`<dir>/package.json`, `package/package.json` for
 * `npm pack` output) in a `.tgz`/`.tar.gz`/`.tar` file and parses it.
 *
 * Reads ustar/GNU headers (name, ustar prefix, size, type) and PAX `path` records; skips every
 * other entry. Returns `undefined` — never throws — when the file is unreadable, not a tar
 * archive, or holds no parsable top-level package.json.
 */
export function readTarballManifest(tarballPath: string): Record<string, unknown> | undefined {
  let archive: Buffer;
  try {
    const raw = fs.readFileSync(tarballPath);
    archive = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw;
  } catch {
    return undefined;
  }
  let paxPath: string | undefined;
  for (let offset = 0; offset + BLOCK <= archive.length; ) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return undefined;
    const size = parseInt(readString(header, 124, 12).trim() || "0", 8);
    if (!Number.isFinite(size) || size < 0) return undefined;
    const type = String.fromCharCode(header[156] ?? 0);
    const body = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x") {
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"))?.[1];
      continue;
    }
    const prefix = readString(header, 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${readString(header, 0, 100)}` : readString(header, 0, 100));
    paxPath = undefined;
    if ((type === "0" || type === "\0") && /^[^/]+\/package\.json$/.test(name.replace(/^\.\//, ""))) return parseManifest(body);
  }
  return undefined;
}

function readString(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString("utf8");
}

function parseManifest(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
