/**
 * `writeFileConfined`'s `durable` option (common/confined-write.ts): the lock (and every other
 * write by default) is fsynced before it replaces the old file; sealed caches and clock stamps
 * are not (a power failure may damage them, which their readers detect), because on ext4 that
 * `fsync` waits for the journal to commit the whole compile's metadata (issue 14 item 4).
 */
import * as path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";

const synced = vi.hoisted(() => ({ count: 0 }));
vi.mock("node:fs", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:fs")>();
  const fsyncSync = (fd: number): void => {
    synced.count++;
    original.fsyncSync(fd);
  };
  return { ...original, default: { ...original, fsyncSync }, fsyncSync };
});

import * as fs from "node:fs";
import { writeFileConfined } from "../../common/confined-write.js";
import { readSealedPayload, writeSealedFile } from "../../common/sealed-file.js";
import { tempDir } from "../helpers/temp-tree.js";

const MAGIC = Buffer.from("test sealed 1\n", "utf8");

describe("writeFileConfined: durable writes", () => {
  beforeEach(() => {
    synced.count = 0;
  });

  it("fsyncs by default, and leaves the fsync out with durable: false; both replace the file atomically", () => {
    const root = tempDir("al-durable-");
    const file = path.join(root, "plugins.lock");
    expect(writeFileConfined(root, file, "one\n")).toBeUndefined();
    expect(synced.count).toBe(1);
    expect(writeFileConfined(root, file, "two\n", { durable: false })).toBeUndefined();
    expect(synced.count).toBe(1);
    expect(fs.readFileSync(file, "utf8")).toBe("two\n");
    expect(fs.readdirSync(root)).toEqual(["plugins.lock"]);
  });

  it("writes sealed caches without fsync, and a damaged one reads as nothing", () => {
    const root = tempDir("al-durable-");
    const file = path.join(root, ".assemblyline", "cache", "x.bin");
    expect(writeSealedFile(root, file, MAGIC, { a: 1 })).toEqual({ written: true });
    expect(synced.count).toBe(0);
    expect(readSealedPayload(file, MAGIC)).toEqual({ a: 1 });
    // What a power failure may leave of an unsynced file: its size with zeroed bytes, or less.
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, Buffer.alloc(bytes.length));
    expect(readSealedPayload(file, MAGIC)).toBeUndefined();
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 1));
    expect(readSealedPayload(file, MAGIC)).toBeUndefined();
  });
});
