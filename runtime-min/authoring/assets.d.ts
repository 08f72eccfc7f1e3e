/**
 * Ambient declarations for the asset imports a tool definition may use (seed "Execution Model":
 * "Packages that type-check asset imports should provide the corresponding ambient or adjacent
 * TypeScript declarations"). They mirror `packaging/asset-rules.ts`:
 *
 * - text formats (`.css .csv .graphql .html .md .prompt .sql .txt .xml .yaml .yml`) → `string`;
 * - images (`.png .jpg .jpeg .gif .webp .svg .ico .avif .bmp`) and fonts
 *   (`.woff .woff2 .ttf .otf .eot`) → a `data:` URL `string`;
 * - `.bin` and `.wasm` → `Uint8Array`;
 * - JSON needs no declaration here: TypeScript types `.json` imports itself (`resolveJsonModule`).
 *
 * Use them by listing this file in the plugin's `tsconfig.json` (`"files"` or `"include"`), or
 * with a triple-slash reference from any file of the plugin:
 *
 * @example
 * /// <reference path="<path to>/runtime-min/authoring/assets.d.ts" />
 * import prompt from "./prompt.md";            // string
 * import logoUrl from "./logo.png";            // string, "data:image/png;base64,…"
 * import wasmBytes from "./parser.wasm";       // Uint8Array
 *
 * Limits of ambient declarations: an import attribute does not change the type TypeScript
 * gives a module. `import browserSource from "./browser.js" with { type: "text" }` is typed as
 * the JavaScript module `browser.js` (TypeScript resolves the real file, so no `declare module`
 * applies: it is untyped, or has no default export), although the bundle gives a string — declare the value yourself
 * (`const source = browserSource as unknown as string`) or import a text extension instead.
 * Likewise `with { type: "bytes" }` is typed by the file's extension (a `.png` stays a `string`
 * here although the bundle gives a `Uint8Array`), and a file with an extension declared nowhere
 * has no type at all.
 */

// ── Text formats: the file's text (CRLF read as LF) ──

/** The file's text. */
declare module "*.css" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.csv" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.graphql" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.html" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.md" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.prompt" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.sql" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.txt" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.xml" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.yaml" {
  const text: string;
  export default text;
}
/** The file's text. */
declare module "*.yml" {
  const text: string;
  export default text;
}

// ── Images: a base64 data URL, e.g. "data:image/png;base64,iVBORw0…" ──

/** A `data:image/png;base64,…` URL of the file. */
declare module "*.png" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:image/jpeg;base64,…` URL of the file. */
declare module "*.jpg" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:image/jpeg;base64,…` URL of the file. */
declare module "*.jpeg" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:image/gif;base64,…` URL of the file. */
declare module "*.gif" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:image/webp;base64,…` URL of the file. */
declare module "*.webp" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:image/svg+xml;base64,…` URL of the file. */
declare module "*.svg" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:image/x-icon;base64,…` URL of the file. */
declare module "*.ico" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:image/avif;base64,…` URL of the file. */
declare module "*.avif" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:image/bmp;base64,…` URL of the file. */
declare module "*.bmp" {
  const dataUrl: string;
  export default dataUrl;
}

// ── Fonts: a base64 data URL ──

/** A `data:font/woff;base64,…` URL of the file. */
declare module "*.woff" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:font/woff2;base64,…` URL of the file. */
declare module "*.woff2" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:font/ttf;base64,…` URL of the file. */
declare module "*.ttf" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:font/otf;base64,…` URL of the file. */
declare module "*.otf" {
  const dataUrl: string;
  export default dataUrl;
}
/** A `data:application/vnd.ms-fontobject;base64,…` URL of the file. */
declare module "*.eot" {
  const dataUrl: string;
  export default dataUrl;
}

// ── Binary: the file's exact bytes ──

/** The file's bytes. */
declare module "*.bin" {
  const bytes: Uint8Array;
  export default bytes;
}
/** The file's bytes (e.g. for `WebAssembly.instantiate`). */
declare module "*.wasm" {
  const bytes: Uint8Array;
  export default bytes;
}
