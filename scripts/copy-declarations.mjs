/**
 * Part of `npm run build`, after the declarations (`build-dist.mjs`): tsc does not emit hand-written `.d.ts` inputs, and it writes a
 * `/// <reference path>` to one as a path back into the sources
 * (`../../../runtime-min/authoring/assets.d.ts` from `dist/runtime-min/authoring/index.d.ts`),
 * which a published package does not ship (`files` is `dist`, `schemas`, …), so an installed
 * package's types broke with TS6053 and every asset import became TS2307 (issue 13 item 3).
 *
 * So, for every declaration file under `dist/`: each referenced `.d.ts` that lies in the
 * sources is copied to the same place under `dist/`, and the reference is rewritten to that
 * copy. The build fails when a reference still points outside `dist/` or at nothing.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(repo, "dist");
const REFERENCE = /^(\/\/\/\s*<reference\s+path=")([^"]+)(".*)$/gm;

const inside = (dir, file) => {
  const relative = path.relative(dir, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
};

const problems = [];
for (const entry of fs.readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
  const file = path.join(entry.parentPath, entry.name);
  const text = fs.readFileSync(file, "utf8");
  const rewritten = text.replace(REFERENCE, (line, start, target, end) => {
    const resolved = path.resolve(path.dirname(file), target);
    if (inside(dist, resolved)) return line;
    if (!inside(repo, resolved) || !fs.existsSync(resolved)) {
      problems.push(`${path.relative(repo, file)} references ${target}, which is outside the repository or missing`);
      return line;
    }
    const copy = path.join(dist, path.relative(repo, resolved));
    fs.mkdirSync(path.dirname(copy), { recursive: true });
    fs.copyFileSync(resolved, copy);
    let relative = path.relative(path.dirname(file), copy).split(path.sep).join("/");
    if (!relative.startsWith(".")) relative = `./${relative}`;
    return `${start}${relative}${end}`;
  });
  if (rewritten !== text) fs.writeFileSync(file, rewritten);
  for (const match of rewritten.matchAll(REFERENCE)) {
    const target = path.resolve(path.dirname(file), match[2]);
    if (!inside(dist, target) || !fs.existsSync(target)) problems.push(`${path.relative(repo, file)} references ${match[2]}, which is not shipped under dist/`);
  }
}
if (problems.length > 0) {
  console.error(`copy-declarations: declaration files reference files the package would not ship:\n  ${[...new Set(problems)].join("\n  ")}`);
  process.exit(1);
}
