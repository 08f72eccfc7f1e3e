/**
 * The one lock reader (contract/read-lock.ts; issue 8 item 3): the compiler's `readLockfile`
 * and the runtime's artifact verification both read plugins.lock through `readLockBytes`, so
 * they agree on missing, unreadable and the bytes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { readLockBytes } from "../../contract/read-lock.js";
import { readLockfile as readForCompile } from "../../lockfile/read-lockfile.js";
import { readLockfile as readForRuntime } from "../../runtime-min/artifact/read-lock.js";
import { tempDir } from "../helpers/temp-tree.js";

describe("readLockBytes", () => {
  it("says missing, unreadable (folder, broken link) or gives the exact bytes and their text", () => {
    const dir = tempDir("al-lock-read-");
    const lock = path.join(dir, "plugins.lock");
    expect(readLockBytes(lock)).toEqual({ kind: "missing" });
    fs.mkdirSync(lock);
    expect(readLockBytes(lock)).toEqual({ kind: "unreadable", reason: "it is a directory" });
    fs.rmdirSync(lock);
    fs.symlinkSync(path.join(dir, "nowhere"), lock);
    expect(readLockBytes(lock)).toEqual({ kind: "unreadable", reason: "it is a broken symlink" });
    fs.rmSync(lock);
    const bytes = Buffer.from('\uFEFF{ "lockfileVersion": 1, "surfaces": {} }\r\n', "utf8");
    fs.writeFileSync(lock, bytes);
    const read = readLockBytes(lock);
    expect(read.kind).toBe("read");
    if (read.kind !== "read") return;
    expect(Buffer.from(read.bytes).equals(bytes)).toBe(true);
    expect(read.text).toBe('{ "lockfileVersion": 1, "surfaces": {} }\r\n');
  });

  it("gives the text of ASCII, other UTF-8 and invalid bytes alike, and says which bytes are not UTF-8", () => {
    const dir = tempDir("al-lock-read-");
    const lock = path.join(dir, "plugins.lock");
    const cases: [Buffer, string, boolean][] = [
      [Buffer.from('{ "lockfileVersion": 1, "surfaces": {} }\n', "latin1"), '{ "lockfileVersion": 1, "surfaces": {} }\n', false],
      [Buffer.from('{ "name": "caf\u00e9 \u2014 \u{1F600}" }\n', "utf8"), '{ "name": "caf\u00e9 \u2014 \u{1F600}" }\n', false],
      [Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a]), '{"\uFFFD"}\n', true],
    ];
    for (const [bytes, text, invalidUtf8] of cases) {
      fs.writeFileSync(lock, bytes);
      const read = readLockBytes(lock);
      expect(read).toMatchObject({ kind: "read", invalidUtf8 });
      if (read.kind !== "read") return;
      expect(read.text).toBe(text);
      expect(read.text).toBe(text);
      expect(Buffer.from(read.bytes).equals(bytes)).toBe(true);
    }
  });

  it("is what the compiler's and the runtime's readers report from", () => {
    const dir = tempDir("al-lock-read-");
    const lock = path.join(dir, "plugins.lock");
    fs.mkdirSync(lock);
    expect(readForCompile(lock)).toMatchObject({ kind: "unreadable", diagnostic: { code: "AL6011", message: expect.stringContaining("it is a directory") } });
    expect(readForRuntime(dir, (file) => path.basename(file)).diagnostics).toMatchObject([{ code: "AL8004" }]);
    fs.rmdirSync(lock);
    const text = '{ "lockfileVersion": 1, "surfaces": {} }\n';
    fs.writeFileSync(lock, text);
    const compiled = readForCompile(lock);
    const runtime = readForRuntime(dir, (file) => path.basename(file));
    expect(compiled.kind).toBe("ok");
    expect(runtime.diagnostics).toEqual([]);
    expect(Buffer.from(compiled.kind === "ok" ? compiled.bytes : []).equals(runtime.bytes)).toBe(true);
    expect(runtime.value).toEqual(JSON.parse(text));
  });
});
