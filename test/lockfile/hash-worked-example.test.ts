import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { hashPluginDirectory } from "../../compiler/plugin-package/hash-plugin-directory.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

const readme = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../compiler/plugin-package/README-hashing.md"), "utf8");

/** The plugin of the README's worked example, as checked out on Windows (CRLF) or Linux (LF). */
function helloPlugin(lineEnd: "\r\n" | "\n"): string {
  const dir = path.join(tempDir(), "hello");
  writeFiles(dir, {
    "plugin.json": `{"name":"hello"}${lineEnd}`,
    "ai.assemblyline/index.ts": "export default { tools: {} };\n",
    "data.bin": Uint8Array.from([0x41, 0x0d, 0x0a, 0x42]),
    "icon.png": Uint8Array.from([0x00, 0x0d, 0x0a, 0xff]),
    ".DS_Store": "anything",
  });
  return dir;
}

function documented(): { files: Map<string, string>; integrity: string } {
  const files = new Map<string, string>();
  for (const match of readme.matchAll(/^(\S+)[ \t]+(sha512-[A-Za-z0-9+/]{86}==)$/gm)) files.set(match[1]!, match[2]!);
  const integrity = /plugin's integrity is\s+```text\n(sha512-\S+)\n```/.exec(readme)?.[1];
  if (!integrity) throw new Error("the README lost its final integrity");
  return { files, integrity };
}

describe("README-hashing.md worked example", () => {
  it("reproduces every documented number, for the CRLF and the LF checkout", () => {
    const doc = documented();
    expect([...doc.files.keys()]).toEqual(["ai.assemblyline/index.ts", "data.bin", "icon.png", "plugin.json"]);
    for (const lineEnd of ["\r\n", "\n"] as const) {
      const result = hashPluginDirectory(helloPlugin(lineEnd));
      expect(result.diagnostics).toEqual([]);
      expect(new Map(result.files.map((f) => [f.path, f.integrity]))).toEqual(doc.files);
      expect(result.files.map((f) => [f.path, f.kind, f.size])).toEqual([
        ["ai.assemblyline/index.ts", "text", 30],
        ["data.bin", "binary", 4],
        ["icon.png", "binary", 4],
        ["plugin.json", "text", 17],
      ]);
      expect(result.integrity).toBe(doc.integrity);
    }
  });

  it("matches the documented procedure computed independently with node:crypto", () => {
    const sri = (bytes: Buffer | string) => `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
    const lines = [
      `ai.assemblyline/index.ts\0${sri("export default { tools: {} };\n")}\n`,
      `data.bin\0${sri(Buffer.from([0x41, 0x0d, 0x0a, 0x42]))}\n`,
      `icon.png\0${sri(Buffer.from([0x00, 0x0d, 0x0a, 0xff]))}\n`,
      `plugin.json\0${sri('{"name":"hello"}\n')}\n`,
    ].join("");
    expect(sri(Buffer.from(lines, "utf8"))).toBe(documented().integrity);
    // and the README shows these exact lines
    for (const line of lines.split("\n").filter(Boolean)) expect(readme).toContain(line.replace("\0", "\\0") + "\\n");
  });
});
