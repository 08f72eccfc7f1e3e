/**
 * `.bin` and `.wasm` files are data (seed "Execution Model": they import as `Uint8Array`, the
 * file's exact bytes), so the plugin hash takes their raw bytes even when they look like UTF-8
 * text: a CR LF inside them is content, and changing it changes the integrity, exactly as it
 * changes the bundle that imports them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { contentKindOf, RAW_BYTES_EXTENSIONS } from "../../compiler/plugin-package/file-content.js";
import { hashPluginDirectory } from "../../compiler/plugin-package/hash-plugin-directory.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

function plugin(files: Record<string, string | Uint8Array>): string {
  const dir = path.join(tempDir(), "data-plugin");
  fs.mkdirSync(dir);
  writeFiles(dir, { "plugin.json": '{"name":"data-plugin"}\n', ...files });
  return dir;
}

describe("binary-extension files are hashed as raw bytes", () => {
  it.each([["data.bin"], ["parser.wasm"], ["nested/UPPER.BIN"], ["Mixed.Wasm"]])("%s: CR LF and LF give different integrities", (name) => {
    const crlf = hashPluginDirectory(plugin({ [name]: "A\r\nB" }));
    const lf = hashPluginDirectory(plugin({ [name]: "A\nB" }));
    expect(crlf.diagnostics).toEqual([]);
    expect(crlf.integrity).not.toBe(lf.integrity);
    expect(crlf.files.find((f) => f.path === name)).toMatchObject({ kind: "binary", size: 4 });
  });

  it("a text file with the same content still ignores CR LF", () => {
    const crlf = hashPluginDirectory(plugin({ "data.txt": "A\r\nB" }));
    const lf = hashPluginDirectory(plugin({ "data.txt": "A\nB" }));
    expect(crlf.integrity).toBe(lf.integrity);
    expect(crlf.files.find((f) => f.path === "data.txt")).toMatchObject({ kind: "text", size: 3 });
  });

  it("only the name's last extension counts (data.bin.txt is text, data.txt.bin is binary)", () => {
    expect(contentKindOf("data.bin.txt", Buffer.from("A\r\nB"))).toBe("text");
    expect(contentKindOf("data.txt.bin", Buffer.from("A\r\nB"))).toBe("binary");
    expect(contentKindOf("bin", Buffer.from("A\r\nB"))).toBe("text");
    expect(contentKindOf("dir.bin/notes.txt", Buffer.from("A\r\nB"))).toBe("text");
    expect(contentKindOf("x.bin", new Uint8Array())).toBe("binary");
  });

  it("the list is the seed's Uint8Array extensions", () => {
    expect(RAW_BYTES_EXTENSIONS).toEqual([".bin", ".wasm"]);
  });
});
