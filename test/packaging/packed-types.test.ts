/**
 * Issue 13 item 3: the types of the published package work after an install from its
 * tarball. `npm pack` packs the built package exactly as it would be published; the tarball is
 * unpacked into `node_modules/@assemblyline-agents/assembly-line` of a fresh project (what
 * `npm install <tarball>` puts there for the package itself: its dependencies are not needed to
 * type-check the authoring API, which imports nothing, and unpacking needs no network or npm
 * cache), and TypeScript 6's `tsc` checks a plugin that imports `.md`, `.sql`, `.png`, `.wasm`
 * and `with { type: "text" }` assets. Before the fix, the packed
 * `dist/runtime-min/authoring/index.d.ts` referenced `../../../runtime-min/authoring/assets.d.ts`,
 * which the package does not ship: TS6053, then TS2307 for every asset import.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot, tempDir, writeFiles } from "../helpers/temp-tree.js";

const PACKAGE = "@assemblyline-agents/assembly-line";
const tscVersion = JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", "typescript", "package.json"), "utf8")).version as string;

let project = "";
let installed = "";

beforeAll(() => {
  const packDir = tempDir("al-pack-");
  // --ignore-scripts: `prepare` would rebuild; the suite's `pretest` has just built dist/.
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packDir], { cwd: repoRoot, encoding: "utf8" });
  expect(pack.status, pack.stderr).toBe(0);
  const { filename } = (JSON.parse(pack.stdout) as { filename: string }[])[0]!;
  project = tempDir("al-installed-");
  installed = path.join(project, "node_modules", ...PACKAGE.split("/"));
  fs.mkdirSync(installed, { recursive: true });
  const untar = spawnSync("tar", ["-xzf", path.join(packDir, path.basename(filename)), "--strip-components=1", "-C", installed], { encoding: "utf8" });
  expect(untar.status, untar.stderr).toBe(0);
  // The project's own TypeScript (the repository's, so the test needs no network).
  fs.symlinkSync(path.join(repoRoot, "node_modules", "typescript"), path.join(project, "node_modules", "typescript"), "dir");
}, 120_000);

/** Every `/// <reference path>` of every shipped declaration file, with whether its target is shipped. */
function references(dir: string): { file: string; target: string; shipped: boolean }[] {
  const found: { file: string; target: string; shipped: boolean }[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    for (const match of fs.readFileSync(file, "utf8").matchAll(/^\/\/\/\s*<reference\s+path="([^"]+)"/gm)) {
      const target = path.resolve(path.dirname(file), match[1]!);
      const relative = path.relative(dir, target);
      found.push({ file: path.relative(dir, file), target: match[1]!, shipped: !relative.startsWith("..") && fs.existsSync(target) });
    }
  }
  return found;
}

describe("the packed package's types install", () => {
  it("uses TypeScript 6", () => expect(tscVersion).toMatch(/^6\./));

  it("does not ship the incremental build's key (dist/.build-key.json, scripts/build-dist.mjs)", () => {
    expect(fs.existsSync(path.join(repoRoot, "dist", ".build-key.json"))).toBe(true);
    expect(fs.existsSync(path.join(installed, "dist", "bin", "assembly-line.cjs"))).toBe(true);
    expect(fs.existsSync(path.join(installed, "dist", ".build-key.json"))).toBe(false);
  });

  it("ships every declaration file its declarations reference", () => {
    const all = references(installed);
    expect(all).toContainEqual({ file: "dist/runtime-min/authoring/index.d.ts", target: "./assets.d.ts", shipped: true });
    expect(all.filter((r) => !r.shipped)).toEqual([]);
  });

  it("tsc type-checks a plugin with .md, .sql, .png, .wasm and with { type: \"text\" } imports", () => {
    writeFiles(project, {
      "package.json": JSON.stringify({ name: "my-agent", version: "1.0.0", type: "module", private: true }),
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
          // As the README says: the authoring API is imported as @assemblyline-agents/core.
          paths: { "@assemblyline-agents/core": [`./node_modules/${PACKAGE}/dist/runtime-min/authoring/index.d.ts`] },
        },
        include: ["plugins/**/*.ts"],
      }),
      "plugins/docs/ai.assemblyline/prompt.md": "# Prompt\n",
      "plugins/docs/ai.assemblyline/query.sql": "select 1;\n",
      "plugins/docs/ai.assemblyline/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
      "plugins/docs/ai.assemblyline/parser.wasm": new Uint8Array([0x00, 0x61, 0x73, 0x6d]),
      "plugins/docs/ai.assemblyline/notes.txt": "notes\n",
      "plugins/docs/ai.assemblyline/browser.js": "export default function run() {}\n",
      // The seed: "Packages that type-check asset imports should provide the corresponding
      // ambient or adjacent TypeScript declarations" — the adjacent one for a .js read as text.
      "plugins/docs/ai.assemblyline/browser.d.ts": "declare const source: string;\nexport default source;\n",
      "plugins/docs/ai.assemblyline/tool.ts": [
        'import { defineTool } from "@assemblyline-agents/core";',
        'import { approvalRequired } from "@assemblyline-agents/assembly-line/core";',
        'import prompt from "./prompt.md";',
        'import query from "./query.sql";',
        'import logoUrl from "./logo.png";',
        'import wasmBytes from "./parser.wasm";',
        'import notes from "./notes.txt" with { type: "text" };',
        'import browserSource from "./browser.js" with { type: "text" };',
        "",
        "const texts: string[] = [prompt, query, logoUrl, notes, browserSource];",
        "const bytes: Uint8Array = wasmBytes;",
        "",
        "export default defineTool({",
        '  description: "Uses every kind of asset.",',
        '  inputSchema: { type: "object", properties: {} },',
        '  needsApproval: approvalRequired("Reads assets."),',
        "  async execute() {",
        "    return { texts: texts.length, bytes: bytes.length };",
        "  },",
        "});",
        "",
      ].join("\n"),
    });
    const run = spawnSync(process.execPath, [path.join(project, "node_modules", "typescript", "bin", "tsc"), "-p", project], { cwd: project, encoding: "utf8" });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
