/**
 * Test helper: copies an agent folder (e.g. `examples/support-agent`) into a fresh temp
 * directory, leaving out build output, so a test can change it freely.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** Copies `source` to a new temp dir and returns the copy's absolute path. */
export function copyAgent(source: string, prefix = "al-agent-"): string {
  const target = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix))), path.basename(source));
  fs.cpSync(source, target, { recursive: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) && !from.includes(`${path.sep}node_modules`) });
  return target;
}

/** Rewrites every text file under `dir` with CRLF line ends (as a Windows checkout would). */
export function convertToCrlf(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, text.replace(/\r?\n/g, "\r\n"));
  }
}
