/**
 * The build scripts' up-to-date check (scripts/build-key.mjs, used by scripts/build-cli-bundle.mjs):
 * a build is skipped only while every input, every folder holding one, every output and the
 * stamp are as the last successful build recorded them.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

interface BuildKeyModule {
  buildIsCurrent(keyFile: string, stamp: unknown): boolean;
  writeBuildKey(keyFile: string, stamp: unknown, inputs: readonly string[], outputs: readonly string[]): void;
  forgetBuildKey(keyFile: string): void;
}
// scripts/ is plain ESM JavaScript without declarations; the test names the types it uses.
const { buildIsCurrent, writeBuildKey, forgetBuildKey } = (await import(pathToFileURL(path.resolve(import.meta.dirname, "..", "..", "scripts", "build-key.mjs")).href)) as BuildKeyModule;

let dir: string;
let keyFile: string;
let input: string;
let output: string;
const stamp = { esbuild: "0.0.0", node: "v20" };

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-build-key-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.mkdirSync(path.join(dir, "out"));
  input = path.join(dir, "src", "a.ts");
  output = path.join(dir, "out", "bundle.cjs");
  fs.writeFileSync(input, "export const a = 1;\n");
  fs.writeFileSync(output, "exports.a = 1;\n");
  keyFile = path.join(dir, "out", "build-key.json");
  writeBuildKey(keyFile, stamp, [input, path.join(dir, "<stdin>")], [output]);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("build key", () => {
  it("is current right after the build, whatever the files' times (content, not time)", () => {
    expect(buildIsCurrent(keyFile, stamp)).toBe(true);
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(input, later, later);
    expect(buildIsCurrent(keyFile, stamp)).toBe(true);
  });

  it("is not current when an input changed, even by one byte at the same length", () => {
    fs.writeFileSync(input, "export const a = 2;\n");
    expect(buildIsCurrent(keyFile, stamp)).toBe(false);
  });

  it("is not current when a file appeared beside an input (it may change how an import resolves)", () => {
    fs.writeFileSync(path.join(dir, "src", "index.ts"), "");
    expect(buildIsCurrent(keyFile, stamp)).toBe(false);
  });

  it("is not current when an output was changed or removed since (tsc wrote a worker script back)", () => {
    fs.writeFileSync(output, "exports.a = 'tsc';\n");
    expect(buildIsCurrent(keyFile, stamp)).toBe(false);
    fs.rmSync(output);
    expect(buildIsCurrent(keyFile, stamp)).toBe(false);
  });

  it("is not current under another stamp (esbuild, Node, the script), nor with a key file missing, forgotten or damaged", () => {
    expect(buildIsCurrent(keyFile, { ...stamp, esbuild: "0.0.1" })).toBe(false);
    fs.writeFileSync(keyFile, fs.readFileSync(keyFile, "utf8").slice(0, 40));
    expect(buildIsCurrent(keyFile, stamp)).toBe(false);
    forgetBuildKey(keyFile);
    expect(fs.existsSync(keyFile)).toBe(false);
    expect(buildIsCurrent(keyFile, stamp)).toBe(false);
  });

  it("leaves out an input that is no file (esbuild's <stdin>) and records no temporary", () => {
    const key = JSON.parse(fs.readFileSync(keyFile, "utf8")) as { inputs: Record<string, string> };
    expect(Object.keys(key.inputs)).toEqual([input]);
    expect(fs.readdirSync(path.dirname(keyFile)).sort()).toEqual(["build-key.json", "bundle.cjs"]);
  });
});
