/**
 * The TypeScript compiler API embedded in ts-morph, loaded on first use.
 *
 * ts-morph (with its TypeScript) is the largest module the compiler loads, about 0.3 s of
 * start-up; a compile whose analyses all come from the persistent cache (`analysis-cache.ts`)
 * never parses, so it never pays for it. Every module of the static analysis imports `ts`
 * from here instead of from "ts-morph": `ts` is a live binding that {@link loadTypeScript}
 * fills (the source store calls it before the first parse, and nothing reads `ts` before a
 * module was parsed), and the `ts` namespace below gives the node types the analysis uses.
 * `require` (not `import`) loads the CommonJS package: it skips the ES-module loader's scan of
 * ts-morph's exports.
 */
import { createRequire } from "node:module";
import type * as TsMorph from "ts-morph";

/** The `ts` namespace of ts-morph; assigned by {@link loadTypeScript}. */
export let ts: typeof TsMorph.ts = undefined as never;

/** ts-morph's `Project` class; assigned by {@link loadTypeScript}. */
export let Project: typeof TsMorph.Project = undefined as never;

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
  type Statement = TsMorph.ts.Statement;
  type StringLiteral = TsMorph.ts.StringLiteral;
  type StringLiteralLike = TsMorph.ts.StringLiteralLike;
  type SyntaxKind = TsMorph.ts.SyntaxKind;
  type VariableDeclaration = TsMorph.ts.VariableDeclaration;
}

/** Loads ts-morph once (synchronously) and fills {@link ts} and {@link Project}. */
export function loadTypeScript(): void {
  if (ts !== undefined) return;
  const tsMorph = createRequire(import.meta.url)("ts-morph") as typeof TsMorph;
  Project = tsMorph.Project;
  ts = tsMorph.ts;
}
