/**
 * The CLI bundle's TypeScript (scripts/build-cli-bundle.mjs; docs/performance.md "Ninth round"):
 * `dist/cli-bundle/typescript.cjs` is ts-morph's TypeScript minified by esbuild, and it must be
 * the same parser: the same version and, for every TypeScript and JavaScript file of the
 * repository's examples and toolchain sources, the same syntax tree (kinds, positions, flags,
 * names and literal texts) and the same syntax errors. The bundle and the copy are all ASCII, so
 * the code cache reads them as Latin-1; the copy keeps TypeScript's licence at its head; the
 * copy is used only while the installed file keeps the size it was made from
 * (`minifiedCopyOf`); it keeps only the messages the parser names, and broken sources get the
 * same syntax errors from it. Runs against `dist/` (built by `pretest`).
 */
import { isAscii } from "node:buffer";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type * as TsMorph from "ts-morph";
import { describe, expect, it } from "vitest";
import { minifiedCopyOf, typescriptModulePath } from "../../compiler/static-analysis/typescript.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

type Ts = typeof TsMorph.ts;

const bundleDir = path.join(repoRoot, "dist", "cli-bundle");
const copyFile = path.join(bundleDir, "typescript.cjs");
const require_ = createRequire(import.meta.url);

/** Every `.ts`, `.mts`, `.js` and `.mjs` file under `dir` (no `node_modules`, no `dist`). */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    return entry.isFile() && /\.(m?ts|m?js)$/.test(entry.name) && !/[\\/](node_modules|dist)[\\/]/.test(file) ? [file] : [];
  });
}

/** A flat dump of what the analysis reads from a parse: every node's kind, span and flags, names and literal texts, and the syntax errors. */
function dump(ts: Ts, file: string, text: string): string {
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith("ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const out: (string | number)[] = [];
  const visit = (node: TsMorph.ts.Node): void => {
    out.push(node.kind, node.pos, node.end, node.flags);
    if (ts.isIdentifier(node) || ts.isStringLiteralLike(node) || ts.isNumericLiteral(node)) out.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  const errors = (sourceFile as unknown as { parseDiagnostics: readonly TsMorph.ts.Diagnostic[] }).parseDiagnostics;
  for (const error of errors) out.push(error.code, error.start ?? -1, ts.flattenDiagnosticMessageText(error.messageText, "\n"));
  return out.join("\u0000");
}

describe("the CLI bundle's TypeScript", () => {
  it("is the installed TypeScript's version and parses every example and toolchain source to the same tree", () => {
    const installed = require_(typescriptModulePath()) as Ts;
    const copy = require_(copyFile) as Ts;
    expect(copy).not.toBe(installed);
    expect(copy.version).toBe(installed.version);
    const files = ["examples", "compiler", "runtime-min", "bench", "scripts"].flatMap((dir) => sources(path.join(repoRoot, dir)));
    expect(files.length).toBeGreaterThan(100);
    // A file with syntax errors compares its errors too.
    const broken = "export default { tools: [ { name: 'x', inputSchema: { type: 'object' } ] ;\nconst = 1;";
    expect(dump(copy, "broken.ts", broken)).toBe(dump(installed, "broken.ts", broken));
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      expect(dump(copy, file, text), file).toBe(dump(installed, file, text));
    }
  });

  it("keeps only the messages the parser names, and gives the same syntax errors on broken sources (fourteenth round)", () => {
    const installed = require_(typescriptModulePath()) as Ts & { Diagnostics: Record<string, unknown> };
    const copy = require_(copyFile) as Ts & { Diagnostics: Record<string, unknown> };
    const all = Object.keys(installed.Diagnostics).length;
    const kept = Object.keys(copy.Diagnostics).length;
    expect(kept).toBeGreaterThan(100);
    expect(kept).toBeLessThan(all / 2);
    // Three seeded random edits (insert a token, or delete a few characters) to each of a few toolchain sources, 10 times each.
    let seed = 7;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    const tokens = ["{", "}", "(", ")", "<", "`", "'", "@", "=>", ";", ",", "#", "\\", "/*", "0x", "1e", "?.", "<div>", "${"];
    const files = sources(path.join(repoRoot, "compiler", "static-analysis")).slice(0, 4);
    const codes = new Set<number>();
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      for (let round = 0; round < 10; round++) {
        let broken = text;
        for (let edit = 0; edit < 3; edit++) {
          const at = random(broken.length);
          broken = random(2) === 0 ? broken.slice(0, at) + tokens[random(tokens.length)]! + broken.slice(at) : broken.slice(0, at) + broken.slice(at + 1 + random(5));
        }
        for (const name of ["broken.ts", "broken.js"]) {
          expect(dump(copy, name, broken), `${file} #${round}`).toBe(dump(installed, name, broken));
          const parsed = installed.createSourceFile(name, broken, installed.ScriptTarget.Latest) as unknown as { parseDiagnostics: readonly TsMorph.ts.Diagnostic[] };
          for (const error of parsed.parseDiagnostics) codes.add(error.code);
        }
      }
    }
    // The edits reach many of the parser's messages, not one.
    expect(codes.size).toBeGreaterThan(10);
  });

  it("keeps only the parser: every name the compiler's sources read of `ts`, each export defined (scripts/trim-typescript.mjs)", async () => {
    const installed = require_(typescriptModulePath()) as Record<string, unknown>;
    const copy = require_(copyFile) as Record<string, unknown>;
    const { typescriptNamesUsed } = (await import(pathToFileURL(path.join(repoRoot, "scripts", "trim-typescript.mjs")).href)) as { typescriptNamesUsed: (texts: readonly string[]) => string[] };
    const compilerSources = sources(path.join(repoRoot, "compiler")).filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"));
    const names = typescriptNamesUsed(compilerSources.map((file) => fs.readFileSync(file, "utf8")));
    const values = names.filter((name) => installed[name] !== undefined);
    // The parser's API the analysis calls, among them.
    expect(values).toEqual(expect.arrayContaining(["createSourceFile", "forEachChild", "SyntaxKind", "isIdentifier", "createScanner", "flattenDiagnosticMessageText"]));
    for (const name of values) expect(typeof copy[name], name).toBe(typeof installed[name]);
    // Every export the copy keeps is defined (a getter of a removed binding would throw).
    for (const name of Object.keys(copy)) expect(() => copy[name], name).not.toThrow();
    // What the trim is for: the checker, the program and the language service are gone.
    for (const name of ["createTypeChecker", "createProgram", "createLanguageService", "server"]) expect(copy[name], name).toBeUndefined();
  });

  it("keeps TypeScript's licence at its head, and the bundle and the copy are all ASCII (read as Latin-1 by the code cache)", () => {
    const copy = fs.readFileSync(copyFile);
    expect(copy.subarray(0, 200).toString("latin1")).toMatch(/^\/\*! \*+\s+Copyright \(c\) Microsoft Corporation\. All rights reserved\.\s+Licensed under the Apache License, Version 2\.0/);
    expect(isAscii(copy)).toBe(true);
    expect(isAscii(fs.readFileSync(path.join(bundleDir, "assembly-line.cjs")))).toBe(true);
  });

  it("is used only while the installed file keeps the size it was made from, and only when it exists (minifiedCopyOf)", () => {
    const dir = tempDir("al-bundled-typescript-");
    const installed = path.join(dir, "typescript.js");
    const copy = path.join(dir, "typescript.cjs");
    fs.writeFileSync(installed, "x".repeat(100));
    fs.writeFileSync(copy, "y");
    expect(minifiedCopyOf(installed, copy, 100)).toBe(copy);
    expect(minifiedCopyOf(installed, copy, 101)).toBeUndefined();
    expect(minifiedCopyOf(path.join(dir, "missing.js"), copy, 100)).toBeUndefined();
    fs.rmSync(copy);
    expect(minifiedCopyOf(installed, copy, 100)).toBeUndefined();
    fs.mkdirSync(copy);
    expect(minifiedCopyOf(installed, copy, 100)).toBeUndefined();
  });

  it("outside the bundle, the analysis loads the installed file", () => {
    expect(typescriptModulePath()).toBe(createRequire(createRequire(require_.resolve("ts-morph")).resolve("@ts-morph/common")).resolve("./typescript.js"));
  });
});
