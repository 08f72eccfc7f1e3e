/**
 * The read-ahead (`common/read-ahead.ts`) and the disk host that uses it (`createNodeHost({
 * readAhead: true })`, `common/host.ts`; docs/performance.md, "Thirteenth round"): only regular
 * files found by listing are read, never through a link, a FIFO or a skipped name; each file and
 * listing is handed out once, with the bytes and `fstat` of its opening; the host's answers are
 * what it gives without the read-ahead, only read earlier.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeHost } from "../../common/host.js";
import { READ_AHEAD_MIN_FOLDERS, startReadAhead, type ReadAhead } from "../../common/read-ahead.js";
import { tempDir } from "../helpers/temp-tree.js";

const open: ReadAhead[] = [];
afterEach(() => {
  for (const readAhead of open.splice(0)) readAhead.close();
});

/** A plugin-like tree: files at two depths, a skipped folder, links to a file and a folder, a FIFO, a large file. */
function tree(): { root: string; plugin: string; other: string } {
  const root = tempDir("al-read-ahead-");
  const plugin = path.join(root, "plugin");
  const other = path.join(root, "other");
  fs.mkdirSync(path.join(plugin, "ai.assemblyline"), { recursive: true });
  fs.mkdirSync(path.join(plugin, "node_modules", "dep"), { recursive: true });
  fs.mkdirSync(other);
  fs.writeFileSync(path.join(plugin, "plugin.json"), '{"name":"p"}\n');
  fs.writeFileSync(path.join(plugin, "ai.assemblyline", "index.ts"), "export default {};\n");
  fs.writeFileSync(path.join(plugin, "ai.assemblyline", "é.ts"), Buffer.from([0x61, 0xff, 0x62]));
  fs.writeFileSync(path.join(plugin, "node_modules", "dep", "index.js"), "module.exports = 1;\n");
  fs.writeFileSync(path.join(plugin, "large.bin"), Buffer.alloc(2048, 7));
  fs.writeFileSync(path.join(other, "outside.txt"), "outside\n");
  fs.symlinkSync(path.join(other, "outside.txt"), path.join(plugin, "linked.txt"));
  fs.symlinkSync(other, path.join(plugin, "linked-folder"));
  execFileSync("mkfifo", [path.join(plugin, "pipe")]);
  return { root, plugin, other };
}

async function finished(readAhead: ReadAhead): Promise<ReadAhead> {
  open.push(readAhead);
  await readAhead.whenDone();
  return readAhead;
}

describe("startReadAhead", () => {
  it("reads the regular files under each folder, once each, with the bytes and fstat of their opening", async () => {
    const { plugin, other } = tree();
    const readAhead = await finished(startReadAhead([plugin, other], { skip: ["node_modules"], minFolders: 1, maxFileBytes: 1024 }));
    for (const file of [path.join(plugin, "plugin.json"), path.join(plugin, "ai.assemblyline", "index.ts"), path.join(plugin, "ai.assemblyline", "é.ts"), path.join(other, "outside.txt")]) {
      const taken = readAhead.take(file);
      expect(taken, file).toBeDefined();
      expect(Buffer.compare(taken!.bytes, fs.readFileSync(file))).toBe(0);
      const stat = fs.statSync(file);
      expect(taken!.stat).toEqual({ size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino });
      // Handed out once: a second read is the caller's own.
      expect(readAhead.take(file)).toBeUndefined();
    }
  });

  it("never opens a link, a FIFO, a skipped name or a file over the size limit, and never enters a linked folder", async () => {
    const { plugin, other } = tree();
    const readAhead = await finished(startReadAhead([plugin], { skip: ["node_modules"], minFolders: 1, maxFileBytes: 1024 }));
    expect(readAhead.take(path.join(plugin, "plugin.json"))).toBeDefined();
    for (const file of ["linked.txt", "pipe", "large.bin", path.join("node_modules", "dep", "index.js"), path.join("linked-folder", "outside.txt")]) {
      expect(readAhead.take(path.join(plugin, file)), file).toBeUndefined();
    }
    expect(readAhead.take(path.join(other, "outside.txt"))).toBeUndefined();
    expect(readAhead.takeListing(path.join(plugin, "node_modules"))).toBeUndefined();
    expect(readAhead.takeListing(path.join(plugin, "linked-folder"))).toBeUndefined();
  });

  it("hands out each folder it listed once, every entry with its directory entry's kind", async () => {
    const { plugin } = tree();
    const readAhead = await finished(startReadAhead([plugin], { skip: ["node_modules"], minFolders: 1 }));
    const listing = readAhead.takeListing(plugin);
    expect(new Map(listing!.map((entry) => [entry.name, entry.kind]))).toEqual(
      new Map([
        ["ai.assemblyline", "directory"],
        ["large.bin", "file"],
        ["linked-folder", "symlink"],
        ["linked.txt", "symlink"],
        ["node_modules", "directory"],
        ["pipe", "other"],
        ["plugin.json", "file"],
      ]),
    );
    expect(readAhead.takeListing(plugin)).toBeUndefined();
    expect(readAhead.takeListing(path.join(plugin, "ai.assemblyline"))?.map((entry) => entry.name).sort()).toEqual(["index.ts", "é.ts"]);
  });

  it("reads nothing for fewer folders than the threshold, for a folder that is not there, or once closed", async () => {
    const { root, plugin } = tree();
    const few = await finished(startReadAhead([plugin]));
    expect(READ_AHEAD_MIN_FOLDERS).toBeGreaterThan(1);
    expect(few.take(path.join(plugin, "plugin.json"))).toBeUndefined();
    const missing = await finished(startReadAhead([path.join(root, "missing"), plugin], { minFolders: 1 }));
    expect(missing.take(path.join(plugin, "plugin.json"))).toBeDefined();
    const closed = await finished(startReadAhead([plugin], { minFolders: 1 }));
    closed.close();
    expect(closed.take(path.join(plugin, "plugin.json"))).toBeUndefined();
    expect(closed.takeListing(plugin)).toBeUndefined();
  });

  it("never answers a path asked for before its batch arrived: the caller read it itself, and an older copy must not follow", async () => {
    const { plugin } = tree();
    const file = path.join(plugin, "plugin.json");
    const readAhead = startReadAhead([plugin], { skip: ["node_modules"], minFolders: 1 });
    // Asked at once, before the worker could have started: a miss, and the caller reads the disk.
    expect(readAhead.take(file)).toBeUndefined();
    expect(readAhead.takeListing(plugin)).toBeUndefined();
    await finished(readAhead);
    expect(readAhead.take(file)).toBeUndefined();
    expect(readAhead.takeListing(plugin)).toBeUndefined();
    // What was not asked for is handed out as ever.
    expect(readAhead.take(path.join(plugin, "ai.assemblyline", "index.ts"))).toBeDefined();
  });

  it("reads each folder once, however it is spelt", async () => {
    const { plugin } = tree();
    const readAhead = await finished(startReadAhead([`${plugin}/`, path.join(plugin, "ai.assemblyline", ".."), plugin], { skip: ["node_modules"], minFolders: 1 }));
    expect(readAhead.take(path.join(plugin, "plugin.json"))).toBeDefined();
    expect(readAhead.take(path.join(plugin, "plugin.json"))).toBeUndefined();
  });

  it("counts listed entries against the total, so that many empty folders are bounded too", async () => {
    const root = tempDir("al-read-ahead-folders-");
    const wide = path.join(root, "wide");
    for (let i = 0; i < 20; i++) fs.mkdirSync(path.join(wide, `empty-${i}`), { recursive: true });
    // 20 entries at 64 bytes each are over 1,000: not listed ahead; with room for them, listed.
    const tight = await finished(startReadAhead([wide], { minFolders: 1, maxTotalBytes: 1000 }));
    expect(tight.takeListing(wide)).toBeUndefined();
    const roomy = await finished(startReadAhead([wide], { minFolders: 1, maxTotalBytes: 2000 }));
    expect(roomy.takeListing(wide)).toHaveLength(20);
  });

  it("stops at the total it may hold", async () => {
    const { plugin } = tree();
    // The two listings (7 and 2 entries at 64 bytes: 576) and one small file (its size and 256 bytes) fit in 900; two files do not.
    const readAhead = await finished(startReadAhead([plugin], { skip: ["node_modules"], minFolders: 1, maxTotalBytes: 900 }));
    const taken = ["plugin.json", path.join("ai.assemblyline", "index.ts"), path.join("ai.assemblyline", "é.ts")].filter((file) => readAhead.take(path.join(plugin, file)) !== undefined);
    expect(taken).toHaveLength(1);
  });
});

describe("createNodeHost({ readAhead: true })", () => {
  it("answers a file read ahead as it was when read ahead, once; every answer has the shape of the host's own", async () => {
    const { plugin } = tree();
    const file = path.join(plugin, "plugin.json");
    const host = createNodeHost({ readAhead: true });
    const without = createNodeHost();
    const expected = without.read(file);
    const readAhead = host.readAhead!([plugin], { skip: ["node_modules"], minFolders: 1 });
    await readAhead.whenDone();
    // Changed on disk after it was read ahead: the host answers what the read-ahead read.
    fs.writeFileSync(file, '{"name":"changed"}\n');
    expect(host.read(file)).toEqual(expected);
    // The next read is the host's own.
    expect(host.read(file)).toEqual(without.read(file));
    const invalid = path.join(plugin, "ai.assemblyline", "é.ts");
    expect(host.read(invalid)).toEqual(without.read(invalid));
    const index = path.join(plugin, "ai.assemblyline", "index.ts");
    expect(Buffer.compare(Buffer.from(host.readBytes(index)!), fs.readFileSync(index))).toBe(0);
    expect(host.readDirectory(plugin)).toEqual(without.readDirectory(plugin));
    // A link is read by the host itself, through the link, as ever.
    expect(host.read(path.join(plugin, "linked.txt"))).toEqual(without.read(path.join(plugin, "linked.txt")));
    readAhead.close();
  });

  it("has no read-ahead unless asked (ASSEMBLY_LINE_READ_AHEAD=0: test/build/read-ahead-compile.test.ts)", () => {
    expect(createNodeHost().readAhead).toBeUndefined();
  });
});
