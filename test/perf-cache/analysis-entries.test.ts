/**
 * The entries' analyses in a file of their own (issue 14 item 4, sixteenth round:
 * `compiler/static-analysis/analysis-entries.ts`): `analysis.bin` names each entry's record by
 * where it is in `analysis-entries.bin` and its SHA-256, and a compile reads a record only when
 * it asks for it. Bytes that are not the ones recorded (damaged, torn, another compile's file)
 * and a missing file read as a miss, never as another analysis; the next save repairs them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ANALYSIS_CACHE_FILE, AnalysisCache } from "../../compiler/static-analysis/analysis-cache.js";
import { ANALYSIS_ENTRIES_FILE, ANALYSIS_ENTRIES_MAGIC, EntriesFile } from "../../compiler/static-analysis/analysis-entries.js";
import type { DefinitionAnalysis, EntryAnalysis } from "../../compiler/model.js";
import { tempDir } from "../helpers/temp-tree.js";

const pluginRoot = "/agent/plugins/p";
const fileOf = (name: string): string => `${pluginRoot}/${name}/index.ts`;
const SIZE = 4000;
/** An entry's analysis whose one diagnostic's message is `text` (padded to {@link SIZE} characters). */
const entryAnalysis = (name: string, text: string): EntryAnalysis =>
  ({ file: fileOf(name), entry: undefined, wrapped: false, dependencies: [fileOf(name)], diagnostics: [{ message: text.padEnd(SIZE, ".") }] }) as unknown as EntryAnalysis;
const fingerprint = (name: string, state: string) => [[`read:${fileOf(name)}`, state]] as const;

/** Loads the cache of `root`, keeps every entry of `records` (name → text) and one definition as a compile would, and saves. */
function compileWith(root: string, records: Readonly<Record<string, string>>): boolean {
  const cache = AnalysisCache.load(root);
  for (const [name, text] of Object.entries(records)) {
    const found = cache.find("entry", fileOf(name), pluginRoot);
    if (found && messageOf(found.result) === text.padEnd(SIZE, ".")) cache.keep("entry", fileOf(name), pluginRoot, found.fingerprint, found.result);
    else cache.keep("entry", fileOf(name), pluginRoot, fingerprint(name, text), entryAnalysis(name, text));
  }
  const definition = cache.find("definition", fileOf("def"), pluginRoot);
  if (definition) cache.keep("definition", fileOf("def"), pluginRoot, definition.fingerprint, definition.result);
  else cache.keep("definition", fileOf("def"), pluginRoot, fingerprint("def", "D"), { file: fileOf("def"), definedTools: [], dependencies: [], diagnostics: [] } as unknown as DefinitionAnalysis);
  return cache.save();
}

/** What a compile reading the cache of `root` finds of each entry (its message), and whether it finds the definition. */
function stateOf(root: string, names: readonly string[]): Record<string, string | undefined> {
  const cache = AnalysisCache.load(root);
  const found: Record<string, string | undefined> = Object.fromEntries(names.map((name) => [name, messageOf(cache.find("entry", fileOf(name), pluginRoot)?.result)?.slice(0, 2)]));
  found["def"] = cache.find("definition", fileOf("def"), pluginRoot) ? "D" : undefined;
  return found;
}

function messageOf(result: unknown): string | undefined {
  return (result as { diagnostics: { message: string }[] } | undefined)?.diagnostics[0]?.message;
}

const mainIn = (root: string): string => path.join(root, ANALYSIS_CACHE_FILE);
const entriesIn = (root: string): string => path.join(root, ANALYSIS_ENTRIES_FILE);

/** Changes one byte of the entries file inside the record of the entry `name` (found by its text). */
function damageRecordOf(root: string, text: string): void {
  const bytes = fs.readFileSync(entriesIn(root));
  const at = bytes.indexOf(Buffer.from(text, "utf8"));
  expect(at).toBeGreaterThan(ANALYSIS_ENTRIES_MAGIC.length);
  bytes.writeUInt8(bytes.readUInt8(at + 1) ^ 0x01, at + 1);
  fs.writeFileSync(entriesIn(root), bytes);
}

describe("the entries' analyses in analysis-entries.bin", () => {
  it("keeps entries' records out of analysis.bin, reads them back, and appends a changed one", () => {
    const root = tempDir("al-analysis-entries-");
    expect(compileWith(root, { a: "A1", b: "B1", c: "C1" })).toBe(true);
    const entries = fs.readFileSync(entriesIn(root));
    expect(entries.subarray(0, ANALYSIS_ENTRIES_MAGIC.length).equals(ANALYSIS_ENTRIES_MAGIC)).toBe(true);
    // The three records (4,000 characters each) are in the entries file, not in analysis.bin.
    expect(entries.length).toBeGreaterThan(3 * SIZE);
    expect(fs.statSync(mainIn(root)).size).toBeLessThan(SIZE);
    expect(stateOf(root, ["a", "b", "c"])).toEqual({ a: "A1", b: "B1", c: "C1", def: "D" });

    // One entry changed: its record is appended to the same entries file.
    const inode = fs.statSync(entriesIn(root)).ino;
    expect(compileWith(root, { a: "A1", b: "B2", c: "C1" })).toBe(true);
    expect(fs.statSync(entriesIn(root)).ino).toBe(inode);
    expect(fs.statSync(entriesIn(root)).size).toBeGreaterThan(entries.length);
    expect(fs.readFileSync(entriesIn(root)).subarray(0, entries.length).equals(entries)).toBe(true);
    expect(stateOf(root, ["a", "b", "c"])).toEqual({ a: "A1", b: "B2", c: "C1", def: "D" });
  });

  it("reads a damaged record as a miss (never another analysis), and the next save repairs it", () => {
    const root = tempDir("al-analysis-entries-");
    compileWith(root, { a: "A1", b: "B1", c: "C1" });
    damageRecordOf(root, "B1...");
    expect(stateOf(root, ["a", "b", "c"])).toEqual({ a: "A1", b: undefined, c: "C1", def: "D" });
    // The compile that missed analyses b again and keeps it; the next one finds it.
    expect(compileWith(root, { a: "A1", b: "B1", c: "C1" })).toBe(true);
    expect(stateOf(root, ["a", "b", "c"])).toEqual({ a: "A1", b: "B1", c: "C1", def: "D" });
  });

  it("reads a torn append and another compile's entries file as misses", () => {
    const root = tempDir("al-analysis-entries-");
    compileWith(root, { a: "A1", b: "B1" });
    compileWith(root, { a: "A1", b: "B2" });
    // Torn: the appended record cut short.
    const whole = fs.readFileSync(entriesIn(root));
    fs.writeFileSync(entriesIn(root), whole.subarray(0, whole.length - 10));
    expect(stateOf(root, ["a", "b"])).toEqual({ a: "A1", b: undefined, def: "D" });
    // Another compile's file of the same length, other content at the same places.
    fs.writeFileSync(entriesIn(root), Buffer.from(whole.toString("latin1").replace("A1...", "A9..."), "latin1"));
    expect(stateOf(root, ["a", "b"])).toEqual({ a: undefined, b: "B2", def: "D" });
  });

  it("reads every entry as a miss when the entries file is missing, and keeps what the next compile analysed", () => {
    const root = tempDir("al-analysis-entries-");
    compileWith(root, { a: "A1", b: "B1" });
    fs.rmSync(entriesIn(root));
    expect(stateOf(root, ["a", "b"])).toEqual({ a: undefined, b: undefined, def: "D" });
    expect(compileWith(root, { a: "A1", b: "B1" })).toBe(true);
    expect(stateOf(root, ["a", "b"])).toEqual({ a: "A1", b: "B1", def: "D" });
  });

  it("never appends through a link out of the root: the entries stay in analysis.bin instead", () => {
    const root = tempDir("al-analysis-entries-");
    compileWith(root, { a: "A1", b: "B1" });
    const outside = path.join(tempDir("al-analysis-outside-"), "entries.bin");
    fs.copyFileSync(entriesIn(root), outside);
    const before = fs.readFileSync(outside);
    fs.rmSync(entriesIn(root));
    fs.symlinkSync(outside, entriesIn(root));
    // Read through no link (a miss), and the changed records are not written through it.
    expect(stateOf(root, ["a", "b"])).toEqual({ a: undefined, b: undefined, def: "D" });
    compileWith(root, { a: "A1", b: "B2" });
    expect(fs.readFileSync(outside).equals(before)).toBe(true);
    expect(fs.lstatSync(entriesIn(root)).isSymbolicLink()).toBe(true);
    expect(stateOf(root, ["a", "b"])).toEqual({ a: "A1", b: "B2", def: "D" });
    // The append itself (a compile whose other entries still read) refuses the link.
    const appended = new EntriesFile(root).append([Buffer.from("more")]);
    expect(appended.refs).toBeUndefined();
    expect(appended.refusal).toBeDefined();
    expect(fs.readFileSync(outside).equals(before)).toBe(true);
  });

  it("rewrites the entries file whole, with only the records in use, when analysis.bin is written whole", () => {
    const root = tempDir("al-analysis-entries-");
    compileWith(root, { a: "A1", b: "B1" });
    // Each change appends 4 KB; after a few, the state is written whole and the entries file compacted.
    const inode = fs.statSync(entriesIn(root)).ino;
    let rewritten = false;
    for (let round = 2; round < 8 && !rewritten; round++) {
      compileWith(root, { a: "A1", b: `B${round}` });
      rewritten = fs.statSync(entriesIn(root)).ino !== inode;
    }
    expect(rewritten).toBe(true);
    const entries = fs.readFileSync(entriesIn(root)).toString("latin1");
    expect(entries).toContain("A1...");
    expect(entries.match(/B\d\.\.\./g)).toHaveLength(1);
    expect(stateOf(root, ["a"])).toEqual({ a: "A1", def: "D" });
  });
});
