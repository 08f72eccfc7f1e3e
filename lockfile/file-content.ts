/**
 * How one file's bytes enter a plugin's integrity: the text/binary rule and the line-ending
 * normalisation (issue 3 item 3; documented in `README-hashing.md`).
 */

/** `text` files are hashed with CRLF normalised to LF; `binary` files as raw bytes. */
export type ContentKind = "text" | "binary";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

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
  if (bytes.includes(0)) return "binary";
  try {
    strictUtf8.decode(bytes);
    return "text";
  } catch {
    return "binary";
  }
}

/**
 * The bytes that are hashed for a file: for `text`, every CR LF pair becomes LF (a lone CR
 * stays, as Git leaves it); for `binary`, the bytes unchanged. Returns the input itself when
 * nothing changes.
 */
export function normalizeContent(bytes: Uint8Array, kind: ContentKind): Uint8Array {
  if (kind === "binary") return bytes;
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
