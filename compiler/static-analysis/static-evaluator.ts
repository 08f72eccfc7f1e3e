/**
 * The static evaluator (DESIGN §3, issue 2 item 3): reads a JSON value from expressions
 * without running them. Accepted, at any depth: string/number/boolean/null literals (negative
 * and hex numbers, numeric separators), object and array literals with quoted or numeric keys,
 * no-substitution templates, `as const`, `satisfies`, type assertions, `x!`, parentheses,
 * shorthand properties, spreads of static objects and arrays, references to top-level `const`
 * bindings and relative imports of static values or JSON files (see `reference-resolver.ts`).
 *
 * Everything else is reported in words (AL32xx) and omitted, so the parts that evaluated can
 * still be validated. Raw `ts` nodes are used for speed; none leaves this module's folder.
 */
import { ts } from "./typescript.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics, type DiagnosticMessage } from "../../diagnostics/catalog/index.js";
import type { AnalysisSession, DiagnosticSink } from "./analysis-session.js";
import { coreFunctionOf, type ParsedSource } from "./core-imports.js";
import { describeConstruct, Hints, sentenceCase } from "./describe-construct.js";
import { describeJsonType, spanLocation, type Located, type Member, type Span } from "./located-tree.js";
import { MAX_ACTIVE_EVALUATIONS, MAX_NESTING, MAX_VALUE_HEIGHT } from "./nesting-limit.js";
import { childPath, pathSegments, type PathLink, type RejectDetails } from "./evaluation-path.js";
import { ReferenceResolver } from "./reference-resolver.js";

export { childPath, pathSegments, type PathLink, type RejectDetails };

/** Evaluates expressions of parsed modules to located JSON values for one analysis session. */
export class StaticEvaluator {
  readonly references: ReferenceResolver;
  /** Evaluations in progress (nesting plus reference hops). */
  #active = 0;
  /** Where this evaluator's diagnostics go (nowhere when it is silent). */
  readonly sink: DiagnosticSink;

  /**
   * @param silent drop every diagnostic (definition modules: parts that depend on run-time
   *   values are simply not reported; the `partial` flag of a result still tells).
   */
  constructor(
    readonly session: AnalysisSession,
    readonly silent = false,
  ) {
    this.sink = silent ? { pluginRoot: session.pluginRoot, report: () => undefined } : session;
    this.references = new ReferenceResolver(this);
  }

  /**
   * Evaluates `node` of module `m`. Problems are reported to the session with `path`;
   * returns `undefined` when the value cannot be read at all.
   *
   * @param depth nesting depth of the value (0 for the root; references do not add a level);
   *   from {@link MAX_NESTING} on the value is rejected (AL3007). Long chains of references
   *   are capped too, so the stack cannot overflow.
   */
  evaluate(m: ParsedSource, node: ts.Expression, path: PathLink | undefined, depth: number): Located | undefined {
    if (depth >= MAX_NESTING || this.#active >= MAX_ACTIVE_EVALUATIONS) {
      this.report(Diagnostics.NestedTooDeeply, m.spanOf(node), [MAX_NESTING], path);
      return undefined;
    }
    this.#active += 1;
    const result = this.#evaluateExpression(m, node, path, depth);
    this.#active -= 1;
    return result;
  }

  #evaluateExpression(m: ParsedSource, node: ts.Expression, path: PathLink | undefined, depth: number): Located | undefined {
    const expression = this.#unwrap(m, node, path);
    const span = m.spanOf(expression);
    switch (expression.kind) {
      case ts.SyntaxKind.StringLiteral:
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
        return leaf((expression as ts.StringLiteralLike).text, span);
      case ts.SyntaxKind.NumericLiteral:
        return this.#number(m, expression as ts.NumericLiteral, 1, span, path);
      case ts.SyntaxKind.TrueKeyword:
        return leaf(true, span);
      case ts.SyntaxKind.FalseKeyword:
        return leaf(false, span);
      case ts.SyntaxKind.NullKeyword:
        return leaf(null, span);
      case ts.SyntaxKind.PrefixUnaryExpression:
        return this.#signedNumber(m, expression as ts.PrefixUnaryExpression, span, path);
      case ts.SyntaxKind.ObjectLiteralExpression:
        return this.#object(m, expression as ts.ObjectLiteralExpression, span, path, depth);
      case ts.SyntaxKind.ArrayLiteralExpression:
        return this.#array(m, expression as ts.ArrayLiteralExpression, span, path, depth);
      case ts.SyntaxKind.Identifier:
        return this.references.evaluateName(m, (expression as ts.Identifier).text, expression, path, depth);
      default: {
        const core = ts.isCallExpression(expression) ? coreFunctionOf(m, expression) : undefined;
        const description = describeConstruct(expression, m.sourceFile, core);
        if (description.notJson) this.report(Diagnostics.NotJsonValue, span, [sentenceCase(description.words)], path, { hint: description.hint });
        else this.report(Diagnostics.NotStatic, span, [description.words], path, { hint: description.hint });
        return undefined;
      }
    }
  }

  /** Reports a diagnostic at `span` for the value at `path` (dropped by silent sessions). */
  report(message: DiagnosticMessage, span: Span, args: readonly (string | number)[], path: PathLink | undefined, details: RejectDetails = {}): void {
    if (this.silent) return;
    this.sink.report(createDiagnostic(message, spanLocation(span), args, { path: pathSegments(path), ...details }));
  }

  /** Strips parentheses and type-only syntax, which does not change the value. */
  #unwrap(m: ParsedSource, node: ts.Expression, path: PathLink | undefined): ts.Expression {
    let current = node;
    for (;;) {
      if (ts.isParenthesizedExpression(current)) {
        current = current.expression;
        continue;
      }
      const words = typeSyntaxWords(current);
      if (words === undefined) return current;
      if (m.isJavaScript) this.report(Diagnostics.TypeScriptSyntaxInJavaScript, m.spanOf(current), [sentenceCase(words), baseName(m.path)], path);
      current = (current as ts.AsExpression).expression;
    }
  }

  /** A numeric literal times `sign`; `written` is the source text shown when it is not finite. */
  #number(m: ParsedSource, literal: ts.NumericLiteral, sign: 1 | -1, span: Span, path: PathLink | undefined, written?: string): Located | undefined {
    const value = sign * Number(literal.text);
    if (!Number.isFinite(value)) {
      const text = written ?? `${sign < 0 ? "-" : ""}${literal.getText(m.sourceFile)}`;
      this.report(Diagnostics.NotJsonValue, span, [`The number '${text}' (which is ${value})`], path, { hint: Hints.numbers });
      return undefined;
    }
    return leaf(value === 0 ? 0 : value, span);
  }

  /**
   * `-5`, `+5` and any mix of signs and parentheses around a numeric literal (`-(5)`,
   * `-(-5)`, `+(5)`): parentheses are accepted at any depth (DESIGN §3), so they are accepted
   * under a sign too. Any other operand (a name, a call) is not static.
   */
  #signedNumber(m: ParsedSource, node: ts.PrefixUnaryExpression, span: Span, path: PathLink | undefined): Located | undefined {
    let sign: 1 | -1 = 1;
    let operand: ts.Expression = node;
    while (ts.isPrefixUnaryExpression(operand) && (operand.operator === ts.SyntaxKind.MinusToken || operand.operator === ts.SyntaxKind.PlusToken)) {
      if (operand.operator === ts.SyntaxKind.MinusToken) sign = sign === 1 ? -1 : 1;
      operand = this.#unwrap(m, operand.operand, path);
    }
    if (operand !== node && ts.isNumericLiteral(operand)) return this.#number(m, operand, sign, span, path, node.getText(m.sourceFile));
    if (operand !== node && ts.isIdentifier(operand) && (operand.text === "Infinity" || operand.text === "NaN")) {
      this.report(Diagnostics.NotJsonValue, span, [`'${node.getText(m.sourceFile)}'`], path, { hint: Hints.numbers });
      return undefined;
    }
    const description = describeConstruct(node, m.sourceFile);
    this.report(Diagnostics.NotStatic, span, [description.words], path, { hint: description.hint });
    return undefined;
  }

  #object(m: ParsedSource, node: ts.ObjectLiteralExpression, span: Span, path: PathLink | undefined, depth: number): Located {
    const members = new Map<string, Member>();
    let partial = false;
    let height = 1;
    const add = (name: string, member: Member): void => {
      if (member.node.height >= MAX_VALUE_HEIGHT) {
        this.report(Diagnostics.NestedTooDeeply, member.node.span, [MAX_VALUE_HEIGHT], childPath(path, name));
        partial = true;
        return;
      }
      members.set(name, member);
      partial ||= member.node.partial;
      height = Math.max(height, member.node.height + 1);
    };
    for (const property of node.properties) {
      if (ts.isSpreadAssignment(property)) {
        const spread = this.evaluate(m, property.expression, path, depth);
        if (spread?.kind === "object") for (const [name, member] of spread.members) add(name, member);
        else {
          if (spread) this.#reportInvalidSpread(m.spanOf(property), spread, "an object", path);
          partial = true;
        }
        continue;
      }
      const name = this.#propertyName(m, property, path);
      if (name === undefined) {
        partial = true;
        continue;
      }
      const value = this.#propertyValue(m, property, name, childPath(path, name), depth);
      if (value) add(name, { key: m.spanOf(property.name!), node: value });
      else partial = true;
    }
    return { kind: "object", members, span, partial, height };
  }

  /** The key a member defines, or `undefined` (reported) when it is not static or not allowed. */
  #propertyName(m: ParsedSource, property: ts.ObjectLiteralElementLike, path: PathLink | undefined): string | undefined {
    const name = property.name;
    if (!name) return undefined;
    let key: string | undefined;
    if (ts.isIdentifier(name) || ts.isStringLiteral(name)) key = name.text;
    else if (ts.isNumericLiteral(name)) key = String(Number(name.text));
    if (key === undefined) {
      const words = ts.isComputedPropertyName(name) ? `a computed key ('${name.getText(m.sourceFile)}')` : `the key '${name.getText(m.sourceFile)}'`;
      this.report(Diagnostics.NotStatic, m.spanOf(name), [words], path, { hint: Hints.key });
      return undefined;
    }
    if (key === "__proto__") {
      this.report(Diagnostics.ProtoKey, m.spanOf(name), [], childPath(path, key));
      return undefined;
    }
    return key;
  }

  #propertyValue(m: ParsedSource, property: ts.ObjectLiteralElementLike, name: string, path: PathLink, depth: number): Located | undefined {
    if (ts.isPropertyAssignment(property)) return this.evaluate(m, property.initializer, path, depth + 1);
    if (ts.isShorthandPropertyAssignment(property)) {
      if (property.objectAssignmentInitializer) {
        this.report(Diagnostics.NotStatic, m.spanOf(property), [`a shorthand property with a default value ('${name} = …')`], path, { hint: Hints.literal });
        return undefined;
      }
      return this.references.evaluateName(m, name, property.name, path, depth + 1);
    }
    const words = ts.isGetAccessorDeclaration(property) ? "a getter" : ts.isSetAccessorDeclaration(property) ? "a setter" : "a method";
    this.report(Diagnostics.NotStatic, m.spanOf(property), [words], path, { hint: Hints.functions });
    return undefined;
  }

  /**
   * AL3206 at the spread itself (`...arr`); when the spread value is written elsewhere (a
   * const, an imported file), that place is a related location.
   */
  #reportInvalidSpread(at: Span, spread: Located, expected: string, path: PathLink | undefined): void {
    const inside = spread.span.file === at.file && spread.span.start >= at.start && spread.span.end <= at.end;
    const related = inside ? [] : [{ ...spanLocation(spread.span), message: `The spread value (${describeJsonType(spread)}) is written here.` }];
    this.report(Diagnostics.InvalidSpread, at, [expected, describeJsonType(spread)], path, related.length > 0 ? { related } : {});
  }

  #array(m: ParsedSource, node: ts.ArrayLiteralExpression, span: Span, path: PathLink | undefined, depth: number): Located {
    const items: Located[] = [];
    let partial = false;
    let height = 1;
    const add = (item: Located): void => {
      if (item.height >= MAX_VALUE_HEIGHT) {
        this.report(Diagnostics.NestedTooDeeply, item.span, [MAX_VALUE_HEIGHT], childPath(path, items.length));
        partial = true;
        return;
      }
      items.push(item);
      partial ||= item.partial;
      height = Math.max(height, item.height + 1);
    };
    for (const element of node.elements) {
      if (ts.isOmittedExpression(element)) {
        this.report(Diagnostics.NotJsonValue, holeSpan(m, element), ["An empty slot in an array literal"], childPath(path, items.length), { hint: "Remove the extra comma, or write null." });
        partial = true;
      } else if (ts.isSpreadElement(element)) {
        const spread = this.evaluate(m, element.expression, path, depth);
        if (spread?.kind === "array") spread.items.forEach(add);
        else {
          if (spread) this.#reportInvalidSpread(m.spanOf(element), spread, "an array", path);
          partial = true;
        }
      } else {
        const item = this.evaluate(m, element, childPath(path, items.length), depth + 1);
        if (item) add(item);
        else partial = true;
      }
    }
    return { kind: "array", items, span, partial, height };
  }
}

/** An array hole has no text of its own: point at the comma that makes it. */
function holeSpan(m: ParsedSource, hole: ts.OmittedExpression): Span {
  const comma = m.sourceFile.text.indexOf(",", hole.pos);
  const start = (comma < 0 ? hole.pos : comma) + m.bomShift;
  return { file: m.spanOf(hole).file, start, end: start + 1 };
}

function leaf(value: string | number | boolean | null, span: Span): Located {
  return { kind: "leaf", value, span, partial: false, height: 1 };
}

/** Words for TypeScript-only syntax that wraps a value, or `undefined` for anything else. */
function typeSyntaxWords(node: ts.Expression): string | undefined {
  if (ts.isAsExpression(node)) return "a type assertion with 'as'";
  if (ts.isSatisfiesExpression(node)) return "'satisfies'";
  if (ts.isTypeAssertionExpression(node)) return "a type assertion ('<T>value')";
  if (ts.isNonNullExpression(node)) return "a non-null assertion ('!')";
  return undefined;
}

function baseName(filePath: string): string {
  return filePath.slice(Math.max(filePath.lastIndexOf("/"), filePath.lastIndexOf("\\")) + 1);
}
