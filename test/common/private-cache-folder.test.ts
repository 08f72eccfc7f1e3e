/**
 * The code caches' folder is pruned by every process that writes one of its caches
 * (`common/private-cache-folder.ts`, `pruneStaleCacheFiles`): a cache's files not written for
 * 30 days, and then the oldest written beyond the cache's byte cap. Without the cap, one day of
 * this project's test suite left 716 files, 725 MB, in the OS temporary folder.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CACHE_BYTES, pruneStaleCacheFiles, STALE_CACHE_DAYS } from "../../common/private-cache-folder.js";

const DAY = 24 * 60 * 60 * 1000;
let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes `name` with `size` bytes, last written `ago` ms before now. */
function cacheFile(name: string, size: number, ago: number): void {
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.alloc(size));
  const when = new Date(Date.now() - ago);
  fs.utimesSync(file, when, when);
}

describe("pruneStaleCacheFiles", () => {
  it("deletes the cache's files not written for 30 days, and leaves other files and other caches' alone", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-prune-"));
    cacheFile("v8-old.bin", 10, (STALE_CACHE_DAYS + 1) * DAY);
    cacheFile("v8-recent.bin", 10, (STALE_CACHE_DAYS - 1) * DAY);
    cacheFile("ajv-old.bin", 10, (STALE_CACHE_DAYS + 1) * DAY);
    cacheFile("notes.txt", 10, (STALE_CACHE_DAYS + 1) * DAY);
    pruneStaleCacheFiles(dir, /^v8-/);
    expect(fs.readdirSync(dir).sort()).toEqual(["ajv-old.bin", "notes.txt", "v8-recent.bin"]);
  });

  it("beyond the byte cap, deletes the oldest written first, until the newest fit", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-prune-"));
    for (let i = 0; i < 6; i++) cacheFile(`v8-${i}.bin`, 1000, i * 60_000); // v8-0 is the newest
    cacheFile("ajv-big.bin", 10_000, 0);
    pruneStaleCacheFiles(dir, /^v8-/, 3500);
    expect(fs.readdirSync(dir).sort()).toEqual(["ajv-big.bin", "v8-0.bin", "v8-1.bin", "v8-2.bin"]);
  });

  it("keeps everything under the cap (the default cap is a few installations' worth)", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-prune-"));
    for (let i = 0; i < 4; i++) cacheFile(`v8-${i}.bin`, 1000, i * 60_000);
    pruneStaleCacheFiles(dir, /^v8-/, 4000);
    expect(fs.readdirSync(dir)).toHaveLength(4);
    expect(MAX_CACHE_BYTES).toBeGreaterThanOrEqual(4 * 60 * 1024 * 1024);
  });

  it("never throws for a missing folder", () => {
    dir = path.join(os.tmpdir(), `al-prune-missing-${process.pid}`);
    expect(() => pruneStaleCacheFiles(dir, /^v8-/)).not.toThrow();
  });
});
