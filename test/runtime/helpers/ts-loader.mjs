// A tiny Node module hook for runtime tests that start separate host processes from the
// TypeScript sources: `node --import ./ts-loader.mjs entry.ts`. A relative `./x.js` import
// resolves to `./x.ts` when only the TypeScript file exists, and `.ts` files are transpiled with
// esbuild. Node 20 cannot run TypeScript by itself.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
const esbuild = await import(${JSON.stringify(import.meta.resolve("esbuild"))});
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
    const source = await readFile(fileURLToPath(url), "utf8");
    const { code } = await esbuild.transform(source, { loader: "ts", format: "esm", target: "node20", sourcefile: fileURLToPath(url) });
    return { format: "module", source: code, shortCircuit: true };
  }
  return next(url, context);
}
`),
);
