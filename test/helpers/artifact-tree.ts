/**
 * Test helpers for comparing artifacts: the tree of a folder, and a cold compile of a copy of an
 * agent (no `.assemblyline/`, no caches), what an incremental compile's outputs must equal.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { tempDir } from "./temp-tree.js";

/**
 * Every entry under `dir`, sorted: folders end in `/` (empty folders included: the artifact's
 * shape); with `hashes`, links end in ` ->` and files carry the SHA-256 of their bytes.
 */
export function treeOf(dir: string, options: { readonly hashes?: boolean } = {}): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      const name = path.relative(dir, file).split(path.sep).join("/");
      if (entry.isDirectory()) return `${name}/`;
      if (options.hashes !== true) return name;
      if (entry.isSymbolicLink()) return `${name} ->`;
      return `${name}: ${createHash("sha256").update(fs.readFileSync(file)).digest("hex")}`;
    })
    .sort();
}

/**
 * Copies the agent at `root` without its `.assemblyline/` into a new temporary folder (named
 * after `prefix`) and compiles the copy cold (`cache: false`), expecting success; returns the
 * copy's root.
 */
export async function coldCompiledCopy(root: string, prefix: string): Promise<string> {
  const copy = path.join(tempDir(prefix), "agent");
  fs.cpSync(root, copy, { recursive: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) });
  const result = await compileAgent({ root: copy, cache: false });
  expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
  return copy;
}
