/**
 * Resolves the specifier of a relative import to a file inside the plugin root, as
 * TypeScript's NodeNext resolution would for a module written in TypeScript: `./x.js` may name
 * `x.ts`, `x.mts` or `x.js`; an extensionless path tries the module extensions, JSON and an
 * `index` file. Containment is checked after symlinks are resolved (DESIGN §3: "relative
 * imports … inside the plugin root").
 */
import * as path from "node:path";
import type { AnalysisSession } from "./analysis-session.js";
import { isPathInside as isInside } from "../../common/path-inside.js";

/** Where an import specifier leads. */
export type Resolution =
  | { readonly kind: "module" | "json"; readonly path: string }
  | { readonly kind: "package"; readonly name: string }
  | { readonly kind: "not-found"; readonly tried: readonly string[] }
  | { readonly kind: "outside-root"; readonly shown: string }
  | { readonly kind: "unsupported"; readonly words: string };

const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];
const SPECIFIER_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  ".js": [".ts", ".mts", ".js"],
  ".mjs": [".mts", ".mjs"],
  ".ts": [".ts"],
  ".mts": [".mts"],
  ".json": [".json"],
};

/**
 * Resolves `specifier`, imported by the file `importer`, within the session's plugin root.
 * Every probed path is read through the session, so a file appearing later invalidates the
 * cached result.
 */
export function resolveImport(specifier: string, importer: string, session: AnalysisSession): Resolution {
  if (!isPathSpecifier(specifier)) return { kind: "package", name: packageName(specifier) };
  const base = path.resolve(path.dirname(importer), specifier);
  const lexicalRoot = path.resolve(session.pluginRoot);
  if (!isInside(lexicalRoot, base)) return { kind: "outside-root", shown: toPosix(path.relative(lexicalRoot, base)) };
  const candidates = candidatesFor(base);
  const found = candidates.find((candidate) => session.read(candidate).kind === "file");
  if (found === undefined) {
    return { kind: "not-found", tried: candidates.map((c) => toPosix(path.relative(path.dirname(importer), c))) };
  }
  const real = session.realpath(found) ?? found;
  const realRoot = session.realRoot();
  if (!isInside(realRoot, real)) return { kind: "outside-root", shown: toPosix(path.relative(realRoot, real)) };
  return classify(found);
}

function classify(found: string): Resolution {
  const extension = path.extname(found).toLowerCase();
  if (extension === ".json") return { kind: "json", path: found };
  if (MODULE_EXTENSIONS.includes(extension)) return { kind: "module", path: found };
  if (extension === ".cjs" || extension === ".cts") return { kind: "unsupported", words: "an import of a CommonJS module" };
  return { kind: "unsupported", words: `an import of the non-JSON file '${path.basename(found)}'` };
}

function candidatesFor(base: string): string[] {
  const extension = path.extname(base).toLowerCase();
  const mapped = SPECIFIER_EXTENSIONS[extension];
  if (mapped) {
    const stem = base.slice(0, base.length - extension.length);
    return mapped.map((e) => stem + e);
  }
  const extensionless = [...MODULE_EXTENSIONS, ".json"].map((e) => base + e);
  const index = MODULE_EXTENSIONS.map((e) => path.join(base, `index${e}`));
  return extension === "" ? [...extensionless, ...index] : [base, ...extensionless, ...index];
}

function isPathSpecifier(specifier: string): boolean {
  return specifier === "." || specifier === ".." || specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/");
}

function packageName(specifier: string): string {
  if (specifier.startsWith("node:")) return specifier;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}


function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}
