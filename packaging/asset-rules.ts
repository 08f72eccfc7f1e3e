/**
 * The seed's asset rules ("Execution Model": a tool may import a neighbouring asset; the bundler
 * includes what is imported and nothing else), as data the esbuild plugin applies:
 *
 * | import                                                      | value in the bundle         |
 * |-------------------------------------------------------------|-----------------------------|
 * | `.css .csv .graphql .html .md .prompt .sql .txt .xml .yaml .yml` | `string`              |
 * | any file `with { type: "text" }`                            | `string`                    |
 * | images `.png .jpg .jpeg .gif .webp .svg .ico .avif .bmp`    | `data:` URL `string`        |
 * | fonts `.woff .woff2 .ttf .otf .eot`                         | `data:` URL `string`        |
 * | `.bin .wasm`, any file `with { type: "bytes" }`             | `Uint8Array`                |
 * | `.json` (and `with { type: "json" }`)                       | the parsed JSON value       |
 *
 * Extensions match case-insensitively (`Logo.PNG` is an image).
 *
 * Which bytes an import sees ({@link assetBytes}):
 * - an import that becomes a **string** (text formats, `with { type: "text" }`) reads the file
 *   with the lockfile's text rule (`compiler/plugin-package/file-content.ts`: UTF-8 content without a NUL byte
 *   has CRLF read as LF), so a CRLF checkout gives the same string, the same bundle bytes and
 *   the same plugin integrity as an LF one;
 * - a **`Uint8Array`** (`.bin`, `.wasm`, `with { type: "bytes" }`) and a **data URL** (images,
 *   fonts) carry the file's exact bytes, never rewritten, even when they look like text: the
 *   seed promises the file's bytes, and a CR LF in data is content. A text-looking file imported
 *   this way (an `.svg`, a `.txt` read as bytes) is therefore exactly what the checkout holds;
 *   keep it out of Git's line-ending conversion (`.gitattributes`: `*.svg -text`) when bundles
 *   must be identical across Windows and Unix checkouts.
 */
import * as path from "node:path";
import type { Loader } from "esbuild";
import { classifyContent, normalizeContent, RAW_BYTES_EXTENSIONS } from "../compiler/plugin-package/file-content.js";

/** How an asset file becomes a value: a string, a `data:` URL string, or a `Uint8Array`. */
export type AssetKind = "text" | "dataurl" | "binary";

/** Extensions (lower case, with the dot) whose files import as strings (seed: "Common text formats … and YAML"). */
export const TEXT_EXTENSIONS: readonly string[] = [
  ".css", ".csv", ".graphql", ".html", ".md", ".prompt", ".sql", ".txt", ".xml", ".yaml", ".yml",
];

/**
 * Images and fonts (seed: "Images and fonts become data URLs"), with the MIME type written into
 * the URL. The table is explicit (not sniffed from the bytes) so the URL of a file never
 * depends on its content's first bytes.
 */
export const DATA_URL_MIME_TYPES: Readonly<Record<string, string>> = {
  ".avif": "image/avif",
  ".bmp": "image/bmp",
  ".eot": "application/vnd.ms-fontobject",
  ".gif": "image/gif",
  ".ico": "image/x-icon",
  ".jpeg": "image/jpeg",
  ".jpg": "image/jpeg",
  ".otf": "font/otf",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ttf": "font/ttf",
  ".webp": "image/webp",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
};

/**
 * Extensions whose files import as `Uint8Array` (seed: ".bin and .wasm become Uint8Array
 * values"); the lockfile's list, so the plugin hash takes these files' raw bytes too.
 */
export const BINARY_EXTENSIONS: readonly string[] = RAW_BYTES_EXTENSIONS;

const KIND_BY_EXTENSION: ReadonlyMap<string, AssetKind> = new Map<string, AssetKind>([
  ...TEXT_EXTENSIONS.map((ext) => [ext, "text"] as const),
  ...Object.keys(DATA_URL_MIME_TYPES).map((ext) => [ext, "dataurl"] as const),
  ...BINARY_EXTENSIONS.map((ext) => [ext, "binary"] as const),
]);

/** The asset kind of a file by its extension (case-insensitive); `undefined` for code, JSON and unknown files. */
export function assetKindOf(filePath: string): AssetKind | undefined {
  return KIND_BY_EXTENSION.get(path.extname(filePath).toLowerCase());
}

/**
 * esbuild `onLoad` filter matching every asset extension in any letter case. esbuild's own
 * `loader` table is case-sensitive, so the plugin, not the table, applies the rules.
 */
export const ASSET_FILE_FILTER = new RegExp(
  `\\.(?:${[...KIND_BY_EXTENSION.keys()].map((ext) => ext.slice(1)).join("|")})$`,
  "i",
);

/**
 * esbuild's `loader` option for the lower-case extensions: the same rules, as a safety net for
 * any path the plugin does not see, and so `.css` never falls back to esbuild's CSS loader.
 * JSON keeps esbuild's `json` loader (seed: "JSON keeps its normal parsed module behavior").
 */
export function esbuildLoaders(): Record<string, Loader> {
  const loaders: Record<string, Loader> = { ".json": "json" };
  for (const [ext, kind] of KIND_BY_EXTENSION) loaders[ext] = kind === "binary" ? "binary" : kind === "text" ? "text" : "dataurl";
  return loaders;
}

/**
 * How an import turns file bytes into its value: `string` for text formats and
 * `with { type: "text" }`, `dataurl` for images and fonts, `bytes` for `Uint8Array` imports.
 */
export type ImportForm = "string" | "dataurl" | "bytes";

/**
 * The bytes an import of `bytes` contributes (see the module header): for a `string` import,
 * CRLF read as LF when the content is text by the lockfile's rule (valid UTF-8, no NUL byte);
 * for a `bytes` or `dataurl` import, the input unchanged. Returns the input when unchanged.
 */
export function assetBytes(bytes: Uint8Array, form: ImportForm): Uint8Array {
  return form === "string" ? normalizeContent(bytes, classifyContent(bytes)) : bytes;
}

/** A base64 `data:` URL of `bytes` with the given MIME type (always base64, for one predictable form). */
export function toDataUrl(bytes: Uint8Array, mimeType: string): string {
  return `data:${mimeType};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
}

/** MIME type of an image or font file by extension (case-insensitive); `undefined` for other files. */
export function dataUrlMimeTypeOf(filePath: string): string | undefined {
  const ext = path.extname(filePath).toLowerCase();
  return Object.hasOwn(DATA_URL_MIME_TYPES, ext) ? DATA_URL_MIME_TYPES[ext] : undefined;
}
