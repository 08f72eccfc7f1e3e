import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeHost, type CompilerHost } from "../../common/host.js";
import { classifyContent, normalizeContent } from "../../compiler/plugin-package/file-content.js";
import { hashFileContent, hashPluginDirectory } from "../../compiler/plugin-package/hash-plugin-directory.js";
import ssri from "ssri";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x0d, 0x0a]);

/** A small but realistic plugin: text files with LF, one binary file that contains CRLF bytes. */
function pluginFiles(): Record<string, string | Uint8Array> {
  return {
    "plugin.json": '{\n  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",\n  "name": "example"\n}\n',
    "ai.assemblyline/index.ts": 'export default {\n  tools: {\n    echo: { definition: "./ai.assemblyline/echo.ts" },\n  },\n};\n',
    "ai.assemblyline/echo.ts": 'import { defineTool } from "@assemblyline-agents/core";\n\nexport default defineTool({});\n',
    "skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets.\n---\n\nSay hello.\n",
    "assets/logo.png": PNG,
    "notes/empty.txt": "",
  };
}

function makePlugin(files = pluginFiles()): string {
  const dir = path.join(tempDir(), "example");
  fs.mkdirSync(dir);
  writeFiles(dir, files);
  return dir;
}

function toCrlf(files: Record<string, string | Uint8Array>): Record<string, string | Uint8Array> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === "string" ? v.replace(/\n/g, "\r\n") : v]));
}

describe("classifyContent / normalizeContent", () => {
  it("calls content with a NUL byte or invalid UTF-8 binary, everything else text", () => {
    expect(classifyContent(Buffer.from("plain\r\ntext"))).toBe("text");
    expect(classifyContent(Buffer.from("\uFEFFwith a BOM"))).toBe("text");
    expect(classifyContent(new Uint8Array())).toBe("text");
    expect(classifyContent(Buffer.from("caf\u00e9"))).toBe("text");
    expect(classifyContent(Uint8Array.from([0x61, 0x00, 0x62]))).toBe("binary");
    expect(classifyContent(Uint8Array.from([0x63, 0x61, 0x66, 0xe9]))).toBe("binary"); // Latin-1 "café"
    expect(classifyContent(PNG)).toBe("binary");
  });

  it("calls exactly what a fatal TextDecoder refuses binary (overlong forms, surrogates, past U+10FFFF, cut sequences)", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    const decodes = (bytes: Uint8Array): boolean => {
      try {
        fatal.decode(bytes);
        return true;
      } catch {
        return false;
      }
    };
    const samples = [
      [0xc0, 0xaf], // overlong "/"
      [0xe0, 0x80, 0xaf], // overlong, three bytes
      [0xed, 0xa0, 0x80], // a surrogate (U+D800)
      [0xf4, 0x90, 0x80, 0x80], // U+110000
      [0xe2, 0x82], // cut short
      [0x80], // a lone continuation byte
      [0xf0, 0x9f, 0x98, 0x80], // U+1F600
      [0xef, 0xbb, 0xbf, 0x61], // BOM + "a"
      [0xee, 0x80, 0x80], // U+E000
    ].map((bytes) => Uint8Array.from([0x61, ...bytes, 0x62]));
    for (let n = 0; n < 300; n++) samples.push(Uint8Array.from({ length: 1 + (n % 9) }, (_, i) => (n * 131 + i * 197 + 1) & 0xff || 1));
    for (const bytes of samples) expect(classifyContent(bytes)).toBe(decodes(bytes) ? "text" : "binary");
  });

  it("turns CRLF into LF in text only, and keeps a lone CR", () => {
    expect(Buffer.from(normalizeContent(Buffer.from("a\r\nb\rc\r\n"), "text")).toString()).toBe("a\nb\rc\n");
    expect(normalizeContent(PNG, "binary")).toBe(PNG);
    const plain = Buffer.from("a\nb\n");
    expect(normalizeContent(plain, "text")).toBe(plain);
    expect(Buffer.from(normalizeContent(Buffer.from("\r\n\r\r\n\r"), "text")).toString()).toBe("\n\r\n\r");
  });
});

describe("hashFileContent", () => {
  it("gives each file the integrity ssri gives its hashed content (node:crypto directly, issue 14 item 1)", () => {
    const samples: Uint8Array[] = [new Uint8Array(0), PNG, Buffer.from("text\r\nwith CRLF\n", "utf8"), Buffer.from("é ✓ 😀", "utf8")];
    for (let n = 1; n < 400; n += 37) samples.push(Uint8Array.from({ length: n * 13 }, (_, i) => (i * 7919 + n) & 0xff));
    // A view into a larger buffer hashes only its own bytes.
    const larger = Buffer.from("xxabcxx");
    samples.push(new Uint8Array(larger.buffer, larger.byteOffset + 2, 3));
    for (const bytes of samples) {
      for (const name of ["a.txt", "a.png"]) {
        const hashed = hashFileContent(name, bytes);
        const content = normalizeContent(bytes, hashed.kind);
        expect(hashed.integrity).toBe(ssri.fromData(Buffer.from(content.buffer, content.byteOffset, content.byteLength), { algorithms: ["sha512"] }).toString());
      }
    }
  });
});

describe("hashPluginDirectory", () => {
  it("gives the same integrity for the same plugin in two directories", () => {
    const a = hashPluginDirectory(makePlugin());
    const b = hashPluginDirectory(makePlugin());
    expect(a.diagnostics).toEqual([]);
    expect(a.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    expect(b.integrity).toBe(a.integrity);
    expect(a.files.map((f) => f.path)).toEqual([
      "ai.assemblyline/echo.ts",
      "ai.assemblyline/index.ts",
      "assets/logo.png",
      "notes/empty.txt",
      "plugin.json",
      "skills/greet/SKILL.md",
    ]);
    expect(a.files.find((f) => f.path === "assets/logo.png")?.kind).toBe("binary");
    expect(a.files.find((f) => f.path === "notes/empty.txt")).toMatchObject({ kind: "text", size: 0 });
  });

  it("ignores CRLF in text files but not in binary files", () => {
    const lf = hashPluginDirectory(makePlugin());
    const crlf = hashPluginDirectory(makePlugin(toCrlf(pluginFiles())));
    expect(crlf.integrity).toBe(lf.integrity);
    const binaryChanged = { ...pluginFiles(), "assets/logo.png": Buffer.from(Buffer.from(PNG).toString("latin1").replace(/\r\n/g, "\n"), "latin1") };
    expect(hashPluginDirectory(makePlugin(binaryChanged)).integrity).not.toBe(lf.integrity);
  });

  it("ignores modes, mtimes and readdir order", () => {
    const dir = makePlugin();
    const before = hashPluginDirectory(dir).integrity;
    fs.chmodSync(path.join(dir, "plugin.json"), 0o755);
    fs.utimesSync(path.join(dir, "ai.assemblyline/echo.ts"), new Date("2001-01-01"), new Date("2001-01-01"));
    expect(hashPluginDirectory(dir).integrity).toBe(before);
    const node = createNodeHost();
    const reversed: CompilerHost = { ...node, readDirectory: (p) => node.readDirectory(p)?.slice().reverse() };
    expect(hashPluginDirectory(dir, reversed).integrity).toBe(before);
  });

  it("leaves out .git, node_modules, .DS_Store and Thumbs.db at any depth, and empty directories", () => {
    const dir = makePlugin();
    const before = hashPluginDirectory(dir).integrity;
    writeFiles(dir, {
      ".git/HEAD": "ref: refs/heads/main\n",
      "node_modules/dep/index.js": "module.exports = 1;\n",
      ".DS_Store": Uint8Array.from([0, 0, 0, 1]),
      "assets/Thumbs.db": Uint8Array.from([1, 2, 3]),
      "skills/node_modules/x.js": "x",
    });
    fs.mkdirSync(path.join(dir, "empty/deeper"), { recursive: true });
    expect(hashPluginDirectory(dir).integrity).toBe(before);
    writeFiles(dir, { ".gitignore": "node_modules\n" });
    expect(hashPluginDirectory(dir).integrity).not.toBe(before);
  });

  it("changes when a file is deleted, renamed, emptied or added (an empty file counts)", () => {
    const base = hashPluginDirectory(makePlugin()).integrity;
    const without = pluginFiles();
    delete without["skills/greet/SKILL.md"];
    expect(hashPluginDirectory(makePlugin(without)).integrity).not.toBe(base);
    const renamed = { ...without, "skills/greet/skill.md": pluginFiles()["skills/greet/SKILL.md"]! };
    expect(hashPluginDirectory(makePlugin(renamed)).integrity).not.toBe(base);
    expect(hashPluginDirectory(makePlugin({ ...pluginFiles(), "plugin.json": "" })).integrity).not.toBe(base);
    expect(hashPluginDirectory(makePlugin({ ...pluginFiles(), "extra/empty": "" })).integrity).not.toBe(base);
  });

  it("hashes a symlink inside the root as what it points to", () => {
    const copy = makePlugin({ ...pluginFiles(), "docs/logo.png": PNG, "docs/greet/SKILL.md": pluginFiles()["skills/greet/SKILL.md"]! });
    const linked = makePlugin();
    fs.mkdirSync(path.join(linked, "docs"));
    fs.symlinkSync("../assets/logo.png", path.join(linked, "docs/logo.png"));
    fs.symlinkSync("../skills/greet", path.join(linked, "docs/greet"));
    const result = hashPluginDirectory(linked);
    expect(result.diagnostics).toEqual([]);
    expect(result.integrity).toBe(hashPluginDirectory(copy).integrity);
  });

  it("hashes a plugin reached through a symlinked root (pnpm) like the real directory", () => {
    const dir = makePlugin();
    const link = path.join(tempDir(), "linked-plugin");
    fs.symlinkSync(dir, link);
    expect(hashPluginDirectory(link).integrity).toBe(hashPluginDirectory(dir).integrity);
  });

  it("reports a symlink that escapes the root, without crashing, and leaves it out", () => {
    const dir = makePlugin();
    const outside = path.join(path.dirname(dir), "secret.txt");
    fs.writeFileSync(outside, "secret\n");
    fs.symlinkSync("../secret.txt", path.join(dir, "leak.txt"));
    const result = hashPluginDirectory(dir);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({
        code: "AL6102",
        severity: "error",
        file: path.join(dir, "leak.txt"),
        line: 1,
        column: 1,
        message: "The symlink 'leak.txt' points outside the plugin directory (to '../secret.txt').",
        hint: expect.stringContaining("copy"),
      }),
    ]);
    expect(result.files.map((f) => f.path)).not.toContain("leak.txt");
  });

  it("reports symlink cycles and broken symlinks", () => {
    const dir = makePlugin();
    fs.symlinkSync("..", path.join(dir, "skills/up"));
    fs.symlinkSync("missing.ts", path.join(dir, "ai.assemblyline/gone.ts"));
    fs.symlinkSync("loop-b", path.join(dir, "loop-a"));
    fs.symlinkSync("loop-a", path.join(dir, "loop-b"));
    const result = hashPluginDirectory(dir);
    const summary = result.diagnostics.map((d) => [d.code, path.relative(dir, d.file), d.line, d.column]);
    expect(summary).toEqual([
      ["AL6104", "ai.assemblyline/gone.ts", 1, 1],
      ["AL6104", "loop-a", 1, 1],
      ["AL6104", "loop-b", 1, 1],
      ["AL6103", "skills/up", 1, 1],
    ]);
    // A linked folder is placed on the folder, without a line and column (helper-88).
    expect(result.diagnostics[3]!.file).toBe(`${path.join(dir, "skills/up")}/`);
    expect(result.diagnostics[0]!.file).toBe(path.join(dir, "ai.assemblyline/gone.ts"));
    expect(result.diagnostics[3]!.message).toBe("The symlink 'skills/up' leads back to '.', which contains it, so the plugin's files never end.");
    expect(result.diagnostics.every((d) => d.hint)).toBe(true);
  });

  it("names files in Unicode NFC, so a decomposed name hashes like a composed one", () => {
    const composed = hashPluginDirectory(makePlugin({ ...pluginFiles(), "caf\u00e9.md": "x\n" }));
    const decomposed = hashPluginDirectory(makePlugin({ ...pluginFiles(), "cafe\u0301.md": "x\n" }));
    expect(decomposed.integrity).toBe(composed.integrity);
    expect(decomposed.files.map((f) => f.path)).toContain("caf\u00e9.md");
  });

  it("reports two names that are equal once in NFC", () => {
    const result = hashPluginDirectory(makePlugin({ ...pluginFiles(), "caf\u00e9.md": "a\n", "cafe\u0301.md": "b\n" }));
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL6106"]);
  });

  it("sorts paths by UTF-8 bytes, not UTF-16 code units", () => {
    // U+FF21 (3 UTF-8 bytes, EF BC A1) sorts before U+1F600 (F0 …) by bytes, after it by code units.
    const result = hashPluginDirectory(makePlugin({ "\u{1F600}.txt": "a", "\uFF21.txt": "b" }));
    expect(result.files.map((f) => f.path)).toEqual(["\uFF21.txt", "\u{1F600}.txt"]);
  });

  it("reports a missing directory, an unreadable file and a special file", () => {
    const missing = hashPluginDirectory(path.join(tempDir(), "nope"));
    expect(missing.diagnostics.map((d) => d.code)).toEqual(["AL6101"]);
    const dir = makePlugin();
    const node = createNodeHost();
    const denied: CompilerHost = { ...node, readBytes: (p) => (p.endsWith("plugin.json") ? undefined : node.readBytes(p)) };
    expect(hashPluginDirectory(dir, denied).diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["AL6105", "'plugin.json' could not be read, so the plugin's integrity cannot cover it."],
    ]);
    const fifo = spawnSync("mkfifo", [path.join(dir, "pipe")]);
    expect(fifo.status).toBe(0);
    const result = hashPluginDirectory(dir);
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([["AL6107", "warning"]]);
  });
});
