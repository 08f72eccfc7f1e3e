/**
 * The seed's promise for binary imports ("Execution Model": ".bin and .wasm become Uint8Array
 * values, as does any file imported with with { type: \"bytes\" }") is the file's exact bytes:
 * no line-ending rewrite, even when the content looks like UTF-8 text. Images and fonts become
 * data URLs of their exact bytes too. Only imports that become strings read CRLF as LF.
 * Checked on a real bundle run in a separate Node process.
 */
import * as path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { bundleTools, type PackagingResult } from "../../packaging/index.js";
import { tempDir, writeFiles, writeTree } from "../helpers/temp-tree.js";
import { runInNode, tool, writeBundles } from "./helpers.js";

const BUNDLE = "bundles/root/assets/ai.assemblyline/exact.mjs";

/** Text-looking content with CRLF line ends (valid UTF-8, no NUL): what the old rule rewrote. */
const CRLF_FILES = {
  "data.bin": "A\r\nB",
  "UPPER.BIN": "x\r\ny\r\n",
  "parser.wasm": "asm\r\nmodule\r\n",
  "notes.txt": "line one\r\nline two\r\n",
  "icon.svg": '<svg xmlns="http://www.w3.org/2000/svg">\r\n</svg>\r\n',
  "font.woff": "wOFF\r\n",
} as const;

const DEFINITION = `import { defineTool } from "@assemblyline-agents/core";
import bin from "./assets/data.bin";
import upperBin from "./assets/UPPER.BIN";
import wasm from "./assets/parser.wasm";
import notesBytes from "./assets/notes.txt" with { type: "bytes" };
import notesText from "./assets/notes.txt";
import notesAsText from "./assets/notes.txt" with { type: "text" };
import binAsText from "./assets/data.bin" with { type: "text" };
import svgUrl from "./assets/icon.svg";
import fontUrl from "./assets/font.woff";

export const assets = { bin, upperBin, wasm, notesBytes, notesText, notesAsText, binAsText, svgUrl, fontUrl };

export default defineTool({
  description: "Report the exact bytes.",
  inputSchema: { type: "object" },
  async execute() {
    return {};
  }
});
`;

let packaged: PackagingResult<Uint8Array>;
let values: Record<string, { type: string; value: unknown }>;

beforeAll(async () => {
  const root = writeTree({
    "plugins/assets/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "assets" }),
    "plugins/assets/ai.assemblyline/exact.ts": DEFINITION,
    ...Object.fromEntries(Object.entries(CRLF_FILES).map(([name, text]) => [`plugins/assets/ai.assemblyline/assets/${name}`, text])),
  });
  packaged = await bundleTools({ root, tools: [tool(root, "assets", "exact", "ai.assemblyline/exact.ts")] });
  const dir = writeBundles(tempDir(), packaged.bundles);
  values = runInNode(
    path.join(dir, BUNDLE),
    `const out = {};
     for (const [name, value] of Object.entries(mod.assets)) {
       out[name] = value instanceof Uint8Array ? { type: "Uint8Array", value: [...value] } : { type: typeof value, value };
     }
     console.log(JSON.stringify(out));`,
  ) as typeof values;
});

const bytesOf = (text: string) => ({ type: "Uint8Array", value: [...Buffer.from(text, "utf8")] });
const dataUrl = (mime: string, text: string) => ({ type: "string", value: `data:${mime};base64,${Buffer.from(text, "utf8").toString("base64")}` });

test("the fixture bundles without diagnostics", () => {
  expect(packaged.diagnostics).toEqual([]);
  expect([...packaged.bundles.keys()]).toEqual([BUNDLE]);
});

describe("Uint8Array imports keep every byte, CR LF included", () => {
  test(".bin holding A CR LF B is [65, 13, 10, 66]", () => {
    expect(values["bin"]).toEqual({ type: "Uint8Array", value: [65, 13, 10, 66] });
  });
  test(".BIN in upper case", () => {
    expect(values["upperBin"]).toEqual(bytesOf(CRLF_FILES["UPPER.BIN"]));
  });
  test(".wasm", () => {
    expect(values["wasm"]).toEqual(bytesOf(CRLF_FILES["parser.wasm"]));
  });
  test('a text file imported with { type: "bytes" }', () => {
    expect(values["notesBytes"]).toEqual(bytesOf(CRLF_FILES["notes.txt"]));
  });
});

test("images and fonts become data URLs of their exact bytes", () => {
  expect(values["svgUrl"]).toEqual(dataUrl("image/svg+xml", CRLF_FILES["icon.svg"]));
  expect(values["fontUrl"]).toEqual(dataUrl("font/woff", CRLF_FILES["font.woff"]));
});

test("imports that become strings still read CRLF as LF (the same file, as text)", () => {
  expect(values["notesText"]).toEqual({ type: "string", value: "line one\nline two\n" });
  expect(values["notesAsText"]).toEqual({ type: "string", value: "line one\nline two\n" });
  expect(values["binAsText"]).toEqual({ type: "string", value: "A\nB" });
});

test("the bytes import and the text import of one file are two values in the bundle", async () => {
  // Same file, both ways, in a second definition: neither import leaks into the other.
  const root = writeTree({
    "plugins/assets/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "assets" }),
    "plugins/assets/ai.assemblyline/assets/notes.txt": CRLF_FILES["notes.txt"],
  });
  writeFiles(root, {
    "plugins/assets/ai.assemblyline/both.ts": [
      'import { defineTool } from "@assemblyline-agents/core";',
      'import asText from "./assets/notes.txt";',
      'import asBytes from "./assets/notes.txt" with { type: "bytes" };',
      "export const result = { text: asText, bytes: [...asBytes] };",
      'export default defineTool({ description: "d", inputSchema: { type: "object" }, execute: () => result });',
      "",
    ].join("\n"),
  });
  const result = await bundleTools({ root, tools: [tool(root, "assets", "both", "ai.assemblyline/both.ts")] });
  expect(result.diagnostics).toEqual([]);
  const [file] = [...result.bundles.keys()];
  const dir = writeBundles(tempDir(), result.bundles);
  expect(runInNode(path.join(dir, file!), "console.log(JSON.stringify(mod.result));")).toEqual({
    text: "line one\nline two\n",
    bytes: [...Buffer.from(CRLF_FILES["notes.txt"], "utf8")],
  });
});
