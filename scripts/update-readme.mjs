/**
 * `npm run docs`: rewrites the generated sections of README.md (the diagnostic codes table)
 * from the built catalog. Run `npm run build` first (the `docs` script does).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { CODES_START, CODES_END, renderCodesMarkdown } = await import(pathToFileURL(path.join(repo, "dist/diagnostics/catalog/docs.js")).href);
const readmePath = path.join(repo, "README.md");
const readme = fs.readFileSync(readmePath, "utf8");
const start = readme.indexOf(CODES_START);
const end = readme.indexOf(CODES_END);
if (start < 0 || end < start) throw new Error(`README.md has no ${CODES_START} … ${CODES_END} section`);
const next = `${readme.slice(0, start + CODES_START.length)}\n\n${renderCodesMarkdown()}\n${readme.slice(end)}`;
if (next !== readme) {
  fs.writeFileSync(readmePath, next);
  console.log("README.md: diagnostic codes updated");
} else console.log("README.md: up to date");
