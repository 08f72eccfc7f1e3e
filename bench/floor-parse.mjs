/**
 * The floor for the compile benchmark (issue 2 "Measure"): read every file a compile reads in
 * a generated agent and parse each TypeScript file with `ts.createSourceFile`, nothing else.
 * Usage: node bench/floor-parse.mjs <agentDir>
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

const root = path.resolve(process.argv[2] ?? ".");
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
