/**
 * Sealed logs (`common/sealed-file.ts`): a segment keeps its typed arrays' bytes after its
 * structure, written without joining them (`writev`) and read back as views (a `Uint8Array`,
 * a `Buffer`) or aligned copies (other types), whatever their offsets; appended segments read
 * back the same; a body whose tail does not match its structure, or a torn file, reads as
 * nothing (docs/performance.md, "Eighth round"; docs/caches.md).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { appendSealedSegment, readSealedLog, sealLog, writeSealedLog } from "../../common/sealed-file.js";
import { tempDir } from "../helpers/temp-tree.js";

const MAGIC = Buffer.from("assembly-line test log 1\n", "utf8");

/** A payload with every kind of typed array the caches hold, some at odd offsets of a shared buffer. */
function payload(): Record<string, unknown> {
  const shared = new Uint8Array(64).map((_, i) => i);
  return {
    text: "plain data",
    numbers: [1, 2.5, -3],
    nested: { bytes: new Uint8Array(shared.buffer, 3, 7), empty: new Uint8Array(0) },
    buffer: Buffer.from("a Buffer stays a Buffer"),
    ints: new Int32Array([1, -2, 3]),
    floats: new Float64Array([0.5, -1e300]),
    bigs: new BigInt64Array([1n, -(2n ** 63n)]),
    words: new Uint16Array([65535, 1]),
    many: Array.from({ length: 3000 }, (_, i) => new Uint8Array([i & 255, i >> 8])),
  };
}

describe("sealed logs", () => {
  it("read back every typed array as written, as a view or an aligned copy", () => {
    const root = tempDir("al-sealed-log-");
    const file = path.join(root, "cache", "log.bin");
    const written = payload();
    expect(writeSealedLog(root, file, MAGIC, written).written).toBe(true);
    const log = readSealedLog(file, MAGIC)!;
    expect(log.segments).toHaveLength(1);
    const read = log.segments[0] as Record<string, unknown>;
    expect(read).toEqual(written);
    expect(Buffer.isBuffer(read["buffer"])).toBe(true);
    expect((read["ints"] as Int32Array).byteOffset % 4).toBe(0);
    expect((read["bigs"] as BigInt64Array)[1]).toBe(-(2n ** 63n));
    // The file is what sealLog joins (one form on disk, however it was written).
    expect(fs.readFileSync(file).equals(sealLog(MAGIC, written))).toBe(true);
  });

  it("append segments that read back in order", () => {
    const root = tempDir("al-sealed-log-");
    const file = path.join(root, "log.bin");
    writeSealedLog(root, file, MAGIC, { n: 1, bytes: new Uint8Array([1]) });
    const first = readSealedLog(file, MAGIC)!;
    expect(appendSealedSegment(root, file, first.identity, { n: 2, bytes: new Uint8Array([2, 2]) }).appended).toBe(true);
    const log = readSealedLog(file, MAGIC)!;
    expect(log.segments).toEqual([
      { n: 1, bytes: new Uint8Array([1]) },
      { n: 2, bytes: new Uint8Array([2, 2]) },
    ]);
    expect(log.ends).toEqual([first.ends[0], fs.statSync(file).size]);
  });

  it("read as nothing when a tail does not match its structure, or the file is torn", () => {
    const root = tempDir("al-sealed-log-");
    const file = path.join(root, "log.bin");
    const whole = sealLog(MAGIC, { bytes: new Uint8Array([1, 2, 3, 4]) });
    for (let cut = MAGIC.length; cut < whole.length; cut++) {
      fs.writeFileSync(file, whole.subarray(0, cut));
      expect(readSealedLog(file, MAGIC), `cut at ${cut}`).toBeUndefined();
    }
    // A body that is sealed (length and digest right) but whose structure claims more tail than
    // there is, or leaves tail unread, is not a segment.
    const reseal = (body: Buffer): Buffer => {
      const header = Buffer.alloc(36);
      header.writeUInt32LE(body.length, 0);
      createHash("sha256").update(body).digest().copy(header, 4);
      return Buffer.concat([MAGIC, header, body]);
    };
    const body = whole.subarray(MAGIC.length + 36);
    for (const broken of [body.subarray(0, body.length - 1), Buffer.concat([body, Buffer.from([0])])]) {
      fs.writeFileSync(file, reseal(broken));
      expect(readSealedLog(file, MAGIC)).toBeUndefined();
    }
    fs.writeFileSync(file, reseal(body));
    expect(readSealedLog(file, MAGIC)?.segments).toEqual([{ bytes: new Uint8Array([1, 2, 3, 4]) }]);
  });
});
