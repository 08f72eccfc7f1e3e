/**
 * Reading a small state file from a folder that may not be trustworthy (`common/small-file.ts`):
 * a regular file is read; a link, a FIFO, a device, a file over the bound and a missing file read
 * as nothing, at once (a FIFO without a writer must not block).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { readSmallRegularFile } from "../../common/small-file.js";
import { tempDir } from "../helpers/temp-tree.js";

describe("readSmallRegularFile", () => {
  it("reads a regular file within the bound, and nothing over it or missing", () => {
    const dir = tempDir("al-small-file-");
    const file = path.join(dir, "state.json");
    fs.writeFileSync(file, '{"é":1}');
    expect(readSmallRegularFile(file, 64)).toBe('{"é":1}');
    expect(readSmallRegularFile(file, Buffer.byteLength('{"é":1}'))).toBe('{"é":1}');
    expect(readSmallRegularFile(file, 3)).toBeUndefined();
    expect(readSmallRegularFile(path.join(dir, "missing.json"), 64)).toBeUndefined();
    expect(readSmallRegularFile(dir, 64)).toBeUndefined();
  });

  it.runIf(process.platform !== "win32")("follows no link, not even to a regular file, and reads no device", () => {
    const dir = tempDir("al-small-file-");
    fs.writeFileSync(path.join(dir, "real.json"), "{}");
    fs.symlinkSync(path.join(dir, "real.json"), path.join(dir, "link.json"));
    fs.symlinkSync("/dev/zero", path.join(dir, "zero.json"));
    expect(readSmallRegularFile(path.join(dir, "link.json"), 64)).toBeUndefined();
    expect(readSmallRegularFile(path.join(dir, "zero.json"), 64)).toBeUndefined();
    expect(readSmallRegularFile("/dev/zero", 1 << 20)).toBeUndefined();
  });

  it.runIf(process.platform === "linux")("does not wait on a FIFO that has no writer", () => {
    const dir = tempDir("al-small-file-");
    const fifo = path.join(dir, "state.json");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const started = Date.now();
    expect(readSmallRegularFile(fifo, 64)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
