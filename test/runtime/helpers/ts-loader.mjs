// A tiny Node module hook for runtime tests that start separate host processes from the
// TypeScript sources: `node --import ./ts-loader.mjs entry.ts`. A relative `./x.js` import
// resolves to `./x.ts` when only the TypeScript file exists, and `.ts` files are transpiled with
// esbuild. Node 20 cannot run TypeScript by itself.
//
// Transpiled files are kept in `node_modules/.cache/al-ts-loader/`, named by a SHA-256 of the
// esbuild version, the transform options, the file's path and its exact source text, so a host
// process reuses what an earlier one transpiled and starts no esbuild service when every file
// is cached; a changed source (or esbuild) is transpiled again. Writes go to a temporary file
// renamed into place, so processes started side by side never read half a file.
import { register } from "node:module";
import { fileURLToPath } from "node:url";

register(
  "data:text/javascript," +
    encodeURIComponent(`
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
const esbuildUrl = ${JSON.stringify(import.meta.resolve("esbuild"))};
const esbuildVersion = JSON.parse(readFileSync(new URL("../package.json", esbuildUrl), "utf8")).version;
const cacheDir = ${JSON.stringify(fileURLToPath(new URL("../../../node_modules/.cache/al-ts-loader/", import.meta.url)))};
let esbuild;
export async function resolve(specifier, context, next) {
  if ((specifier.startsWith("./") || specifier.startsWith("../")) && specifier.endsWith(".js") && context.parentURL?.startsWith("file:")) {
    const candidate = new URL(specifier.slice(0, -3) + ".ts", context.parentURL);
    if (!existsSync(fileURLToPath(new URL(specifier, context.parentURL))) && existsSync(fileURLToPath(candidate))) {
      return { url: candidate.href, shortCircuit: true, format: "module" };
    }
  }
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url.startsWith("file:") && url.endsWith(".ts")) {
    const file = fileURLToPath(url);
    const source = await readFile(file, "utf8");
    const options = { loader: "ts", format: "esm", target: "node20", sourcefile: file };
    const key = createHash("sha256").update(JSON.stringify([esbuildVersion, options])).update("\\0").update(source).digest("hex");
    const cached = join(cacheDir, key + ".mjs");
    let code;
    try {
      code = readFileSync(cached, "utf8");
    } catch {
      esbuild ??= await import(esbuildUrl);
      code = (await esbuild.transform(source, options)).code;
      try {
        mkdirSync(cacheDir, { recursive: true });
        const temporary = cached + "." + process.pid + "." + Math.random().toString(36).slice(2) + ".tmp";
        writeFileSync(temporary, code);
        renameSync(temporary, cached);
      } catch {
        // A cache that cannot be written only costs the next process a transform.
      }
    }
    return { format: "module", source: code, shortCircuit: true };
  }
  return next(url, context);
}
`),
);
