/**
 * The top-level declarations and exports of a parsed module, read from its statements only
 * (syntax, no binder or checker). The static evaluator resolves identifiers through
 * {@link ModuleScope.bindings}; the definition analysis lists {@link ModuleScope.exports}.
 */
import { ts } from "./typescript.js";
import type { ParsedModule } from "./source-store.js";

/** What a top-level name is bound to. */
export type Binding =
  | {
      readonly kind: "const";
      readonly name: string;
      readonly declaration: ts.VariableDeclaration;
      /** True for `const { a } = …` / `const [a] = …` (not readable statically). */
      readonly destructured: boolean;
    }
  | {
      readonly kind: "let" | "var" | "using" | "function" | "class" | "enum" | "namespace" | "declared" | "type" | "import-equals";
      readonly name: string;
      readonly node: ts.Node;
    }
  | ImportBinding;

/** `import x from "…"`, `import { a as x } from "…"` or `import * as x from "…"`. */
export interface ImportBinding {
  readonly kind: "import";
  readonly name: string;
  /** The import clause, specifier or namespace import that declares the name. */
  readonly node: ts.Node;
  readonly specifier: string;
  readonly specifierNode: ts.StringLiteral;
  /** `"default"`, `"*"` (namespace import) or the imported name. */
  readonly imported: string;
  readonly typeOnly: boolean;
  /** The `with { type: "…" }` (or `assert`) attribute, when given. */
  readonly attributeType: string | undefined;
}

/** What an exported name refers to. */
export type ExportTarget =
  | { readonly kind: "local"; readonly localName: string; readonly node: ts.Node; readonly typeOnly: boolean }
  | {
      readonly kind: "reexport";
      readonly specifier: string;
      readonly specifierNode: ts.StringLiteral;
      /** The name imported from the other module, or `"*"` for `export * as ns from`. */
      readonly imported: string;
      readonly node: ts.Node;
      readonly typeOnly: boolean;
    }
  | { readonly kind: "expression"; readonly expression: ts.Expression; readonly node: ts.ExportAssignment }
  | { readonly kind: "declaration"; readonly what: "function" | "class"; readonly node: ts.FunctionDeclaration | ts.ClassDeclaration };

/** `export * from "…"` (value star exports only). */
export interface StarExport {
  readonly specifier: string;
  readonly specifierNode: ts.StringLiteral;
}

/** Top-level facts of one module version. */
export interface ModuleScope {
  readonly bindings: ReadonlyMap<string, Binding>;
  readonly exports: ReadonlyMap<string, ExportTarget>;
  readonly starExports: readonly StarExport[];
  /** Default exports after the first (a module may have only one). */
  readonly extraDefaultExports: readonly ts.Node[];
  /** True when the module assigns `module.exports` or `exports.x` at the top level. */
  readonly assignsCommonJsExports: boolean;
}

const SCOPE_MEMO = "module-scope";

/** The scope of a parsed module (computed once per module version). */
export function moduleScopeOf(module: ParsedModule & { readonly sourceFile: ts.SourceFile }): ModuleScope {
  const cached = module.memo.get(SCOPE_MEMO) as ModuleScope | undefined;
  if (cached) return cached;
  const scope = collectScope(module.sourceFile);
  module.memo.set(SCOPE_MEMO, scope);
  return scope;
}

function collectScope(sourceFile: ts.SourceFile): ModuleScope {
  const bindings = new Map<string, Binding>();
  const exports = new Map<string, ExportTarget>();
  const starExports: StarExport[] = [];
  const extraDefaultExports: ts.Node[] = [];
  let assignsCommonJsExports = false;
  const addExport = (name: string, target: ExportTarget, node: ts.Node): void => {
    if (name === "default" && exports.has("default")) extraDefaultExports.push(node);
    else exports.set(name, target);
  };
  for (const statement of sourceFile.statements) {
    if (ts.isImportDeclaration(statement)) collectImport(statement, bindings);
    else if (ts.isExportDeclaration(statement)) collectExportDeclaration(statement, addExport, starExports);
    else if (ts.isExportAssignment(statement)) {
      if (!statement.isExportEquals) addExport("default", { kind: "expression", expression: statement.expression, node: statement }, statement);
    } else if (ts.isExpressionStatement(statement)) {
      assignsCommonJsExports ||= isCommonJsExportAssignment(statement.expression);
    } else collectDeclaration(statement, bindings, addExport);
  }
  return { bindings, exports, starExports, extraDefaultExports, assignsCommonJsExports };
}

function collectImport(statement: ts.ImportDeclaration, bindings: Map<string, Binding>): void {
  const clause = statement.importClause;
  if (!clause || !ts.isStringLiteral(statement.moduleSpecifier)) return;
  const specifierNode = statement.moduleSpecifier;
  const specifier = specifierNode.text;
  const attributeType = importAttributeType(statement);
  // One literal per binding rather than a spread of shared fields: a spread runs slowly in a
  // cold process, and every module has imports (issue 14 item 1).
  const add = (name: string, node: ImportBinding["node"], imported: string, typeOnly: boolean): void => {
    bindings.set(name, { kind: "import", specifier, specifierNode, attributeType, name, node, imported, typeOnly });
  };
  if (clause.name) add(clause.name.text, clause, "default", clause.isTypeOnly);
  const named = clause.namedBindings;
  if (named && ts.isNamespaceImport(named)) {
    add(named.name.text, named, "*", clause.isTypeOnly);
  } else if (named) {
    for (const element of named.elements) add(element.name.text, element, (element.propertyName ?? element.name).text, clause.isTypeOnly || element.isTypeOnly);
  }
}

function importAttributeType(statement: ts.ImportDeclaration): string | undefined {
  for (const element of statement.attributes?.elements ?? []) {
    if (element.name.text === "type" && ts.isStringLiteral(element.value)) return element.value.text;
  }
  return undefined;
}

function collectExportDeclaration(
  statement: ts.ExportDeclaration,
  addExport: (name: string, target: ExportTarget, node: ts.Node) => void,
  starExports: StarExport[],
): void {
  const specifierNode = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier : undefined;
  const clause = statement.exportClause;
  if (!clause) {
    if (specifierNode && !statement.isTypeOnly) starExports.push({ specifier: specifierNode.text, specifierNode });
    return;
  }
  if (ts.isNamespaceExport(clause)) {
    if (specifierNode) {
      const target = { kind: "reexport" as const, specifier: specifierNode.text, specifierNode, imported: "*", node: clause, typeOnly: statement.isTypeOnly };
      addExport(clause.name.text, target, clause);
    }
    return;
  }
  for (const element of clause.elements) {
    const local = (element.propertyName ?? element.name).text;
    const typeOnly = statement.isTypeOnly || element.isTypeOnly;
    const target: ExportTarget = specifierNode
      ? { kind: "reexport", specifier: specifierNode.text, specifierNode, imported: local, node: element, typeOnly }
      : { kind: "local", localName: local, node: element, typeOnly };
    addExport(element.name.text, target, element);
  }
}

function collectDeclaration(
  statement: ts.Statement,
  bindings: Map<string, Binding>,
  addExport: (name: string, target: ExportTarget, node: ts.Node) => void,
): void {
  const exported = hasModifier(statement, ts.SyntaxKind.ExportKeyword);
  const isDefault = hasModifier(statement, ts.SyntaxKind.DefaultKeyword);
  const declared = hasModifier(statement, ts.SyntaxKind.DeclareKeyword);
  const bind = (name: string, binding: Binding, node: ts.Node): void => {
    bindings.set(name, binding);
    if (exported && !isDefault) addExport(name, { kind: "local", localName: name, node, typeOnly: false }, node);
  };
  if (ts.isVariableStatement(statement)) {
    const kind = declared ? "declared" : variableKind(statement.declarationList.flags);
    for (const declaration of statement.declarationList.declarations) {
      for (const name of boundNames(declaration.name)) {
        const destructured = !ts.isIdentifier(declaration.name);
        bind(name.text, kind === "const" ? { kind, name: name.text, declaration, destructured } : { kind, name: name.text, node: declaration }, name);
      }
    }
    return;
  }
  if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) {
    const what = ts.isFunctionDeclaration(statement) ? "function" : "class";
    if (statement.name) bind(statement.name.text, { kind: declared ? "declared" : what, name: statement.name.text, node: statement }, statement.name);
    if (exported && isDefault) addExport("default", { kind: "declaration", what, node: statement }, statement);
    return;
  }
  if (ts.isEnumDeclaration(statement)) {
    const constEnum = hasModifier(statement, ts.SyntaxKind.ConstKeyword);
    bind(statement.name.text, { kind: declared || constEnum ? "declared" : "enum", name: statement.name.text, node: statement }, statement.name);
  } else if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name)) {
    bind(statement.name.text, { kind: declared ? "declared" : "namespace", name: statement.name.text, node: statement }, statement.name);
  } else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
    bind(statement.name.text, { kind: "type", name: statement.name.text, node: statement }, statement.name);
  } else if (ts.isImportEqualsDeclaration(statement)) {
    bind(statement.name.text, { kind: "import-equals", name: statement.name.text, node: statement }, statement.name);
  }
}

function variableKind(flags: ts.NodeFlags): "const" | "let" | "var" | "using" {
  if (flags & ts.NodeFlags.Using) return "using";
  if (flags & ts.NodeFlags.Const) return "const";
  if (flags & ts.NodeFlags.Let) return "let";
  return "var";
}

/** Every identifier a binding name introduces (`a`, or `a`, `c` in `{ a, b: [c] }`). */
export function boundNames(name: ts.BindingName): ts.Identifier[] {
  const out: ts.Identifier[] = [];
  const pending: ts.BindingName[] = [name];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (ts.isIdentifier(current)) {
      out.push(current);
      continue;
    }
    for (const element of current.elements) {
      if (!ts.isOmittedExpression(element)) pending.push(element.name);
    }
  }
  return out.sort((a, b) => a.pos - b.pos);
}

/** True when the statement carries the modifier (`export`, `default`, `declare`, `const`). */
export function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === kind) ?? false);
}

function isCommonJsExportAssignment(expression: ts.Expression): boolean {
  if (!ts.isBinaryExpression(expression) || expression.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return false;
  let target: ts.Expression = expression.left;
  while (ts.isPropertyAccessExpression(target)) {
    const object = target.expression;
    if (ts.isIdentifier(object) && (object.text === "exports" || (object.text === "module" && target.name.text === "exports"))) return true;
    target = object;
  }
  return false;
}
