/**
 * The floor for the compile benchmark (issue 2 "Measure"): read every file a compile reads in
 * a generated agent and parse each TypeScript file with `ts.createSourceFile`, nothing else.
 *
 * TypeScript is loaded with `require`, as the compiler loads it: an ES-module `import` of the
 * 9 MB CommonJS file makes Node scan it for its exports first, about 0.7 s of CPU that is not
 * parsing (issue 14 measured its 1.30 s floor that way; `--esm-import` reproduces it).
 * Usage: node bench/floor-parse.mjs <agentDir> [--esm-import]
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";

const ts = process.argv.includes("--esm-import") ? (await import("typescript")).default : createRequire(import.meta.url)("typescript");

const root = path.resolve(process.argv.slice(2).find((arg) => !arg.startsWith("--")) ?? ".");
let parsed = 0;
let bytes = 0;
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== ".assemblyline") walk(full);
      continue;
    }
    const text = fs.readFileSync(full, "utf8");
    bytes += text.length;
    if (/\.(m?ts|m?js)$/.test(entry.name)) {
      ts.createSourceFile(full, text, ts.ScriptTarget.Latest);
      parsed++;
    }
  }
};
walk(root);
if (process.env.BENCH_VERBOSE) console.log(`parsed ${parsed} files, ${bytes} characters`);
