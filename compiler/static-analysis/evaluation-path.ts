/**
 * The property path of a value under static evaluation, and the evaluator services the
 * reference resolver uses (DESIGN §3: diagnostics name the property path).
 */
import type { RelatedLocation } from "../../diagnostics/diagnostic.js";
import type { DiagnosticMessage } from "../../diagnostics/catalog/index.js";
import type { AnalysisSession, DiagnosticSink } from "./analysis-session.js";
import type { ParsedSource } from "./core-imports.js";
import type { Located, Span } from "./located-tree.js";
import type { ts } from "./typescript.js";

/** The property path of the value being evaluated, as a linked list (cheap to extend). */
export interface PathLink {
  readonly parent: PathLink | undefined;
  readonly key: string | number;
}

/** Extends a path by one key or index. */
export function childPath(parent: PathLink | undefined, key: string | number): PathLink {
  return { parent, key };
}

/** The segments of a path, root first. */
export function pathSegments(link: PathLink | undefined): (string | number)[] {
  const out: (string | number)[] = [];
  for (let current = link; current; current = current.parent) out.push(current.key);
  return out.reverse();
}

/** Optional parts of a rejection. */
export interface RejectDetails {
  readonly hint?: string;
  readonly related?: readonly RelatedLocation[];
}

/**
 * What the reference resolver needs of the evaluator that owns it: evaluating an expression
 * (a `const` initializer or an imported value), reporting, and the session. The evaluator
 * (`static-evaluator.ts`) implements it; declaring it here keeps the two modules acyclic.
 */
export interface EvaluatorServices {
  readonly session: AnalysisSession;
  readonly sink: DiagnosticSink;
  evaluate(m: ParsedSource, node: ts.Expression, path: PathLink | undefined, depth: number): Located | undefined;
  report(message: DiagnosticMessage, span: Span, args: readonly (string | number)[], path: PathLink | undefined, details?: RejectDetails): void;
}
