/**
 * Probes (`common/probes.ts`): stacked probing hosts over one snapshot (the compile record's
 * below it, the plugin reuse's above it, as a default compile stacks them) record exactly the
 * answers each would record alone, while each file is hashed and `stat`-ed once per read
 * object (docs/performance.md, "Eighth round"), the `stat` being the one the disk read took
 * ("Ninth round"); the bytes a valid UTF-8 text came from share
 * its answer, other bytes never do; a text with a lone surrogate is told apart from one with
 * U+FFFD.
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";
import * as v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { createNodeHost, type ReadResult } from "../../common/host.js";
import { bytesAnswer, digest, listAnswer, probingHost, ProbeSet, readAnswer, textDigest, type Probe } from "../../common/probes.js";
import { packProbes, unpackProbes } from "../../common/probe.js";
import { snapshotHost } from "../../build/snapshot-host.js";
import { tempDir } from "../helpers/temp-tree.js";

function fixture(): { root: string; files: Record<string, string> } {
  const root = tempDir("al-probes-");
  const files = {
    ascii: path.join(root, "a.ts"),
    unicode: path.join(root, "b.ts"),
    invalid: path.join(root, "c.ts"),
    bom: path.join(root, "d.ts"),
  };
  fs.writeFileSync(files.ascii, "export default 1;\n");
  fs.writeFileSync(files.unicode, "export const s = \"é → ✓\";\n");
  fs.writeFileSync(files.invalid, Buffer.from([0x61, 0xff, 0xfe, 0x62]));
  fs.writeFileSync(files.bom, "\uFEFFexport {};\n");
  return { root, files };
}

/** Every probe a host stack records, and every read and bytes answer computed afresh for the same files. */
function record(root: string, files: Record<string, string>, hashes?: { count: number }) {
  const lower: Probe[] = [];
  const upper: Probe[] = [];
  const snapshot = snapshotHost(probingHost(createNodeHost(), (probe) => lower.push(probe)));
  const host = probingHost(snapshot, (probe) => upper.push(probe));
  // Counts SHA-256 digests made, by a Hash object or by the one-shot `crypto.hash` (the ES-module
  // bindings of node:crypto follow its CommonJS object).
  const crypto = createRequire(import.meta.url)("node:crypto") as { createHash: typeof import("node:crypto").createHash; hash?: (...args: unknown[]) => string };
  const original = crypto.createHash;
  const originalHash = crypto.hash;
  if (hashes) {
    crypto.createHash = ((...args: Parameters<typeof original>) => (hashes.count++, original(...args))) as typeof original;
    if (originalHash) crypto.hash = (...args: unknown[]) => (hashes.count++, originalHash(...args));
    syncBuiltinESMExports();
  }
  try {
    for (let i = 0; i < 2; i++) {
      for (const file of Object.values(files)) {
        host.read(file);
        host.readBytes(file);
      }
      host.readDirectory(root);
    }
  } finally {
    crypto.createHash = original;
    if (originalHash) crypto.hash = originalHash;
    syncBuiltinESMExports();
  }
  return { lower, upper };
}

describe("probes", () => {
  it("record what each probing host would record alone, hashing each file once", () => {
    const { root, files } = fixture();
    const hashes = { count: 0 };
    const { lower, upper } = record(root, files, hashes);
    const node = createNodeHost();
    const expected = (op: Probe["op"], file: string): string | null => (op === "read" ? readAnswer(node.read(file)) : op === "bytes" ? bytesAnswer(node.readBytes(file)) : listAnswer(node.readDirectory(file)));
    for (const probe of [...lower, ...upper]) expect(probe.answer, `${probe.op} ${probe.path}`).toBe(expected(probe.op, probe.path));
    // The upper host asks twice for each text, bytes and listing; the snapshot reads each file
    // and listing once, and takes the bytes from the text's read, so the lower host records once each.
    expect(upper).toHaveLength(2 * (2 * Object.keys(files).length + 1));
    expect(lower.map((probe) => probe.op).sort()).toEqual([...Object.keys(files).map(() => "read"), "list"].sort());
    for (const probe of [...lower, ...upper]) {
      if (probe.op === "list") continue;
      const stat = fs.statSync(probe.path);
      expect("stat" in probe ? probe.stat : undefined, probe.path).toEqual({ size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino });
    }
    // One digest per text, one more for the invalid UTF-8 file's bytes (its text is not its bytes), one per listing.
    expect(hashes.count).toBe(Object.keys(files).length + 1 + 1);
  });

  it("record the stat a disk read carries, with no stat of their own (one per file read, the disk host's)", () => {
    const { root, files } = fixture();
    const nodeFs = createRequire(import.meta.url)("node:fs") as { statSync: typeof fs.statSync };
    const original = nodeFs.statSync;
    const stats: string[] = [];
    nodeFs.statSync = ((file: fs.PathLike, options?: fs.StatSyncOptions) => (stats.push(String(file)), original(file, options))) as typeof original;
    syncBuiltinESMExports();
    let probes: Probe[];
    try {
      probes = record(root, files).upper;
    } finally {
      nodeFs.statSync = original;
      syncBuiltinESMExports();
    }
    // The disk host's read asks `stat` once per file before reading it, and the probes take that
    // one; the invalid UTF-8 file's bytes are read (and `stat`-ed) once more, its text not being its bytes.
    expect(stats.sort()).toEqual([...Object.values(files), files.invalid!].sort());
    for (const probe of probes) {
      if (probe.op === "list") continue;
      const stat = fs.statSync(probe.path);
      expect("stat" in probe ? probe.stat : undefined, probe.path).toEqual({ size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino });
    }
  });

  it("give the bytes of a valid UTF-8 text the text's answer, and the bytes of an invalid one their own", () => {
    const { files } = fixture();
    const node = createNodeHost();
    for (const [name, file] of Object.entries(files)) {
      const read = node.read(file);
      const bytes = node.readBytes(file)!;
      const same = readAnswer(read) === bytesAnswer(bytes);
      expect(same, name).toBe(name !== "invalid");
    }
  });

  it("tell a text with a lone surrogate from the same text with U+FFFD", () => {
    const file = (text: string): ReadResult & { kind: "file" } => ({ kind: "file", text, version: "1", invalidUtf8: false });
    const lone = textDigest(file("a\uD800b"));
    const replaced = textDigest(file("a\uFFFDb"));
    expect(lone).not.toBe(replaced);
    expect(lone.startsWith("u16-")).toBe(true);
    expect(replaced).toBe(digest("a\uFFFDb"));
  });

  it("digest a disk read by its bytes as they would digest its text (a BOM, non-ASCII, invalid UTF-8)", () => {
    const root = tempDir("al-probes-digest-");
    const host = createNodeHost();
    for (const [name, bytes] of [
      ["bom.ts", Buffer.from("\uFEFFexport const a = 1;\n", "utf8")],
      // Found in review: the decoder dropped the second mark, so the text was not the bytes' (and another text's digest).
      ["two-boms.ts", Buffer.from("\uFEFF\uFEFFexport const a = 1;\n", "utf8")],
      ["accents.ts", Buffer.from("export const café = \"naïve ☕ 𝄞\";\n", "utf8")],
      ["ascii.ts", Buffer.from("export {};\n", "utf8")],
      ["invalid.ts", Buffer.from([0x61, 0xff, 0x62])],
    ] as const) {
      fs.writeFileSync(path.join(root, name), bytes);
      const read = host.read(path.join(root, name)) as ReadResult & { kind: "file" };
      expect(read.bytes, name).toBeDefined();
      // Every byte order mark kept as U+FEFF, so offsets match an editor's.
      if (!read.invalidUtf8) expect(read.text, name).toBe(bytes.toString("utf8"));
      // The same text from a host that read no bytes (an editor's buffer).
      const textOnly: ReadResult = { kind: "file", text: read.text, version: "v", invalidUtf8: read.invalidUtf8 };
      expect(textDigest(read), name).toBe(textDigest(textOnly));
      expect(textDigest(read), name).toBe(read.invalidUtf8 ? digest(read.text) : digest(bytes));
    }
  });
});

describe("packed probes (common/probe.ts): how the binary records store them", () => {
  const probes: Probe[] = [
    { op: "read", path: "/a/plugin.json", answer: "file:abc", stat: { size: 165, mtimeMs: 1796346136549.893, ctimeMs: 1796346136549.893, ino: 2277426 } },
    { op: "read", path: "/a/missing.ts", answer: "missing" },
    { op: "bytes", path: "/a/logo.png", answer: "none" },
    { op: "list", path: "/a", answer: null },
    { op: "list", path: "/a/tools", answer: "digest" },
    { op: "real", path: "/a/link", answer: "/b/target" },
    { op: "real", path: "/a/gone", answer: null },
    { op: "kind", path: "/a/\u0000odd\u0001", answer: "file" },
  ];

  it("unpacks to the probes packed, key order and absent stats included", () => {
    const unpacked = unpackProbes(v8.deserialize(v8.serialize(packProbes(probes))));
    expect(unpacked).toEqual(probes);
    expect(unpacked!.map((probe) => Object.keys(probe))).toEqual(probes.map((probe) => Object.keys(probe)));
    expect(unpackProbes(packProbes([]))).toEqual([]);
  });

  it("reads anything of another shape as no probes (a miss), never a crash", () => {
    const packed = packProbes(probes);
    for (const damaged of [
      undefined,
      null,
      probes,
      { ...packed, ops: [...packed.ops] },
      { ...packed, paths: packed.paths.slice(1) },
      { ...packed, answers: [...packed.answers.slice(1), null] },
      { ...packed, stats: packed.stats.subarray(4) },
      { ...packed, ops: Uint8Array.from([...packed.ops.slice(1), 9]) },
      { ...packed, paths: [1, ...packed.paths.slice(1)] },
      { ...packed, answers: [null, ...packed.answers.slice(1)] },
    ]) {
      expect(unpackProbes(damaged)).toBeUndefined();
    }
  });
});

describe("ProbeSet: each path once per operation, in the order first made", () => {
  it("keeps the first probe of a path by an operation, replaces in place with set, and answers has and get", () => {
    const set = new ProbeSet();
    expect(set.add({ op: "kind", path: "/a", answer: "file" })).toBe(true);
    expect(set.add({ op: "read", path: "/a", answer: "file:x" })).toBe(true);
    expect(set.add({ op: "kind", path: "/a", answer: "missing" })).toBe(false);
    expect(set.add({ op: "kind", path: "/b", answer: null as unknown as string })).toBe(true);
    set.set({ op: "read", path: "/a", answer: "file:y" });
    set.set({ op: "bytes", path: "/c", answer: "none" });
    expect(set.values()).toEqual([
      { op: "kind", path: "/a", answer: "file" },
      { op: "read", path: "/a", answer: "file:y" },
      { op: "kind", path: "/b", answer: null },
      { op: "bytes", path: "/c", answer: "none" },
    ]);
    expect(set.has("read", "/a")).toBe(true);
    expect(set.has("bytes", "/a")).toBe(false);
    expect(set.get("kind", "/a")?.answer).toBe("file");
    expect(set.get("list", "/a")).toBeUndefined();
    // A copy: changing it changes nothing in the set.
    set.values().pop();
    expect(set.values()).toHaveLength(4);
  });
});
