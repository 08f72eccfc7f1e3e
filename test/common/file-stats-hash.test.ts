/** common/file-stats-hash.ts: the stat fingerprint the toolchain keys and the probe cache share. */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { signatureOfStats, statSignature, updateWithFileStats } from "../../common/file-stats-hash.js";
import { tempDir } from "../helpers/temp-tree.js";

const fingerprint = (files: string[]): string => {
  const hash = createHash("sha256");
  updateWithFileStats(hash, files);
  return hash.digest("hex");
};

describe("updateWithFileStats", () => {
  it("changes with a file's size or mtime, and says missing for a file that is not there, without throwing", () => {
    const dir = tempDir("al-stats-");
    const file = path.join(dir, "a.js");
    fs.writeFileSync(file, "one");
    fs.utimesSync(file, 1_000, 1_000);
    const first = fingerprint([file]);
    expect(fingerprint([file])).toBe(first);
    fs.writeFileSync(file, "three");
    fs.utimesSync(file, 1_000, 1_000);
    const resized = fingerprint([file]);
    expect(resized).not.toBe(first);
    fs.utimesSync(file, 2_000, 2_000);
    expect(fingerprint([file])).not.toBe(resized);
    const missing = path.join(dir, "gone.js");
    const expected = createHash("sha256").update(`\0${missing}\0missing`).digest("hex");
    expect(fingerprint([missing])).toBe(expected);
    // A path Node refuses (a NUL byte) is missing too, not a crash.
    expect(() => fingerprint(["bad\0path"])).not.toThrow();
  });
});

describe("statSignature and signatureOfStats", () => {
  it("write one format; a link or a missing file is '-'", () => {
    const dir = tempDir("al-signature-");
    const file = path.join(dir, "bundle.mjs");
    fs.writeFileSync(file, "one");
    fs.utimesSync(file, 1_000, 1_000);
    const before = statSignature(file);
    expect(before).toBe(signatureOfStats(fs.lstatSync(file, { bigint: true })));
    expect(before).toMatch(/^3:1000000000000:\d+:\d+$/);
    fs.writeFileSync(file, "two");
    fs.utimesSync(file, 1_000, 1_000);
    // Same size and mtime: the format still reads the stats afresh (the change time is what tells
    // such a rewrite apart; test/e2e/compile-known-artifact.test.ts shows it is seen).
    expect(statSignature(file)).toBe(signatureOfStats(fs.lstatSync(file, { bigint: true })));
    fs.symlinkSync(file, path.join(dir, "link.mjs"));
    expect(statSignature(path.join(dir, "link.mjs"))).toBe("-");
    expect(statSignature(path.join(dir, "missing.mjs"))).toBe("-");
  });
});
