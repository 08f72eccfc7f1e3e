/**
 * Test helper: copies an agent folder (e.g. `examples/support-agent`) into a fresh temp
 * directory, leaving out build output, so a test can change it freely; and turns a copy into
 * a Windows-style CRLF checkout.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tempDir } from "./temp-tree.js";

/** Copies `source` to `<new temp dir>/<its base name>` (without `.assemblyline/` and `node_modules/`) and returns the copy's absolute path. */
export function copyAgent(source: string, prefix = "al-agent-"): string {
  const target = path.join(tempDir(prefix), path.basename(source));
  fs.cpSync(source, target, { recursive: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) && !from.includes(`${path.sep}node_modules`) });
  return target;
}

/**
 * Rewrites every text file under `dir` (valid UTF-8 without NUL, with at least one line end)
 * with CRLF line ends, as a Windows checkout would; binary files are left alone. Returns how
 * many files it rewrote.
 *
 * `keep` lists files (POSIX paths relative to `dir`) left exactly as they are, as a
 * `.gitattributes` `-text` entry keeps Git from converting them: files a tool imports as exact
 * bytes (`Uint8Array`, data URL) although they look like text.
 */
export function convertToCrlf(dir: string, options: { readonly keep?: readonly string[] } = {}): number {
  const keep = new Set(options.keep ?? []);
  let converted = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (keep.has(path.relative(dir, file).split(path.sep).join("/"))) continue;
    const text = readText(file);
    if (text === undefined || !text.includes("\n")) continue;
    fs.writeFileSync(file, text.replace(/\r?\n/g, "\r\n"));
    converted++;
  }
  return converted;
}

/** The file's text, or `undefined` when it holds a NUL byte or is not valid UTF-8. */
function readText(file: string): string | undefined {
  const bytes = fs.readFileSync(file);
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
