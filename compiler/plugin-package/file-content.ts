/**
 * How one file's bytes enter a plugin's integrity: the text/binary rule and the line-ending
 * normalisation (issue 3 item 3; documented in `README-hashing.md`).
 */

import { isUtf8 } from "node:buffer";

/** `text` files are hashed with CRLF normalised to LF; `binary` files as raw bytes. */
export type ContentKind = "text" | "binary";

/**
 * Extensions (lower case, with the dot) of files that are data whatever their bytes look like:
 * the seed's "Execution Model" makes `.bin` and `.wasm` imports `Uint8Array` values, the
 * file's exact bytes, so a CR LF inside them is content, never a line end to normalise.
 * Packaging's asset rules use the same list (`packaging/asset-rules.ts`).
 */
export const RAW_BYTES_EXTENSIONS: readonly string[] = [".bin", ".wasm"];

/** A path ending in one of {@link RAW_BYTES_EXTENSIONS}, in any letter case (as esbuild's asset filter matches it). */
const RAW_BYTES_NAME = new RegExp(`(?:${RAW_BYTES_EXTENSIONS.map((ext) => `\\${ext}`).join("|")})$`, "i");

/**
 * The kind of a plugin file named `filePath` (any separators; only its end is looked at) with
 * content `bytes`: `binary` for a `.bin`/`.wasm` name in any letter case (data, see
 * {@link RAW_BYTES_EXTENSIONS}), else {@link classifyContent} of the bytes.
 */
export function contentKindOf(filePath: string, bytes: Uint8Array): ContentKind {
  return RAW_BYTES_NAME.test(filePath) ? "binary" : classifyContent(bytes);
}


/**
 * Classifies file content, deterministically and from the bytes alone (never the file name):
 * content that contains a NUL byte, or that is not valid UTF-8, is `binary`; everything else
 * (including an empty file, and a file starting with a UTF-8 byte order mark) is `text`.
 *
 * Why this rule: every text format a plugin ships (TypeScript, JSON, Markdown, YAML) is UTF-8,
 * and Git itself treats a file with a NUL byte as binary, so Git's `autocrlf` never touches
 * what this rule calls binary. Text in a legacy encoding (Latin-1) counts as binary: it is
 * hashed as raw bytes, so a CRLF checkout of such a file changes the integrity; save it as
 * UTF-8 or mark it `-text` in `.gitattributes`.
 */
export function classifyContent(bytes: Uint8Array): ContentKind {
  // `isUtf8` validates exactly as a fatal `TextDecoder` decodes (WHATWG UTF-8: no overlong form,
  // no surrogate, nothing past U+10FFFF), without building the string (issue 14 item 1).
  return bytes.includes(0) || !isUtf8(bytes) ? "binary" : "text";
}

/**
 * The bytes that are hashed for a file: for `text`, every CR LF pair becomes LF (a lone CR
 * stays, as Git leaves it); for `binary`, the bytes unchanged. Returns the input itself when
 * nothing changes.
 */
export function normalizeContent(bytes: Uint8Array, kind: ContentKind): Uint8Array {
  if (kind === "binary" || bytes.indexOf(0x0d) === -1) return bytes;
  let pairs = 0;
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) pairs++;
  if (pairs === 0) return bytes;
  const out = new Uint8Array(bytes.length - pairs);
  let o = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) continue;
    out[o++] = bytes[i]!;
  }
  return out;
}
