/**
 * Where a text file stops being UTF-8: the first byte that does not start or continue a
 * well-formed UTF-8 sequence (the WHATWG decoder's rule, which `TextDecoder` applies), and its
 * place as an editor shows the file. A diagnostic about an encoding (AL1003) points there rather
 * than at line 1, so the user finds the one stray Latin-1 byte in a long file.
 */
import { createLineMap, locationOf, type SourceLocation } from "./positions.js";

/**
 * The offset of the first byte of `bytes` that is not part of a well-formed UTF-8 sequence
 * (a stray continuation byte, a lead byte whose sequence is cut short, an overlong form, a
 * surrogate or a code point past U+10FFFF), or `undefined` when all of them are.
 * The ranges are the Unicode standard's table 3-7 ("Well-Formed UTF-8 Byte Sequences").
 */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number | undefined {
  const inRange = (at: number, low: number, high: number): boolean => at < bytes.length && bytes[at]! >= low && bytes[at]! <= high;
  let at = 0;
  while (at < bytes.length) {
    const lead = bytes[at]!;
    if (lead < 0x80) {
      at++;
      continue;
    }
    // The allowed range of the second byte depends on the lead; every later byte is 80..BF.
    const [length, low, high] =
      lead >= 0xc2 && lead <= 0xdf ? [2, 0x80, 0xbf]
      : lead === 0xe0 ? [3, 0xa0, 0xbf]
      : lead === 0xed ? [3, 0x80, 0x9f]
      : lead >= 0xe1 && lead <= 0xef ? [3, 0x80, 0xbf]
      : lead === 0xf0 ? [4, 0x90, 0xbf]
      : lead >= 0xf1 && lead <= 0xf3 ? [4, 0x80, 0xbf]
      : lead === 0xf4 ? [4, 0x80, 0x8f]
      : [0, 0, 0];
    if (length === 0 || !inRange(at + 1, low, high)) return at;
    for (let next = at + 2; next < at + length; next++) if (!inRange(next, 0x80, 0xbf)) return at;
    at += length;
  }
  return undefined;
}

/**
 * The location in `file` of the first invalid UTF-8 byte: `text` is the file decoded with
 * invalid sequences replaced by U+FFFD and a byte order mark kept (`CompilerHost.read`), `bytes`
 * the bytes it was decoded from when the host has them. Line and column follow
 * `./positions.ts` (the span is the one replacement character the editor shows there). Without
 * bytes, the first U+FFFD of the text stands for it. `undefined` when nothing is invalid.
 */
export function invalidUtf8Location(file: string, text: string, bytes: Uint8Array | undefined): SourceLocation | undefined {
  let offset: number;
  if (bytes !== undefined) {
    const at = firstInvalidUtf8Byte(bytes);
    if (at === undefined) return undefined;
    // The bytes before it are valid, so they decode to exactly the text before its U+FFFD.
    offset = Buffer.from(bytes.buffer, bytes.byteOffset, at).toString("utf8").length;
  } else {
    offset = text.indexOf("\uFFFD");
    if (offset < 0) return undefined;
  }
  return locationOf(createLineMap(file, text), offset, offset + 1);
}
