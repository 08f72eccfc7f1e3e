import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { serializeLockfile } from "../../lockfile/serialize-lockfile.js";
import { writeLockfileIfChanged } from "../../lockfile/write-lockfile.js";
import { tempDir } from "../helpers/temp-tree.js";
import { sampleLock } from "./helpers.js";

const PAST = new Date("2001-02-03T04:05:06Z");

describe("writeLockfileIfChanged", () => {
  it("writes a new lock, then leaves identical bytes untouched (mtime unchanged)", () => {
    const dir = tempDir();
    const file = path.join(dir, "plugins.lock");
    const text = serializeLockfile(sampleLock());
    expect(writeLockfileIfChanged(file, text)).toEqual({ changed: true });
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    fs.utimesSync(file, PAST, PAST);
    const before = fs.statSync(file);
    expect(writeLockfileIfChanged(file, text)).toEqual({ changed: false });
    const after = fs.statSync(file);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.ino).toBe(before.ino);
    expect(fs.readdirSync(dir)).toEqual(["plugins.lock"]);
  });

  it("replaces a changed lock atomically (a new file renamed over the old one)", () => {
    const dir = tempDir();
    const file = path.join(dir, "plugins.lock");
    writeLockfileIfChanged(file, serializeLockfile(sampleLock()));
    const inode = fs.statSync(file).ino;
    const changed = JSON.parse(JSON.stringify(sampleLock()));
    changed.surfaces["."].capabilities.example.tools.echo.description = "Echo it.";
    const text = serializeLockfile(changed);
    expect(writeLockfileIfChanged(file, text)).toEqual({ changed: true });
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(fs.statSync(file).ino).not.toBe(inode);
    expect(fs.readdirSync(dir)).toEqual(["plugins.lock"]); // no temporary file left behind
  });

  it("leaves a CRLF checkout of the same lock alone, unless told to compare exactly", () => {
    const file = path.join(tempDir(), "plugins.lock");
    const text = serializeLockfile(sampleLock());
    fs.writeFileSync(file, text.replace(/\n/g, "\r\n"));
    fs.utimesSync(file, PAST, PAST);
    expect(writeLockfileIfChanged(file, text)).toEqual({ changed: false });
    expect(fs.statSync(file).mtimeMs).toBe(PAST.getTime());
    expect(writeLockfileIfChanged(file, text, { lineEndings: "exact" })).toEqual({ changed: true });
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });

  it("compares the file with the text's known bytes (textBytes) as it is now: untouched when equal, rewritten when it changed since they were read", () => {
    const dir = tempDir();
    const file = path.join(dir, "plugins.lock");
    // Larger than one comparison chunk, so a difference deep in the file is seen.
    const lock = JSON.parse(JSON.stringify(sampleLock()));
    lock.surfaces["."].capabilities.example.tools.echo.description = `Echo ${"é".repeat(200_000)}.`;
    const text = serializeLockfile(lock);
    const textBytes = new Uint8Array(Buffer.from(text, "utf8"));
    expect(textBytes.byteLength).toBeGreaterThan(300_000);
    fs.writeFileSync(file, textBytes);
    fs.utimesSync(file, PAST, PAST);
    expect(writeLockfileIfChanged(file, text, { textBytes })).toEqual({ changed: false });
    expect(fs.statSync(file).mtimeMs).toBe(PAST.getTime());
    // The file changed after the caller read it: one byte deep inside, a byte more, a byte less.
    const changed = Buffer.from(textBytes);
    changed[300_000] = changed[300_000]! ^ 1;
    for (const now of [changed, Buffer.concat([textBytes, Buffer.from(" ")]), textBytes.subarray(0, -1)]) {
      fs.writeFileSync(file, now);
      expect(writeLockfileIfChanged(file, text, { textBytes })).toEqual({ changed: true });
      expect(fs.readFileSync(file, "utf8")).toBe(text);
    }
    // Gone, or a CRLF checkout of the same text: the rules without textBytes apply.
    fs.rmSync(file);
    expect(writeLockfileIfChanged(file, text, { textBytes })).toEqual({ changed: true });
    fs.writeFileSync(file, text.replace(/\n/g, "\r\n"));
    expect(writeLockfileIfChanged(file, text, { textBytes })).toEqual({ changed: false });
    expect(fs.readdirSync(dir)).toEqual(["plugins.lock"]);
  });

  it("rewrites a lock with conflict markers", () => {
    const file = path.join(tempDir(), "plugins.lock");
    fs.writeFileSync(file, "<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> other\n");
    const text = serializeLockfile(sampleLock());
    expect(writeLockfileIfChanged(file, text)).toEqual({ changed: true });
    expect(fs.readFileSync(file, "utf8")).toBe(text);
  });

  it("never overwrites a lock with a newer lockfileVersion", () => {
    const file = path.join(tempDir(), "plugins.lock");
    const newer = '{\n  "lockfileVersion": 2,\n  "packages": {}\n}\n';
    fs.writeFileSync(file, newer);
    const result = writeLockfileIfChanged(file, serializeLockfile(sampleLock()));
    expect(result.changed).toBe(false);
    expect(result.diagnostic).toMatchObject({ code: "AL6007", file });
    expect(fs.readFileSync(file, "utf8")).toBe(newer);
  });

  it("skips the newer-version scan only for the very bytes the caller read as a readable lock", () => {
    const file = path.join(tempDir(), "plugins.lock");
    const read = serializeLockfile(sampleLock());
    fs.writeFileSync(file, read);
    const next = serializeLockfile({ ...sampleLock(), surfaces: {} });
    expect(writeLockfileIfChanged(file, next, { readableBytes: Buffer.from(read, "utf8") })).toEqual({ changed: true });
    // Replaced by a newer toolchain's lock since it was read: refused all the same.
    const newer = '{\n  "lockfileVersion": 2,\n  "packages": {}\n}\n';
    fs.writeFileSync(file, newer);
    const result = writeLockfileIfChanged(file, next, { readableBytes: Buffer.from(read, "utf8") });
    expect(result.diagnostic).toMatchObject({ code: "AL6007", file });
    expect(fs.readFileSync(file, "utf8")).toBe(newer);
  });

  it("takes the bytes read as the file only while it holds exactly them (a view into a larger buffer; a same-length replacement is read as it is now)", () => {
    const file = path.join(tempDir(), "plugins.lock");
    const text = serializeLockfile(sampleLock());
    const crlf = Buffer.from(text.replace(/\n/g, "\r\n"), "utf8");
    fs.writeFileSync(file, crlf);
    fs.utimesSync(file, PAST, PAST);
    // The CRLF checkout the caller read, handed over as a plain Uint8Array view at an offset.
    const backing = new Uint8Array(crlf.byteLength + 16);
    backing.set(crlf, 7);
    const view = backing.subarray(7, 7 + crlf.byteLength);
    expect(writeLockfileIfChanged(file, text, { readableBytes: view })).toEqual({ changed: false });
    expect(fs.statSync(file).mtimeMs).toBe(PAST.getTime());
    // Replaced since by a newer lock of exactly the same length: compared by its bytes, refused.
    const newerHead = '{\n  "lockfileVersion": 2,\n  "packages": {}\n}\n';
    const newer = newerHead + " ".repeat(crlf.byteLength - Buffer.byteLength(newerHead));
    fs.writeFileSync(file, newer);
    expect(fs.statSync(file).size).toBe(crlf.byteLength);
    const result = writeLockfileIfChanged(file, text, { readableBytes: view });
    expect(result.diagnostic).toMatchObject({ code: "AL6007", file });
    expect(fs.readFileSync(file, "utf8")).toBe(newer);
  });

  it("finds a newer lockfileVersion however the lock spells it, and rewrites an older or equal one", () => {
    // The check reads the version numbers without parsing the whole lock, then parses when one is
    // above ours or a key may be written with escapes.
    const spellings = [
      '{ "packages": { "x": { "description": "\\"lockfileVersion\\": 1" } }, "lockfileVersion" :\n 2 }\n',
      '{ "lockfile\\u0056ersion": 2, "packages": {} }\n',
      '{ "lockfileVersion": 2e0, "packages": {} }\n',
    ];
    for (const newer of spellings) {
      const file = path.join(tempDir(), "plugins.lock");
      fs.writeFileSync(file, newer);
      const result = writeLockfileIfChanged(file, serializeLockfile(sampleLock()));
      expect(result.diagnostic?.code, newer).toBe("AL6007");
      expect(fs.readFileSync(file, "utf8")).toBe(newer);
    }
    for (const older of ['{ "lockfileVersion": 1, "packages": { "x": { "lockfileVersion": 7.5 } } }\n', '{ "packages": { "x": { "description": "lockfileVersion 9" } } }\n']) {
      const file = path.join(tempDir(), "plugins.lock");
      fs.writeFileSync(file, older);
      expect(writeLockfileIfChanged(file, serializeLockfile(sampleLock())), older).toEqual({ changed: true });
    }
  });

  it("reports a failed write instead of throwing", () => {
    const file = path.join(tempDir(), "no-such-dir", "plugins.lock");
    const result = writeLockfileIfChanged(file, serializeLockfile(sampleLock()));
    expect(result.changed).toBe(false);
    expect(result.diagnostic).toMatchObject({ code: "AL6010", message: "plugins.lock could not be written: its directory does not exist." });
  });
});
