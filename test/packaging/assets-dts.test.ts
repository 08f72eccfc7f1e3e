/**
 * `runtime-min/authoring/assets.d.ts` types every asset import the bundler supports: text
 * formats and images/fonts as `string`, `.bin`/`.wasm` as `Uint8Array` (type-checked with the
 * TypeScript compiler, the way a plugin author's editor would).
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, test } from "vitest";
import { BINARY_EXTENSIONS, DATA_URL_MIME_TYPES, TEXT_EXTENSIONS } from "../../packaging/index.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

const ASSETS_DTS = fileURLToPath(new URL("../../runtime-min/authoring/assets.d.ts", import.meta.url));

function typeErrors(files: Record<string, string>): string[] {
  const dir = tempDir();
  writeFiles(dir, { "package.json": '{ "type": "module" }', ...files });
  const roots = Object.keys(files).filter((f) => f.endsWith(".ts")).map((f) => path.join(dir, f));
  const program = ts.createProgram([...roots, ASSETS_DTS], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return `${where ? `${path.basename(d.file!.fileName)}:${where.line + 1}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
}

test("every asset extension of the bundler is declared with the type the bundle gives", () => {
  const lines: string[] = [];
  const all = [
    ...TEXT_EXTENSIONS.map((ext) => [ext, "string"] as const),
    ...Object.keys(DATA_URL_MIME_TYPES).map((ext) => [ext, "string"] as const),
    ...BINARY_EXTENSIONS.map((ext) => [ext, "Uint8Array"] as const),
  ];
  all.forEach(([ext, type], i) => {
    const other = type === "string" ? "Uint8Array" : "string";
    lines.push(`import asset${i} from "./assets/file${ext}";`);
    lines.push(`export const ok${i}: ${type} = asset${i};`);
    lines.push(`// @ts-expect-error ${ext} is not a ${other}`);
    lines.push(`export const wrong${i}: ${other} = asset${i};`);
  });
  expect(all).toHaveLength(27);
  expect(typeErrors({ "tool.ts": `${lines.join("\n")}\n` })).toEqual([]);
});

test("the seed's import examples type-check; JSON keeps TypeScript's own typing", () => {
  const errors = typeErrors({
    "tool.ts": [
      'import prompt from "./prompt.md";',
      'import query from "./query.sql";',
      'import logoUrl from "./logo.png";',
      'import wasmBytes from "./parser.wasm";',
      'import data from "./data.json" with { type: "json" };',
      "export const out: [string, string, string, Uint8Array, number] = [prompt, query, logoUrl, wasmBytes, data.limit];",
      "",
    ].join("\n"),
    "data.json": '{ "limit": 20 }',
  });
  expect(errors).toEqual([]);
});

test('documented limit: with { type: "text" } on a .js file is typed as that JavaScript module', () => {
  const errors = typeErrors({
    "tool.ts": 'import browserSource from "./browser.js" with { type: "text" };\nexport const s: string = browserSource;\n',
    "browser.js": "export function inject() { return document.title; }\n",
  });
  // TypeScript resolves the real browser.js (untyped, or without a default export): no ambient `declare module` applies.
  expect(errors).toEqual([expect.stringMatching(/^tool\.ts:1: .*browser\.js/)]);
});
