/**
 * The seed's asset rules ("Execution Model"), checked on the running bundle: the kinds fixture
 * imports every asset kind, and a child `node` process (the Node that runs here, 20) imports
 * the bundle and reports each value's runtime type and content.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { bundleTools, type PackagingResult } from "../../packaging/index.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";
import { copyFixture, runInNode, tool, writeBundles } from "./helpers.js";

const ASSETS = "plugins/assets/ai.assemblyline/assets";
const KINDS_BUNDLE = "bundles/root/assets/ai.assemblyline/kinds.mjs";

let root: string;
let packaged: PackagingResult<Uint8Array>;
let values: Record<string, { type: string; value: unknown }>;
let brand: unknown;

beforeAll(async () => {
  root = copyFixture("assets-agent");
  packaged = await bundleTools({ root, tools: [tool(root, "assets", "kinds", "ai.assemblyline/kinds.ts")] });
  const dir = writeBundles(tempDir(), packaged.bundles);
  const report = runInNode(
    path.join(dir, KINDS_BUNDLE),
    `const out = {};
     for (const [name, value] of Object.entries(mod.assets)) {
       out[name] = value instanceof Uint8Array
         ? { type: "Uint8Array", value: [...value] }
         : { type: typeof value, value };
     }
     const brand = mod.default[Symbol.for("assemblyline.toolDefinition")] === true;
     console.log(JSON.stringify({ out, brand }));`,
  ) as { out: typeof values; brand: unknown };
  values = report.out;
  brand = report.brand;
});
const fixtureBytes = (name: string): number[] => [...fs.readFileSync(path.join(root, ASSETS, name))];
const fixtureText = (name: string): string => fs.readFileSync(path.join(root, ASSETS, name), "utf8");
const dataUrl = (mime: string, name: string): string => `data:${mime};base64,${fs.readFileSync(path.join(root, ASSETS, name)).toString("base64")}`;

test("the fixture bundles without diagnostics", () => {
  expect(packaged.diagnostics).toEqual([]);
  expect([...packaged.bundles.keys()]).toEqual([KINDS_BUNDLE]);
});

describe("text formats become strings", () => {
  test.each([
    ["prompt", "prompt.md"],
    ["query", "query.sql"],
    ["styles", "styles.css"],
    ["table", "table.csv"],
    ["schema", "schema.graphql"],
    ["page", "page.html"],
    ["system", "system.prompt"],
    ["notes", "notes.txt"],
    ["feed", "feed.xml"],
    ["yaml", "config.yaml"],
    ["yml", "config.yml"],
    ["upperText", "SHOUT.TXT"],
  ])("%s (%s)", (name, file) => {
    expect(values[name]).toEqual({ type: "string", value: fixtureText(file) });
  });

  test('any file imported with { type: "text" } is a string (browser.js)', () => {
    expect(values["browserSource"]).toEqual({ type: "string", value: fixtureText("browser.js") });
  });
});

describe("images and fonts become data URLs", () => {
  test.each([
    ["logoUrl", "logo.png", "image/png"],
    ["jpgUrl", "photo.jpg", "image/jpeg"],
    ["jpegUrl", "photo.jpeg", "image/jpeg"],
    ["gifUrl", "anim.gif", "image/gif"],
    ["webpUrl", "pic.webp", "image/webp"],
    ["svgUrl", "icon.svg", "image/svg+xml"],
    ["icoUrl", "favicon.ico", "image/x-icon"],
    ["avifUrl", "pic.avif", "image/avif"],
    ["bmpUrl", "pic.bmp", "image/bmp"],
    ["upperPngUrl", "UPPER.PNG", "image/png"],
    ["woffUrl", "font.woff", "font/woff"],
    ["woff2Url", "font.woff2", "font/woff2"],
    ["ttfUrl", "font.ttf", "font/ttf"],
    ["otfUrl", "font.otf", "font/otf"],
    ["eotUrl", "font.eot", "application/vnd.ms-fontobject"],
  ])("%s (%s)", (name, file, mime) => {
    expect(values[name]).toEqual({ type: "string", value: dataUrl(mime, file) });
  });
});

describe("binary assets become Uint8Array with the exact bytes", () => {
  test.each([
    ["wasmBytes", "parser.wasm"],
    ["binBytes", "blob.bin"],
    ["rawBytes", "raw.dat"],
    ["textAsBytes", "notes.txt"],
  ])("%s (%s)", (name, file) => {
    expect(values[name]).toEqual({ type: "Uint8Array", value: fixtureBytes(file) });
  });
});

test("JSON keeps its parsed module behaviour", () => {
  expect(values["data"]).toEqual({ type: "object", value: JSON.parse(fixtureText("data.json")) });
});

test("the authoring API is bundled in and works (defineTool brands the default export)", () => {
  expect(brand).toBe(true);
});

test("a neighbouring file that is not imported is not packaged", () => {
  const secret = fixtureText("secret.txt").trim();
  for (const bytes of packaged.bundles.values()) expect(Buffer.from(bytes).includes(secret)).toBe(false);
});

test("bundles are self-contained: only Node built-ins are imported", () => {
  const text = Buffer.from(packaged.bundles.get(KINDS_BUNDLE)!).toString("utf8");
  expect(text).not.toMatch(/from\s*"@assemblyline-agents\/core"|import\(\s*"@assemblyline-agents\/core"/);
  expect(text).toContain("// assemblyline-core:@assemblyline-agents/core\n");
  const specifiers = [...text.matchAll(/^\s*import\s[^;]*?from\s*"([^"]+)"/gm)].map((m) => m[1]);
  expect(specifiers).toEqual(["node:module"]);
  expect(text).not.toMatch(/\bimport\(/);
});

describe("packages from node_modules are bundled in", () => {
  test("an ESM package and a CommonJS package that requires Node built-ins run from the bundle", async () => {
    const agent = copyFixture("assets-agent");
    writeFiles(agent, {
      "plugins/assets/node_modules/cjs-dep/package.json": JSON.stringify({ name: "cjs-dep", version: "1.0.0", main: "index.js" }),
      "plugins/assets/node_modules/cjs-dep/index.js":
        'const path = require("node:path");\nconst crypto = require("crypto");\nexports.join = (a, b) => path.posix.join(a, b);\nexports.hash = (s) => crypto.createHash("sha1").update(s).digest("hex").slice(0, 8);\n',
      "node_modules/esm-dep/package.json": JSON.stringify({ name: "esm-dep", version: "1.0.0", type: "module", exports: "./index.js" }),
      "node_modules/esm-dep/index.js": 'export const shout = (s) => s.toUpperCase() + "!";\n',
      "plugins/assets/ai.assemblyline/uses-packages.ts": [
        'import { defineTool } from "@assemblyline-agents/core";',
        'import { join, hash } from "cjs-dep";',
        'import { shout } from "esm-dep";',
        "export const result = { joined: join(\"a\", \"b\"), hashed: hash(\"x\"), shouted: shout(\"hi\") };",
        'export default defineTool({ description: "d", inputSchema: { type: "object" }, execute: () => result });',
        "",
      ].join("\n"),
    });
    const result = await bundleTools({ root: agent, tools: [tool(agent, "assets", "pkg", "ai.assemblyline/uses-packages.ts")] });
    expect(result.diagnostics).toEqual([]);
    expect(result.bundles.size).toBe(1);
    const [file, bytes] = [...result.bundles][0]!;
    const text = Buffer.from(bytes).toString("utf8");
    expect(text).toContain("// plugins/assets/node_modules/cjs-dep/index.js");
    expect(text).toContain("// node_modules/esm-dep/index.js");
    const dir = writeBundles(tempDir(), result.bundles);
    expect(runInNode(path.join(dir, file), "console.log(JSON.stringify(mod.result));")).toEqual({
      joined: "a/b",
      hashed: "11f6ad8e",
      shouted: "HI!",
    });
  });
});

test("Node built-ins stay external, with or without the node: prefix", async () => {
  const agent = copyFixture("assets-agent");
  writeFiles(agent, {
    "plugins/assets/ai.assemblyline/builtins.ts": [
      'import { defineTool } from "@assemblyline-agents/core";',
      'import { readFileSync } from "node:fs";',
      'import * as path from "path";',
      "export const result = { sep: path.posix.sep, read: typeof readFileSync };",
      'export default defineTool({ description: "d", inputSchema: { type: "object" }, execute: () => result });',
      "",
    ].join("\n"),
  });
  const result = await bundleTools({ root: agent, tools: [tool(agent, "assets", "builtins", "ai.assemblyline/builtins.ts")] });
  expect(result.diagnostics).toEqual([]);
  const [file, bytes] = [...result.bundles][0]!;
  const specifiers = [...Buffer.from(bytes).toString("utf8").matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((m) => m[1]);
  expect(specifiers.sort()).toEqual(["node:fs", "node:module", "path"]);
  const dir = writeBundles(tempDir(), result.bundles);
  expect(runInNode(path.join(dir, file), "console.log(JSON.stringify(mod.result));")).toEqual({ sep: "/", read: "function" });
});

test("a lazily imported authoring API is bundled under its specifier and works", async () => {
  const agent = copyFixture("assets-agent");
  const result = await bundleTools({ root: agent, tools: [tool(agent, "assets", "lazy", "ai.assemblyline/lazy-core.ts")] });
  expect(result.diagnostics).toEqual([]);
  const [file, bytes] = [...result.bundles][0]!;
  const text = Buffer.from(bytes).toString("utf8");
  expect(text).toContain('"assemblyline-core:@assemblyline-agents/core"() {');
  expect(text).not.toContain("runtime-min/authoring");
  const dir = writeBundles(tempDir(), result.bundles);
  const report = runInNode(
    path.join(dir, file),
    'const t = await mod.createLazyTool(); console.log(JSON.stringify({ branded: t[Symbol.for("assemblyline.toolDefinition")] === true, out: await t.execute({}) }));',
  );
  expect(report).toEqual({ branded: true, out: { lazy: true } });
});
