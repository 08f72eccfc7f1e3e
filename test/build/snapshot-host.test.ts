/**
 * The compile's snapshot host (build/snapshot-host.ts): with `kindsFromListingsWithin`, the kind
 * of a path inside the agent root is read from its folder's listing instead of one `lstat` per
 * path (issue 14 item 1). Whatever it answers must be exactly what `lstat` says: compared here
 * for every path of the link tree of `test/helpers/link-tree.ts` with a FIFO, `.`/`..`, trailing separators, missing names
 * and paths outside the root, on the real file system, in both orders.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeHost, createRecordingHost, readKnownFile, type CompilerHost } from "../../common/host.js";
import { recordingHost } from "../../cli/inputs-record.js";
import { snapshotHost } from "../../build/snapshot-host.js";
import { buildLinkTree } from "../helpers/link-tree.js";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "al-snapshot-"));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const tree = (): string => buildLinkTree(base, { fifo: true });

function allPaths(root: string): string[] {
  const out = [root, path.dirname(root), base, `${root}/`, `${root}/plugins/.`, `${root}/plugins/p/..`, `${root}/plugins//p`, `${root}/missing/file.ts`, `${root}/plugins/p/index.mts`];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      out.push(full, `${full}/`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
  for (const via of ["plugins/p/linked-dir/deep/tool.ts", "plugins/p/linked-dir/deep", "plugins/p/out/secret.ts", "plugins/p/loop-a/x", "plugins/p/broken.ts/x", "plugins/p/ai.assemblyline/index.ts/x"]) {
    out.push(path.join(root, via));
  }
  out.push(path.join(base, "outside/secret.ts"));
  return out;
}

/** The names in a folder; none when it cannot be listed. */
function namesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** A disk host that counts its `lstat` probes. */
function countingDisk(): { host: CompilerHost; probes: string[] } {
  const disk = createNodeHost();
  const probes: string[] = [];
  return { host: { ...disk, kind: (file) => (probes.push(file), disk.kind(file)) }, probes };
}

describe("snapshotHost kindsFromListingsWithin", () => {
  it.skipIf(process.platform === "win32")("answers exactly as lstat for every path, in either order, and lists instead of probing inside the root", () => {
    const root = tree();
    const disk = createNodeHost();
    const paths = allPaths(root);
    for (const order of [paths, [...paths].reverse()]) {
      const { host, probes } = countingDisk();
      const snapshot = snapshotHost(host, { kindsFromListingsWithin: root });
      for (const file of order) expect(snapshot.kind(file), file).toBe(disk.kind(file));
      // Listed names inside the root are never probed, nor names their listing lacks (ASCII, no
      // listed name equal but for case); names in a folder that cannot be listed, unnormalized
      // paths and paths outside the root still are.
      expect(probes).not.toContain(path.join(root, "plugins/p/ai.assemblyline/index.ts"));
      expect(probes).not.toContain(path.join(root, "plugins/p/linked-dir"));
      expect(probes).not.toContain(path.join(root, "plugins/p/index.mts"));
      expect(probes).toContain(path.join(root, "missing/file.ts"));
      expect(probes).toContain(path.join(base, "outside/secret.ts"));
      expect(probes).toContain(`${root}/plugins/p/..`);
      const listed = order.filter((file) => file.startsWith(root + path.sep) && path.normalize(file) === file && !file.endsWith(path.sep) && namesIn(path.dirname(file)).includes(path.basename(file)));
      expect(listed.length).toBeGreaterThan(10);
      for (const file of listed) expect(probes, file).not.toContain(file);
    }
  });

  it("asks lstat for a name the listing lacks only when a listed name equals it but for case, or a name is not ASCII (a file system may ignore case or normalization)", () => {
    const root = fs.mkdtempSync(path.join(base, "case-"));
    fs.mkdirSync(path.join(root, "case"));
    fs.writeFileSync(path.join(root, "case", "Index.TS"), "");
    fs.mkdirSync(path.join(root, "accents"));
    fs.writeFileSync(path.join(root, "accents", "caf\u00e9.ts"), "");
    const disk = createNodeHost();
    const { host, probes } = countingDisk();
    const snapshot = snapshotHost(host, { kindsFromListingsWithin: root });
    const asked = {
      "case/index.ts": true, // "Index.TS" is listed: lstat decides (missing here, found where case is ignored)
      "case/INDEX.TS": true,
      "case/other.ts": false, // certainly missing
      "accents/other.ts": true, // a listed name is not ASCII
      "accents/cafe\u0301.ts": true, // nor is this one (the same name in another normalization)
      "case/Index.TS": false, // listed
    };
    for (const [name, probed] of Object.entries(asked)) {
      const file = path.join(root, name);
      expect(snapshot.kind(file), name).toBe(disk.kind(file));
      expect(probes.includes(file), name).toBe(probed);
    }
  });

  it("probes every path without the option", () => {
    const root = path.join(base, "agent");
    const { host, probes } = countingDisk();
    const snapshot = snapshotHost(host);
    snapshot.kind(path.join(root, "plugins/p/ai.assemblyline/index.ts"));
    snapshot.kind(path.join(root, "plugins/p/ai.assemblyline/index.ts"));
    expect(probes).toEqual([path.join(root, "plugins/p/ai.assemblyline/index.ts")]);
  });
});

describe("snapshotHost readBytes", () => {
  it("gives the bytes a read kept (exact, even when they are not valid UTF-8), without asking the base again", () => {
    const dir = fs.mkdtempSync(path.join(base, "bytes-"));
    const good = path.join(dir, "good.ts");
    const bad = path.join(dir, "bad.ts");
    fs.writeFileSync(good, "\uFEFFexport default 'é';\n");
    fs.writeFileSync(bad, Buffer.from([0x61, 0xff, 0xfe, 0x62]));
    const disk = createNodeHost();
    const asked: string[] = [];
    const snapshot = snapshotHost({ ...disk, readBytes: (file) => (asked.push(file), disk.readBytes(file)) });
    for (const file of [good, bad]) {
      const read = snapshot.read(file);
      expect(read.kind === "file" && read.bytes).toBeTruthy();
      const bytes = snapshot.readBytes(file)!;
      expect(Buffer.from(bytes).equals(fs.readFileSync(file))).toBe(true);
      expect(bytes).toBe(read.kind === "file" ? read.bytes : undefined);
    }
    expect(asked).toEqual([]);
    // A host whose reads keep no bytes (an editor's buffers): valid UTF-8 text is encoded again.
    const textOnly = snapshotHost({ ...disk, read: (file) => ({ kind: "file", text: "é", version: "1", invalidUtf8: false }) });
    textOnly.read(good);
    expect(Buffer.from(textOnly.readBytes(good)!).toString("utf8")).toBe("é");
  });
});

describe("snapshotHost read of a path its kind called a file (readKnownFile)", () => {
  /** A read result without its bytes' identity, to compare two hosts' answers. */
  const shape = (result: ReturnType<CompilerHost["read"]>) => (result.kind === "file" ? { ...result, bytes: Buffer.from(result.bytes ?? []).toString("hex") } : result);

  it.skipIf(process.platform === "win32")("answers as read does, without a stat of a regular file, and through read when the path changed after its kind was asked", () => {
    const dir = fs.mkdtempSync(path.join(base, "known-"));
    const files = {
      plain: "export default 1;\n",
      bom: "\uFEFFexport default 'é';\n",
      empty: "",
    };
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${name}.ts`), text);
    fs.writeFileSync(path.join(dir, "invalid.ts"), Buffer.from([0x61, 0xff, 0xfe, 0x62]));
    for (const name of ["becomes-dir", "becomes-fifo", "becomes-missing", "becomes-link"]) fs.writeFileSync(path.join(dir, `${name}.ts`), "x");
    const outside = path.join(fs.mkdtempSync(path.join(base, "outside-")), "target.ts");
    fs.writeFileSync(outside, "outside\n");
    const disk = createNodeHost();
    const stats: string[] = [];
    // Counts `stat` calls (the ES-module bindings of node:fs follow its CommonJS object).
    const fsObject = createRequire(import.meta.url)("node:fs") as { statSync: typeof fs.statSync };
    const original = fsObject.statSync;
    const snapshot = snapshotHost(disk, { kindsFromListingsWithin: base });
    const names = fs.readdirSync(dir);
    for (const name of names) expect(snapshot.kind(path.join(dir, name)), name).toBe("file");
    // Each path changes after its kind was asked and before it is read.
    fs.rmSync(path.join(dir, "becomes-dir.ts"));
    fs.mkdirSync(path.join(dir, "becomes-dir.ts"));
    fs.rmSync(path.join(dir, "becomes-fifo.ts"));
    expect(spawnSync("mkfifo", [path.join(dir, "becomes-fifo.ts")]).status).toBe(0);
    fs.rmSync(path.join(dir, "becomes-missing.ts"));
    // A file its listing called a file, now a link: not opened through the link as a known file (O_NOFOLLOW); `read` decides.
    fs.rmSync(path.join(dir, "becomes-link.ts"));
    fs.symlinkSync(outside, path.join(dir, "becomes-link.ts"));
    fsObject.statSync = ((file: fs.PathLike, options?: fs.StatSyncOptions) => (stats.push(String(file)), original(file, options))) as typeof fs.statSync;
    syncBuiltinESMExports();
    try {
      for (const name of names) {
        const file = path.join(dir, name);
        expect(shape(snapshot.read(file)), name).toEqual(shape(disk.read(file)));
      }
    } finally {
      fsObject.statSync = original;
      syncBuiltinESMExports();
    }
    // The disk host's own reads (the comparison) stat every path; the snapshot's reads stat only
    // the three paths that are no longer a regular file it can open (those go to `read`).
    const changed = ["becomes-dir.ts", "becomes-fifo.ts", "becomes-missing.ts", "becomes-link.ts"].map((name) => path.join(dir, name));
    expect([...stats].sort()).toEqual([...names.map((name) => path.join(dir, name)), ...changed].sort());
    expect(snapshot.read(path.join(dir, "becomes-fifo.ts"))).toEqual({ kind: "unreadable", reason: "not a regular file" });
  });

  it("is the disk host's alone: a host that spreads it reads through its own read", () => {
    const dir = fs.mkdtempSync(path.join(base, "spread-"));
    const file = path.join(dir, "a.ts");
    fs.writeFileSync(file, "on disk");
    const disk = createNodeHost();
    expect(readKnownFile(disk, file)).toMatchObject({ kind: "file", text: "on disk" });
    const overlaid: CompilerHost = { ...disk, read: () => ({ kind: "file", text: "overlay", version: "1", invalidUtf8: false }) };
    expect(readKnownFile(overlaid, file)).toBeUndefined();
    const snapshot = snapshotHost(overlaid, { kindsFromListingsWithin: base });
    expect(snapshot.kind(file)).toBe("file");
    expect(snapshot.read(file)).toMatchObject({ text: "overlay" });
  });

  it.skipIf(process.platform === "win32")("passes through the hosts that record reads (the default compile's stack), which record exactly what a read through read records, with no stat", () => {
    const dir = fs.mkdtempSync(path.join(base, "recorded-"));
    const files = { plain: "export default 1;\n", bom: "\uFEFFexport default 'é';\n", empty: "" };
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${name}.ts`), text);
    fs.writeFileSync(path.join(dir, "invalid.ts"), Buffer.from([0x61, 0xff, 0xfe, 0x62]));
    fs.writeFileSync(path.join(dir, "becomes-dir.ts"), "x");
    const names = fs.readdirSync(dir).sort();
    /** The CLI's stack over `disk`: the compile record's probes, the inputs it reports, the snapshot. */
    const stack = (disk: CompilerHost) => {
      const recording = recordingHost(dir, disk);
      const inputs: string[] = [];
      const snapshot = snapshotHost(createRecordingHost(recording.host, (file) => inputs.push(file)), { kindsFromListingsWithin: base });
      return { recording, inputs, snapshot };
    };
    const fast = stack(createNodeHost());
    // The same stack over a disk host without the reader (spread): every read goes through `read`.
    const slow = stack({ ...createNodeHost() });
    expect(readKnownFile(fast.recording.host, path.join(dir, "plain.ts"))).toMatchObject({ kind: "file" });
    expect(readKnownFile(slow.recording.host, path.join(dir, "plain.ts"))).toBeUndefined();
    for (const { snapshot } of [fast, slow]) for (const name of names) expect(snapshot.kind(path.join(dir, name)), name).toBe("file");
    fs.rmSync(path.join(dir, "becomes-dir.ts"));
    fs.mkdirSync(path.join(dir, "becomes-dir.ts"));
    const fsObject = createRequire(import.meta.url)("node:fs") as { statSync: typeof fs.statSync };
    const original = fsObject.statSync;
    const stats: string[] = [];
    fsObject.statSync = ((file: fs.PathLike, options?: fs.StatSyncOptions) => (stats.push(String(file)), original(file, options))) as typeof fs.statSync;
    syncBuiltinESMExports();
    try {
      for (const name of names) {
        const file = path.join(dir, name);
        expect(shape(fast.snapshot.read(file)), name).toEqual(shape(slow.snapshot.read(file)));
      }
    } finally {
      fsObject.statSync = original;
      syncBuiltinESMExports();
    }
    // The slow stack's reads `stat` every path; the fast one's only the path that became a folder.
    expect(stats.sort()).toEqual([...names.map((name) => path.join(dir, name)), path.join(dir, "becomes-dir.ts")].sort());
    // By path: the fast stack's first read was the direct one above.
    const probes = (recording: ReturnType<typeof recordingHost>) => recording.probes().filter((probe) => probe.op === "read").sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(probes(fast.recording)).toEqual(probes(slow.recording));
    expect(probes(fast.recording).filter((probe) => "stat" in probe)).toHaveLength(names.length - 1);
    expect(fast.inputs).toEqual(slow.inputs);
    expect(fast.inputs).toHaveLength(names.length - 1);
  });
});
