/**
 * Names a construct the static evaluator cannot read, in words a plugin author knows
 * ("a function call to 'makeSchema'", "a template literal with substitutions"), with the hint
 * that fixes it. Never an AST kind name (issue 2 item 3).
 */
import { CORE_PACKAGE } from "./core-imports.js";
import { ts } from "./typescript.js";

/** Words for a rejected construct and what to do instead. */
export interface ConstructDescription {
  /** Lower-case noun phrase ("a function call to 'f'"), used mid-sentence. */
  readonly words: string;
  readonly hint: string;
  /** True when the construct is readable but its value is not JSON (`undefined`, `NaN`). */
  readonly notJson?: boolean;
}

/** Hints shared by several constructs. */
export const Hints = {
  runtime:
    "The entry is read without running it, so its values must be static: write a literal, a top-level const, or a relative import of a static const or a JSON file (import schema from \"./schema.json\" with { type: \"json\" }).",
  literal: "Write the value as a literal, or move it into a top-level const.",
  functions: "Descriptors are data: keep functions in the definition module.",
  environment:
    "Environment values are only known at run time: list the name in 'requiredConfig' and read it from ctx.config in the tool (credentials belong in a connection).",
  propertyAccess: "Reference a top-level const directly, or write the value inline.",
  key: "Write the key as a name or a quoted string.",
  undefinedValue: "Omit the property instead (or use null).",
  numbers: "Use a finite number, or omit the property.",
} as const;

const MAX_SNIPPET = 40;

/** A one-line excerpt of the node's source, shortened to {@link MAX_SNIPPET} characters. */
export function snippet(node: ts.Node, sourceFile: ts.SourceFile): string {
  const text = node.getText(sourceFile).replace(/\s+/g, " ");
  return text.length > MAX_SNIPPET ? `${text.slice(0, MAX_SNIPPET - 1)}…` : text;
}

/** Capitalises the first letter of a description for the start of a sentence. */
export function sentenceCase(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Describes an expression that is not a literal, object, array or reference.
 * @param coreFunction for a call: the `@assemblyline-agents/core` export it invokes, if any.
 */
export function describeConstruct(node: ts.Node, sourceFile: ts.SourceFile, coreFunction?: string): ConstructDescription {
  if (ts.isCallExpression(node)) return describeCall(node, sourceFile, coreFunction);
  if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) return describeAccess(node, sourceFile);
  if (ts.isTemplateExpression(node)) return { words: "a template literal with substitutions", hint: "Write the whole string as a literal." };
  if (ts.isTaggedTemplateExpression(node)) return { words: `a tagged template ('${snippet(node.tag, sourceFile)}\`…\`')`, hint: Hints.runtime };
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return { words: "a function", hint: Hints.functions };
  if (ts.isClassExpression(node)) return { words: "a class", hint: Hints.functions };
  if (ts.isNewExpression(node)) return { words: `a 'new' expression ('${snippet(node, sourceFile)}')`, hint: Hints.runtime };
  if (ts.isRegularExpressionLiteral(node)) {
    return { words: `a regular expression (${snippet(node, sourceFile)})`, hint: 'Write the pattern as a string (JSON Schema: pattern: "^a+$").' };
  }
  if (ts.isBinaryExpression(node)) {
    const operator = ts.tokenToString(node.operatorToken.kind) ?? "?";
    return { words: `an expression with the operator '${operator}'`, hint: "Write the result as a literal." };
  }
  if (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) {
    const operator = ts.tokenToString(node.operator) ?? "?";
    return { words: `the operator '${operator}' applied to '${snippet(node.operand, sourceFile)}'`, hint: Hints.literal };
  }
  if (ts.isConditionalExpression(node)) return { words: "a conditional expression ('… ? … : …')", hint: "Choose one value and write it as a literal." };
  if (ts.isBigIntLiteral(node)) return { words: `the BigInt literal '${node.text}'`, hint: "Use a number.", notJson: true };
  return describeOther(node, sourceFile);
}

function describeOther(node: ts.Node, sourceFile: ts.SourceFile): ConstructDescription {
  switch (node.kind) {
    case ts.SyntaxKind.AwaitExpression:
      return { words: "an 'await' expression", hint: Hints.runtime };
    case ts.SyntaxKind.YieldExpression:
      return { words: "a 'yield' expression", hint: Hints.runtime };
    case ts.SyntaxKind.TypeOfExpression:
      return { words: "a 'typeof' expression", hint: Hints.literal };
    case ts.SyntaxKind.VoidExpression:
      return { words: "a 'void' expression (which is undefined)", hint: Hints.undefinedValue, notJson: true };
    case ts.SyntaxKind.DeleteExpression:
      return { words: "a 'delete' expression", hint: Hints.runtime };
    case ts.SyntaxKind.ThisKeyword:
      return { words: "'this'", hint: Hints.literal };
    case ts.SyntaxKind.SuperKeyword:
      return { words: "'super'", hint: Hints.literal };
    case ts.SyntaxKind.MetaProperty:
      return { words: `'${snippet(node, sourceFile)}'`, hint: Hints.runtime };
    case ts.SyntaxKind.JsxElement:
    case ts.SyntaxKind.JsxSelfClosingElement:
    case ts.SyntaxKind.JsxFragment:
      return { words: "a JSX element", hint: Hints.runtime };
    case ts.SyntaxKind.CommaListExpression:
      return { words: "a comma expression", hint: Hints.literal };
    default:
      return { words: `the expression '${snippet(node, sourceFile)}'`, hint: Hints.literal };
  }
}

function describeCall(node: ts.CallExpression, sourceFile: ts.SourceFile, coreFunction: string | undefined): ConstructDescription {
  if (node.expression.kind === ts.SyntaxKind.ImportKeyword) return { words: "a dynamic import ('import(…)')", hint: "Use a static relative import of a const or a JSON file." };
  const callee = node.expression;
  if (coreFunction === "defineAssemblyLinePlugin") {
    return { words: "a call to defineAssemblyLinePlugin(…) inside the plugin object", hint: "Call defineAssemblyLinePlugin only around the entry's default export." };
  }
  if (coreFunction === "approvalRequired") {
    return { words: "a function call to 'approvalRequired'", hint: 'In a descriptor, write the policy as data: needsApproval: { reason: "…", sideEffect: "external" }.' };
  }
  if (ts.isIdentifier(callee) || ts.isPropertyAccessExpression(callee)) {
    const name = snippet(callee, sourceFile);
    if (name === "defineAssemblyLinePlugin" && coreFunction === undefined) {
      return {
        words: `a function call to 'defineAssemblyLinePlugin', which is not imported from '${CORE_PACKAGE}'`,
        hint: `Import it: import { defineAssemblyLinePlugin } from "${CORE_PACKAGE}";`,
      };
    }
    if (name === "require") return { words: "a function call to 'require'", hint: "Use a static relative import of a const or a JSON file." };
    return { words: `a function call to '${name}'`, hint: Hints.runtime };
  }
  return { words: "a function call", hint: Hints.runtime };
}

function describeAccess(node: ts.PropertyAccessExpression | ts.ElementAccessExpression, sourceFile: ts.SourceFile): ConstructDescription {
  const text = snippet(node, sourceFile);
  if (readsEnvironment(node)) return { words: `'${text}'`, hint: Hints.environment };
  return { words: `a property access ('${text}')`, hint: Hints.propertyAccess };
}

/** True for `process.env`, `process.env.X`, `process.env["X"]` and `import.meta.env…`. */
function readsEnvironment(node: ts.Expression): boolean {
  let current: ts.Expression = node;
  while (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)) {
    const object: ts.Expression = current.expression;
    const name = ts.isPropertyAccessExpression(current)
      ? current.name.text
      : ts.isStringLiteralLike(current.argumentExpression)
        ? current.argumentExpression.text
        : "";
    if (name === "env" && ((ts.isIdentifier(object) && object.text === "process") || ts.isMetaProperty(object))) return true;
    current = object;
  }
  return false;
}
