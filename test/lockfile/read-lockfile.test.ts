import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { readLockfile } from "../../lockfile/read-lockfile.js";
import { serializeLockfile } from "../../lockfile/serialize-lockfile.js";
import { tempDir } from "../helpers/temp-tree.js";
import { sampleLock } from "./helpers.js";

function lockAt(text: string | Uint8Array): string {
  const file = path.join(tempDir(), "plugins.lock");
  fs.writeFileSync(file, text);
  return file;
}

function edit(mutate: (lock: any) => void): string {
  const lock = JSON.parse(JSON.stringify(sampleLock()));
  mutate(lock);
  return serializeLockfile(lock);
}

describe("readLockfile", () => {
  it("reads a canonical lock", () => {
    const text = serializeLockfile(sampleLock());
    const result = readLockfile(lockAt(text));
    expect(result.kind).toBe("ok");
    if (result.kind !== "ok") return;
    expect(result.lock).toEqual(sampleLock());
    expect(result.text).toBe(text);
    expect(Buffer.from(result.bytes).toString("utf8")).toBe(text);
  });

  it("tolerates CRLF line ends and a byte order mark", () => {
    const text = serializeLockfile(sampleLock());
    expect(readLockfile(lockAt(text.replace(/\n/g, "\r\n"))).kind).toBe("ok");
    expect(readLockfile(lockAt(`\uFEFF${text}`)).kind).toBe("ok");
  });

  it("says missing, and unreadable for a directory", () => {
    const dir = tempDir();
    expect(readLockfile(path.join(dir, "plugins.lock"))).toEqual({ kind: "missing" });
    fs.mkdirSync(path.join(dir, "plugins.lock"));
    const result = readLockfile(path.join(dir, "plugins.lock"));
    expect(result.kind).toBe("unreadable");
    if (result.kind === "unreadable") expect(result.diagnostic).toMatchObject({ code: "AL6011", message: "plugins.lock could not be read: it is a directory." });
  });

  it("detects Git conflict markers before parsing, at the first marker's line", () => {
    const ours = serializeLockfile(sampleLock()).split("\n");
    const conflicted = [
      ...ours.slice(0, 8),
      "<<<<<<< HEAD",
      ours[8],
      "||||||| base",
      ours[8],
      "=======",
      ours[8]!.replace("sha512-", "sha512-X"),
      ">>>>>>> feature/brand",
      ...ours.slice(9),
    ].join("\r\n");
    const file = lockAt(conflicted);
    const result = readLockfile(file, { fixCommand: "npx assembly-line compile agent" });
    expect(result.kind).toBe("conflict");
    if (result.kind !== "conflict") return;
    expect(result.markers).toEqual([
      { marker: "<<<<<<<", line: 9 },
      { marker: "|||||||", line: 11 },
      { marker: "=======", line: 13 },
      { marker: ">>>>>>>", line: 15 },
    ]);
    expect(result.diagnostic).toMatchObject({
      code: "AL6003",
      file,
      line: 9,
      column: 1,
      message: "plugins.lock contains Git conflict markers ('<<<<<<<' on line 9).",
      hint: "Run `npx assembly-line compile agent`: it recomputes plugins.lock from the agent's inputs. Then commit the result.",
    });
  });

  it("does not mistake a string value that contains marker characters for a conflict", () => {
    const text = edit((lock) => {
      lock.surfaces["."].capabilities.example.tools.echo.description = "<<<<<<< not a marker";
    });
    expect(readLockfile(lockAt(text)).kind).toBe("ok");
  });

  it("reports invalid JSON with its line and column", () => {
    const file = lockAt('{\n  "lockfileVersion": 1,\n  "surfaces": {},\n}\n');
    const result = readLockfile(file, { fixCommand: "npx assembly-line compile" });
    expect(result.kind).toBe("invalid");
    if (result.kind === "invalid") {
      expect(result.diagnostic).toMatchObject({ code: "AL6005", line: 4, column: 1, message: "plugins.lock is not valid JSON: a property name in double quotes is expected." });
      expect(result.diagnostic.hint).toBe("Run `npx assembly-line compile` to rewrite it from the agent's inputs.");
    }
  });

  it.each([
    [
      "a malformed integrity",
      (lock: any) => (lock.surfaces["."].capabilities.example.integrity = "sha512-abc"),
      'surfaces["."].capabilities.example.integrity',
      "must be an SRI sha512 hash",
    ],
    [
      "an absolute local path",
      (lock: any) => (lock.surfaces["."].capabilities.example.source.path = "/home/me/agent/plugins/example"),
      'surfaces["."].capabilities.example.source.path',
      "must be a relative POSIX path",
    ],
    [
      "a `..` segment",
      (lock: any) => (lock.surfaces["."].capabilities.example.source.path = "plugins/../../x"),
      'surfaces["."].capabilities.example.source.path',
      "must be a relative POSIX path",
    ],
    [
      "a version range",
      (lock: any) => (lock.surfaces["."].capabilities.openui.source.version = "^1.0.0"),
      'surfaces["."].capabilities.openui.source.version',
      "must be an exact semver version",
    ],
    [
      "an unknown member",
      (lock: any) => (lock.surfaces["."].capabilities.example.tools.echo.descripton = "typo"),
      'surfaces["."].capabilities.example.tools.echo.descripton',
      "is not a property of lockfileVersion 1",
    ],
    [
      "a missing member",
      (lock: any) => delete lock.surfaces["."].capabilities.example.tools.echo.inputSchema,
      'surfaces["."].capabilities.example.tools.echo',
      "the required property 'inputSchema' is missing",
    ],
    [
      "a bad surface id",
      (lock: any) => (lock.surfaces["agents/x"] = { capabilities: {} }),
      "surfaces",
      "has the key 'agents/x', which is not a surface id",
    ],
    [
      "a disabled tool with other members",
      (lock: any) => (lock.surfaces["."].capabilities.example.tools.bash = { disabled: true, description: "x" }),
      'surfaces["."].capabilities.example.tools.bash.description',
      "is not a property of lockfileVersion 1",
    ],
    ["lockfileVersion 0", (lock: any) => (lock.lockfileVersion = 0), "lockfileVersion", "must be 1"],
  ])("refuses %s as invalid, at the offending property", (_name, mutate, where, words) => {
    const text = edit(mutate);
    const file = lockAt(text);
    const result = readLockfile(file);
    expect(result.kind).toBe("invalid");
    if (result.kind !== "invalid") return;
    expect(result.diagnostic.code).toBe("AL6006");
    expect(result.diagnostic.path).toBe(where);
    expect(result.diagnostic.message).toContain(`${where}: ${words}`);
    expect(result.diagnostic.line).toBeGreaterThan(1);
  });

  it("refuses a newer lockfileVersion with an upgrade hint, whatever its shape", () => {
    const file = lockAt('{\n  "lockfileVersion": 2,\n  "packages": {}\n}\n');
    const result = readLockfile(file);
    expect(result.kind).toBe("unsupported-version");
    if (result.kind !== "unsupported-version") return;
    expect(result.version).toBe(2);
    expect(result.diagnostic).toMatchObject({
      code: "AL6007",
      line: 2,
      path: "lockfileVersion",
      message: "plugins.lock has lockfileVersion 2, but this assembly-line understands lockfileVersion 1 only.",
    });
    expect(result.diagnostic.hint).toBe("Use the assembly-line version that wrote it (or a newer one): this one only understands lockfileVersion 1. plugins.lock was left unchanged.");
  });
});

describe("readLockfile with knownReadable (a lock known by its bytes' digest, issue 14 item 4)", () => {
  it("reads known bytes as ok without checking them, parsing the lock only when asked, to what the checked reading gives", () => {
    const text = serializeLockfile(sampleLock());
    const file = lockAt(text);
    const checked = readLockfile(file);
    let asked = 0;
    const known = readLockfile(file, { knownReadable: (bytes) => (asked++, Buffer.from(bytes).toString("utf8") === text) });
    expect(asked).toBe(1);
    expect(known.kind).toBe("ok");
    if (known.kind !== "ok" || checked.kind !== "ok") return;
    expect(known.text).toBe(checked.text);
    expect(Buffer.from(known.bytes).equals(Buffer.from(checked.bytes))).toBe(true);
    expect(known.invalidUtf8).toBe(checked.invalidUtf8);
    expect(known.lock).toEqual(checked.lock);
    expect(known.lock).toBe(known.lock); // parsed once
  });

  it("checks bytes it is not told are known: a damaged lock is still reported", () => {
    const file = lockAt(edit((lock) => (lock.unexpected = true)));
    expect(readLockfile(file, { knownReadable: () => false }).kind).toBe("invalid");
    // (What knownReadable says is trusted: the caller asks it only of bytes it knows by their digest.)
    expect(readLockfile(file, { knownReadable: () => true }).kind).toBe("ok");
    expect(readLockfile(path.join(tempDir(), "plugins.lock"), { knownReadable: () => true })).toEqual({ kind: "missing" });
  });
});
