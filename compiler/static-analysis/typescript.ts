/**
 * The TypeScript compiler API embedded in ts-morph, loaded on first use.
 *
 * The static analysis only parses (`ts.createSourceFile`; no `Project`, no program, no type
 * checker), so it loads TypeScript alone: the copy ts-morph embeds
 * (`@ts-morph/common/dist/typescript.js`, resolved from ts-morph's own folder), the very
 * module `require("ts-morph").ts` is, without ts-morph's 4 MB of wrappers around it (about
 * 0.1 s of CPU saved per compile, issue 14 item 1). TypeScript is still the largest module the
 * compiler loads; a compile whose analyses all come from the persistent cache
 * (`analysis-cache.ts`) never parses, so it never pays for it. Every module of the static
 * analysis imports `ts` from here: `ts` is a live binding that {@link loadTypeScript} fills
 * (the source store calls it before the first parse, and nothing reads `ts` before a module
 * was parsed), and the `ts` namespace below gives the node types the analysis uses.
 * `require` (not `import`) loads the CommonJS module: it skips the ES-module loader's scan of
 * its exports.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as TsMorph from "ts-morph";

/** The `ts` namespace of ts-morph; assigned by {@link loadTypeScript}. */
export let ts: typeof TsMorph.ts = undefined as never;

/** The compiler node types the static analysis uses (aliases of ts-morph's `ts.*`). */
// A namespace with only types merges with the `ts` binding above, so `ts.Node` keeps working.
export declare namespace ts {
  type ArrayLiteralExpression = TsMorph.ts.ArrayLiteralExpression;
  type AsExpression = TsMorph.ts.AsExpression;
  type BindingName = TsMorph.ts.BindingName;
  type Block = TsMorph.ts.Block;
  type CallExpression = TsMorph.ts.CallExpression;
  type ClassDeclaration = TsMorph.ts.ClassDeclaration;
  type DiagnosticWithLocation = TsMorph.ts.DiagnosticWithLocation;
  type ElementAccessExpression = TsMorph.ts.ElementAccessExpression;
  type ExportAssignment = TsMorph.ts.ExportAssignment;
  type ExportDeclaration = TsMorph.ts.ExportDeclaration;
  type Expression = TsMorph.ts.Expression;
  type FunctionDeclaration = TsMorph.ts.FunctionDeclaration;
  type FunctionLikeDeclaration = TsMorph.ts.FunctionLikeDeclaration;
  type Identifier = TsMorph.ts.Identifier;
  type ImportDeclaration = TsMorph.ts.ImportDeclaration;
  type LanguageVariant = TsMorph.ts.LanguageVariant;
  type Node = TsMorph.ts.Node;
  type NodeFlags = TsMorph.ts.NodeFlags;
  type NumericLiteral = TsMorph.ts.NumericLiteral;
  type ObjectLiteralElementLike = TsMorph.ts.ObjectLiteralElementLike;
  type ObjectLiteralExpression = TsMorph.ts.ObjectLiteralExpression;
  type OmittedExpression = TsMorph.ts.OmittedExpression;
  type PrefixUnaryExpression = TsMorph.ts.PrefixUnaryExpression;
  type PropertyAccessExpression = TsMorph.ts.PropertyAccessExpression;
  type ScriptTarget = TsMorph.ts.ScriptTarget;
  type SourceFile = TsMorph.ts.SourceFile;
  type SpreadAssignment = TsMorph.ts.SpreadAssignment;
  type Statement = TsMorph.ts.Statement;
  type StringLiteral = TsMorph.ts.StringLiteral;
  type StringLiteralLike = TsMorph.ts.StringLiteralLike;
  type SyntaxKind = TsMorph.ts.SyntaxKind;
  type VariableDeclaration = TsMorph.ts.VariableDeclaration;
}

/**
 * Set only inside the CLI bundle, by its build (`scripts/build-cli-bundle.mjs`, through esbuild's
 * `define`): where the bundle's minified copy of the TypeScript below lives, relative to this
 * module's own file in `dist/` (its `import.meta.url`), and the size in bytes of the file it was
 * minified from. Outside the bundle (tests, the language server, `tsc`'s `dist/`) it is not defined.
 */
declare const ASSEMBLY_LINE_TYPESCRIPT_COPY: string | undefined;
declare const ASSEMBLY_LINE_TYPESCRIPT_SOURCE_BYTES: number | undefined;

let modulePath: string | undefined;

/**
 * Where the TypeScript that ts-morph embeds lives (`@ts-morph/common/dist/typescript.js`, as
 * ts-morph resolves it), or, inside the CLI bundle, the bundle's minified copy of that very file's
 * parser (`dist/cli-bundle/typescript.cjs`: 1.1 MB instead of 9 MB, read, checked and compiled from
 * the code cache about 90 ms sooner in every process that parses; docs/performance.md, "Ninth
 * round", and the thirteenth round of incremental compiles; what it keeps:
 * scripts/trim-typescript.mjs). The copy is used only while the file it was made from still has the size it had
 * then (an `npm install` that changed ts-morph without a rebuild loads the installed file) and
 * only when it exists. Also part of the analysis cache's toolchain key.
 */
export function typescriptModulePath(): string {
  if (modulePath !== undefined) return modulePath;
  const fromTsMorph = createRequire(createRequire(import.meta.url).resolve("ts-morph"));
  const installed = createRequire(fromTsMorph.resolve("@ts-morph/common")).resolve("./typescript.js");
  const bundled = typeof ASSEMBLY_LINE_TYPESCRIPT_COPY === "string" && typeof ASSEMBLY_LINE_TYPESCRIPT_SOURCE_BYTES === "number";
  const copy = bundled ? minifiedCopyOf(installed, fileURLToPath(new URL(ASSEMBLY_LINE_TYPESCRIPT_COPY, import.meta.url)), ASSEMBLY_LINE_TYPESCRIPT_SOURCE_BYTES) : undefined;
  return (modulePath = copy ?? installed);
}

/**
 * `copy` (the CLI bundle's minified TypeScript) when it is a file and `installed` still has the
 * size, `sourceBytes`, of the file it was made from; `undefined` otherwise (then `installed` is
 * loaded). Never throws. Exported for its test.
 */
export function minifiedCopyOf(installed: string, copy: string, sourceBytes: number): string | undefined {
  try {
    if (fs.statSync(installed).size !== sourceBytes) return undefined;
    return fs.statSync(copy).isFile() ? copy : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this thread loaded TypeScript already (a `compile --watch` after its first compile). */
export function typeScriptLoaded(): boolean {
  return ts !== undefined;
}

/** Loads TypeScript once (synchronously) and fills {@link ts}. */
export function loadTypeScript(): void {
  if (ts !== undefined) return;
  ts = createRequire(import.meta.url)(typescriptModulePath()) as typeof TsMorph.ts;
}
