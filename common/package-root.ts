/**
 * Locates files shipped with this package (`schemas/`, `runtime-min/`) both when running from
 * source (vitest, `compiler/*.ts`) and from the compiled `dist/` tree.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

/** Absolute path of the package root (the folder with this toolchain's package.json). */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest) && fs.existsSync(path.join(dir, "schemas"))) return (cached = dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`assembly-line: cannot find the package root above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** Absolute path of a file shipped with the package, e.g. `packagePath("schemas", "x.json")`. */
export function packagePath(...segments: string[]): string {
  return path.join(packageRoot(), ...segments);
}
