/**
 * Shared helpers of the packaging tests: fixture copies in temp directories, tool lists, and
 * running a bundle in a separate Node process (the way runtime-min runs it).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { PackagingTool } from "../../packaging/index.js";

/** Absolute path of `test/fixtures/packaging/`. */
export const FIXTURES = fileURLToPath(new URL("../fixtures/packaging/", import.meta.url));

const temporaryRoots: string[] = [];

/** A fresh temporary directory (removed by {@link removeTemporaryDirectories}). */
export function temporaryDirectory(prefix = "al-packaging-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  temporaryRoots.push(dir);
  return dir;
}

/** Removes every directory made by {@link temporaryDirectory}. */
export function removeTemporaryDirectories(): void {
  for (const dir of temporaryRoots.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Copies fixture `name` to `<parent>/<...nested>/agent` and returns that agent root. */
export function copyFixture(name: string, parent = temporaryDirectory(), ...nested: string[]): string {
  const root = path.join(parent, ...nested, "agent");
  fs.cpSync(path.join(FIXTURES, name), root, { recursive: true });
  return root;
}

/** Writes a map of files (root-relative POSIX path → text or bytes) under `root`. */
export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [file, contents] of Object.entries(files)) {
    const target = path.join(root, ...file.split("/"));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, contents);
  }
}

/** Rewrites every text file under `root` (valid UTF-8 without NUL) with CRLF line ends, as a Windows checkout would. */
export function convertToCrlf(root: string): number {
  let converted = 0;
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    const bytes = fs.readFileSync(file);
    if (bytes.includes(0)) continue;
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    if (!text.includes("\n")) continue;
    fs.writeFileSync(file, text.replace(/\r?\n/g, "\r\n"));
    converted++;
  }
  return converted;
}

/** A root-surface tool of plugin `plugins/<plugin>/` whose definition is `definition` (plugin-relative). */
export function tool(root: string, plugin: string, toolName: string, definition: string, overrides: Partial<PackagingTool> = {}): PackagingTool {
  const pluginRoot = path.join(root, "plugins", plugin);
  return {
    surfaceId: ".",
    capability: plugin,
    toolName,
    pluginRoot,
    definitionFile: path.join(pluginRoot, ...definition.split("/")),
    ...overrides,
  };
}

/** Writes bundles under `dir` (artifact-relative paths) and returns `dir`. */
export function writeBundles(dir: string, bundles: ReadonlyMap<string, Uint8Array>): string {
  for (const [file, bytes] of bundles) {
    const target = path.join(dir, ...file.split("/"));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, bytes);
  }
  return dir;
}

/**
 * Imports a bundle in a child `node` process and returns what `script` prints as JSON.
 * `script` is the body of an async ES module that sees the namespace as `mod`.
 */
export function runInNode(bundleFile: string, script: string): unknown {
  const program = `const mod = await import(${JSON.stringify(pathToFileURL(bundleFile).href)});\n${script}`;
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
  return JSON.parse(output);
}
