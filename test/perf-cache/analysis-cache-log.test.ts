/**
 * `analysis.bin` as a sealed log (issue 14 item 4, sixth round: `common/sealed-file.ts`,
 * `compiler/static-analysis/analysis-cache.ts`): a compile that changed a few records appends
 * them (and the keys it dropped) as one segment to the file it read, instead of writing the
 * whole state again. What a reader gets is always the state the last save held; a torn or
 * damaged file reads as a miss; the file is written whole again when the appended segments
 * outgrow half of the full state, number MAX_SEGMENTS, or the file is not the one read.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { readSealedLog } from "../../common/sealed-file.js";
import { ANALYSIS_CACHE_FILE, ANALYSIS_CACHE_MAGIC, AnalysisCache, MAX_SEGMENTS, readAnalysisCacheState } from "../../compiler/static-analysis/analysis-cache.js";
import type { DefinitionAnalysis } from "../../compiler/model.js";
import { tempDir } from "../helpers/temp-tree.js";

const pluginRoot = "/agent/plugins/p";
const fileOf = (name: string): string => `${pluginRoot}/ai.assemblyline/${name}.ts`;
/** A definition analysis whose description is `text` (padded to `size` characters). */
const analysis = (name: string, text: string, size = 0): DefinitionAnalysis =>
  ({ file: fileOf(name), definedTools: [{ description: { value: text.padEnd(size, ".") } }], dependencies: [fileOf(name)], diagnostics: [] }) as unknown as DefinitionAnalysis;
const fingerprint = (name: string, state: string) => [[`read:${fileOf(name)}`, state]] as const;

/** Loads the cache of `root`, keeps every record of `records` (name → text) as a compile would, and saves. */
function compileWith(root: string, records: Readonly<Record<string, string>>, size = 0): boolean {
  const cache = AnalysisCache.load(root);
  for (const [name, text] of Object.entries(records)) {
    const found = cache.find("definition", fileOf(name), pluginRoot);
    const same = found && descriptionOf(found.result) === text.padEnd(size, ".");
    // An unchanged record is handed back as found (kept as the bytes it was read as).
    if (same) cache.keep("definition", fileOf(name), pluginRoot, found.fingerprint, found.result);
    else cache.keep("definition", fileOf(name), pluginRoot, fingerprint(name, text), analysis(name, text, size));
  }
  return cache.save();
}

/** The descriptions the cache of `root` holds, by name (what a compile reading it finds). */
function stateOf(root: string, names: readonly string[]): Record<string, string | undefined> {
  const cache = AnalysisCache.load(root);
  return Object.fromEntries(names.map((name) => [name, descriptionOf(cache.find("definition", fileOf(name), pluginRoot)?.result)]));
}

/** The description {@link analysis} put in a stored result. */
function descriptionOf(result: unknown): string | undefined {
  return (result as { definedTools: { description: { value: string } }[] } | undefined)?.definedTools[0]?.description.value;
}

const fileIn = (root: string): string => path.join(root, ANALYSIS_CACHE_FILE);
const segmentsOf = (root: string): number => readSealedLog(fileIn(root), ANALYSIS_CACHE_MAGIC)?.segments.length ?? 0;

describe("analysis.bin as a sealed log", () => {
  it("appends what a compile changed to the file it read, and reads back the state of the last save", () => {
    const root = tempDir("al-analysis-log-");
    const others = { e: "E", f: "F", g: "G", h: "H", i: "I", j: "J" };
    expect(compileWith(root, { a: "A1", b: "B1", c: "C1", ...others }, 2000)).toBe(true);
    expect(segmentsOf(root)).toBe(1);
    const inode = fs.statSync(fileIn(root)).ino;
    const full = fs.statSync(fileIn(root)).size;

    // One record changed: one segment appended to the same file, far smaller than the state.
    expect(compileWith(root, { a: "A1", b: "B2", c: "C1", ...others }, 2000)).toBe(true);
    expect(segmentsOf(root)).toBe(2);
    expect(fs.statSync(fileIn(root)).ino).toBe(inode);
    expect(fs.statSync(fileIn(root)).size - full).toBeLessThan(full / 2);
    expect(stateOf(root, ["a", "b", "c"])).toEqual({ a: "A1".padEnd(2000, "."), b: "B2".padEnd(2000, "."), c: "C1".padEnd(2000, ".") });

    // A record no longer used is dropped by the next segment; one added is there.
    expect(compileWith(root, { a: "A1", b: "B2", d: "D1", ...others }, 2000)).toBe(true);
    expect(segmentsOf(root)).toBe(3);
    expect(stateOf(root, ["a", "b", "c", "d"])).toEqual({ a: "A1".padEnd(2000, "."), b: "B2".padEnd(2000, "."), c: undefined, d: "D1".padEnd(2000, ".") });
    expect(AnalysisCache.load(root).size.analyses).toBe(9);
    expect(readAnalysisCacheState(fileIn(root))?.records.map(([key]) => key.split("\0")[1]).sort()).toEqual(["a", "b", "d", ...Object.keys(others)].map(fileOf).sort());

    // Nothing changed: nothing written.
    const before = fs.readFileSync(fileIn(root));
    expect(compileWith(root, { a: "A1", b: "B2", d: "D1", ...others }, 2000)).toBe(false);
    expect(fs.readFileSync(fileIn(root)).equals(before)).toBe(true);
  });

  it("writes the whole state again once the appended segments outgrow half of it", () => {
    const root = tempDir("al-analysis-log-");
    compileWith(root, { a: "A0", b: "B0", c: "C0", d: "D0", e: "E0" }, 3000);
    const inode = fs.statSync(fileIn(root)).ino;
    compileWith(root, { a: "A1", b: "B0", c: "C0", d: "D0", e: "E0" }, 3000); // a fifth of the state
    expect([segmentsOf(root), fs.statSync(fileIn(root)).ino]).toEqual([2, inode]);
    compileWith(root, { a: "A2", b: "B0", c: "C0", d: "D0", e: "E0" }, 3000); // two fifths
    expect(segmentsOf(root)).toBe(3);
    compileWith(root, { a: "A3", b: "B0", c: "C0", d: "D0", e: "E0" }, 3000); // more than half: written whole
    expect(segmentsOf(root)).toBe(1);
    expect(stateOf(root, ["a", "b"])).toEqual({ a: "A3".padEnd(3000, "."), b: "B0".padEnd(3000, ".") });
  });

  it(`writes the whole state again after ${MAX_SEGMENTS} segments`, () => {
    const root = tempDir("al-analysis-log-");
    const big = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`big${i}`, `B${i}`]));
    compileWith(root, { ...big, small: "s0" }, 4000);
    let most = 0;
    for (let i = 1; i <= MAX_SEGMENTS + 1; i++) {
      compileWith(root, { ...big, small: `s${i}` }, 4000);
      most = Math.max(most, segmentsOf(root));
    }
    expect(most).toBe(MAX_SEGMENTS);
    expect(segmentsOf(root)).toBeLessThan(MAX_SEGMENTS);
    expect(stateOf(root, ["small"])).toEqual({ small: `s${MAX_SEGMENTS + 1}`.padEnd(4000, ".") });
  });

  it("reads a torn or damaged append as a miss, and then writes the whole state", () => {
    const root = tempDir("al-analysis-log-");
    compileWith(root, { a: "A1", b: "B1" }, 1000);
    compileWith(root, { a: "A2", b: "B1" }, 1000);
    const whole = fs.readFileSync(fileIn(root));
    const damaged: [string, Buffer][] = [
      ["a torn append", whole.subarray(0, whole.length - 7)],
      ["a segment header without its body", whole.subarray(0, whole.length - (whole.length - readSealedLog(fileIn(root), ANALYSIS_CACHE_MAGIC)!.ends[0]!) + 10)],
      ["a flipped byte in the appended segment", Buffer.from(whole.map((byte, i) => (i === whole.length - 3 ? byte ^ 1 : byte)))],
      ["bytes after the last segment", Buffer.concat([whole, Buffer.from([1, 2, 3])])],
    ];
    for (const [what, bytes] of damaged) {
      fs.writeFileSync(fileIn(root), bytes);
      expect(AnalysisCache.load(root).size.analyses, what).toBe(0);
      expect(stateOf(root, ["a"]), what).toEqual({ a: undefined });
      expect(compileWith(root, { a: "A3", b: "B1" }, 1000), what).toBe(true);
      expect(segmentsOf(root), what).toBe(1);
      expect(stateOf(root, ["a", "b"]), what).toEqual({ a: "A3".padEnd(1000, "."), b: "B1".padEnd(1000, ".") });
      compileWith(root, { a: "A2", b: "B1" }, 1000);
    }
  });

  it("writes the whole state when the file is no longer the one read (another compile saved meanwhile)", () => {
    const root = tempDir("al-analysis-log-");
    compileWith(root, { a: "A1", b: "B1" }, 1000);
    const first = AnalysisCache.load(root);
    first.keep("definition", fileOf("a"), pluginRoot, fingerprint("a", "A9"), analysis("a", "A9", 1000));
    first.retainKeys(pluginRoot, []);
    // Another compile appends first: this one's append would apply to a state it did not read.
    compileWith(root, { a: "A1", b: "B2" }, 1000);
    expect(segmentsOf(root)).toBe(2);
    expect(first.save()).toBe(true);
    expect(segmentsOf(root)).toBe(1);
    expect(stateOf(root, ["a", "b"])).toEqual({ a: "A9".padEnd(1000, "."), b: "B1".padEnd(1000, ".") });
  });

  it("never appends through a link: a linked cache file is refused, as a whole write is", () => {
    const root = tempDir("al-analysis-log-");
    compileWith(root, { a: "A1" }, 100);
    const outside = path.join(tempDir("al-analysis-log-outside-"), "analysis.bin");
    fs.renameSync(fileIn(root), outside);
    fs.symlinkSync(outside, fileIn(root));
    const before = fs.readFileSync(outside);
    const cache = AnalysisCache.load(root);
    cache.keep("definition", fileOf("a"), pluginRoot, fingerprint("a", "A2"), analysis("a", "A2", 100));
    expect(cache.save()).toBe(false);
    expect(cache.refusal?.kind).toBe("link");
    expect(fs.readFileSync(outside).equals(before)).toBe(true);
  });
});
