/**
 * Syntax-only facts about a tool definition module (DESIGN §3), for the `factory` check and
 * the descriptor-versus-implementation drift check: whether it has a default export, its named
 * value exports, `export *`, and what each `defineTool({...})` statically says.
 *
 * Definitions are code: only syntax errors are reported, and the fields a `defineTool({...})`
 * object writes that a ToolDefinition does not have (a misspelt key). Fields that depend on
 * run-time values are simply left out of {@link DefinedTool}.
 */
import { ts } from "./typescript.js";
import type { DefinedTool } from "../model.js";
import type { AnalysisSession } from "./analysis-session.js";
import { coreFunctionOf, skipTypeWrappers, type ParsedSource } from "./core-imports.js";
import { readToolFields, unknownToolFields } from "./defined-tool-fields.js";
import { spanLocation } from "./located-tree.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { didYouMean } from "../../common/did-you-mean.js";
import { TOOL_DEFINITION_FIELDS } from "../../contract/authoring-core.js";
import { reportInvalidUtf8, reportSyntaxProblems, reportUnreadable } from "./file-problems.js";
import { moduleScopeOf, type ExportTarget, type ModuleScope } from "./module-scope.js";
import { resolveImport } from "./module-resolution.js";
import { StaticEvaluator } from "./static-evaluator.js";
import { byCodeUnits } from "../../common/compare.js";
import { canonicalJsonText } from "../../common/canonical-json.js";

/** What {@link analyzeDefinitionModule} found (diagnostics went to the session). */
export interface DefinitionFacts {
  readonly parsed: boolean;
  readonly hasDefaultExport: boolean;
  readonly namedExports: readonly string[];
  readonly hasExportStar: boolean;
  readonly definedTools: readonly DefinedTool[];
}

const UNPARSED: DefinitionFacts = { parsed: false, hasDefaultExport: false, namedExports: [], hasExportStar: false, definedTools: [] };

/** A `defineTool(…)` call and whether the export is the tool itself or a factory returning it. */
interface ToolSite {
  readonly call: ts.CallExpression;
  readonly form: "value" | "factory";
}

const MAX_HOPS = 64;

/** Reads the exports and `defineTool` calls of a definition module. */
export function analyzeDefinitionModule(session: AnalysisSession, definitionFile: string): DefinitionFacts {
  const read = session.read(definitionFile);
  if (read.kind !== "file") {
    reportUnreadable(session, definitionFile, read);
    return UNPARSED;
  }
  const loaded = session.load(definitionFile, false);
  if (loaded?.kind !== "module") return UNPARSED;
  if (loaded.invalidUtf8) reportInvalidUtf8(session, loaded.module);
  if (!reportSyntaxProblems(session, loaded.module)) return UNPARSED;
  const module = loaded.module as ParsedSource;
  const scope = moduleScopeOf(module);
  const evaluator = new StaticEvaluator(session, true);
  const names = [...scope.exports.keys()].sort(byCodeUnits);
  const definedTools: DefinedTool[] = [];
  const calls = new Set<ts.CallExpression>();
  for (const name of names) {
    const sites = toolSitesOfExport(module, scope, scope.exports.get(name)!);
    if (sites.length > 0) definedTools.push(definedTool(evaluator, module, name, sites));
    for (const site of sites) calls.add(site.call);
  }
  reportUnknownFields(session, module, calls);
  return {
    parsed: true,
    hasDefaultExport: scope.exports.has("default"),
    namedExports: names.filter((name) => name !== "default" && isValueExport(scope, scope.exports.get(name)!)),
    hasExportStar: scope.starExports.length > 0,
    definedTools,
  };
}

/**
 * Reports each field of the tools' `defineTool({...})` objects that a ToolDefinition does not
 * have (AL4001, as an entry's unknown field is), in source order, each call once however many
 * exports name it: the runtime never reads such a field, so a misspelt `descripton` was found by
 * `tsc` alone (helper-75's trial, C6).
 */
function reportUnknownFields(session: AnalysisSession, module: ParsedSource, calls: ReadonlySet<ts.CallExpression>): void {
  const known = TOOL_DEFINITION_FIELDS;
  // A spread's source imported from a relative module of the plugin is read there, never run.
  const imported = (from: ParsedSource, specifier: string): ParsedSource | undefined => {
    const resolution = resolveImport(specifier, from.path, session);
    if (resolution.kind !== "module") return undefined;
    const loaded = session.load(resolution.path, false);
    return loaded?.kind === "module" && loaded.module.sourceFile && loaded.module.syntaxErrors.length === 0 ? (loaded.module as ParsedSource) : undefined;
  };
  const fields = [...calls].flatMap((call) => unknownToolFields(module, call, (name) => didYouMean(name, known) !== undefined, imported));
  // This module's keys first, in source order, then those of imported modules, by file.
  fields.sort((a, b) => (a.module === b.module ? a.key.pos - b.key.pos : a.module === module ? -1 : b.module === module ? 1 : byCodeUnits(a.module.path, b.module.path)));
  // A key of an object spread into several calls is one mistake: reported once, at the key.
  const reported = new Set<ts.Node>();
  for (const field of fields) {
    if (reported.has(field.key)) continue;
    reported.add(field.key);
    const suggestion = didYouMean(field.name, known);
    const spread = field.spread;
    session.report(
      createDiagnostic(Diagnostics.EntryUnknownField, spanLocation(field.module.spanOf(field.key)), [field.name, spread ? "an object spread into a defineTool({...}) call" : "the defineTool({...}) call"], {
        path: [field.name],
        hint: suggestion ? `Did you mean '${suggestion}'?` : `Known fields: ${known.join(", ")}.`,
        ...(spread ? { related: [{ ...spanLocation(module.spanOf(spread)), message: "Spread into the defineTool({...}) call here" }] } : {}),
      }),
    );
  }
}

function definedTool(evaluator: StaticEvaluator, module: ParsedSource, exportName: string, sites: readonly ToolSite[]): DefinedTool {
  const all = sites.map((site) => readToolFields(evaluator, module, site.call));
  // Several `return defineTool(…)` in one factory: report only what they all say alike.
  const agreed = <K extends "description" | "inputSchema" | "needsApproval">(key: K): DefinedTool[K] | undefined => {
    const first = all[0]![key];
    if (first === undefined || all.length === 1) return first;
    const same = all.every((fields) => fields[key] !== undefined && canonicalJsonText(fields[key]!.value) === canonicalJsonText(first.value));
    return same ? first : undefined;
  };
  const description = agreed("description");
  const inputSchema = agreed("inputSchema");
  const needsApproval = agreed("needsApproval");
  // Assigned rather than spread in (the same keys, in the same order): a spread runs slowly in a
  // cold process, and this runs once per definition (issue 14 item 1).
  const tool: { -readonly [K in keyof DefinedTool]: DefinedTool[K] } = { exportName, form: sites[0]!.form };
  if (description) tool.description = description;
  if (inputSchema) tool.inputSchema = inputSchema;
  if (needsApproval) tool.needsApproval = needsApproval;
  return tool;
}

function isValueExport(scope: ModuleScope, target: ExportTarget): boolean {
  if (target.kind === "reexport") return !target.typeOnly;
  if (target.kind !== "local") return true;
  if (target.typeOnly) return false;
  const binding = scope.bindings.get(target.localName);
  return !(binding && (binding.kind === "type" || binding.kind === "declared" || (binding.kind === "import" && binding.typeOnly)));
}

function toolSitesOfExport(module: ParsedSource, scope: ModuleScope, target: ExportTarget): ToolSite[] {
  switch (target.kind) {
    case "expression":
      return sitesOfValue(module, target.expression, 0);
    case "declaration":
      return target.node.kind === ts.SyntaxKind.FunctionDeclaration ? sitesOfFunction(module, target.node as ts.FunctionDeclaration) : [];
    case "local": {
      const binding = scope.bindings.get(target.localName);
      if (binding?.kind === "const" && !binding.destructured && binding.declaration.initializer) return sitesOfValue(module, binding.declaration.initializer, 0);
      if (binding?.kind === "function") return sitesOfFunction(module, binding.node as ts.FunctionDeclaration);
      return [];
    }
    default:
      return [];
  }
}

/** `defineTool(…)`, a const holding it, or a function/arrow returning it (a factory). */
function sitesOfValue(module: ParsedSource, node: ts.Expression, hops: number): ToolSite[] {
  const expression = skipTypeWrappers(node);
  if (ts.isCallExpression(expression)) return coreFunctionOf(module, expression, true) === "defineTool" ? [{ call: expression, form: "value" }] : [];
  if (ts.isArrowFunction(expression) || ts.isFunctionExpression(expression)) return sitesOfFunction(module, expression);
  if (ts.isIdentifier(expression) && hops < MAX_HOPS) {
    const binding = moduleScopeOf(module).bindings.get(expression.text);
    if (binding?.kind === "const" && !binding.destructured && binding.declaration.initializer) return sitesOfValue(module, binding.declaration.initializer, hops + 1);
    if (binding?.kind === "function") return sitesOfFunction(module, binding.node as ts.FunctionDeclaration);
  }
  return [];
}

/** The `defineTool(…)` calls a function returns (directly, or through a const in its body or module). */
function sitesOfFunction(module: ParsedSource, fn: ts.FunctionLikeDeclaration): ToolSite[] {
  const body = fn.body;
  if (!body) return [];
  const returned = ts.isBlock(body) ? returnedExpressions(body) : [body];
  const locals = ts.isBlock(body) ? bodyConsts(body) : new Map<string, ts.Expression>();
  const sites: ToolSite[] = [];
  for (const expression of returned) {
    const call = defineToolCall(module, expression, locals);
    if (call) sites.push({ call, form: "factory" });
  }
  return sites;
}

/** `defineTool(…)` itself, or a const (local to the function, else top-level) initialised with it. */
function defineToolCall(module: ParsedSource, node: ts.Expression, locals: ReadonlyMap<string, ts.Expression>): ts.CallExpression | undefined {
  let value = skipTypeWrappers(node);
  if (ts.isIdentifier(value)) {
    const local = locals.get(value.text);
    const binding = moduleScopeOf(module).bindings.get(value.text);
    const initializer = local ?? (binding?.kind === "const" && !binding.destructured ? binding.declaration.initializer : undefined);
    if (!initializer) return undefined;
    value = skipTypeWrappers(initializer);
  }
  return ts.isCallExpression(value) && coreFunctionOf(module, value, true) === "defineTool" ? value : undefined;
}

/** Expressions of the `return` statements of a function body, not of nested functions. */
function returnedExpressions(body: ts.Block): ts.Expression[] {
  const out: ts.Expression[] = [];
  const pending: ts.Node[] = [body];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (ts.isReturnStatement(node)) {
      if (node.expression) out.push(node.expression);
    } else if (ts.isBlock(node) || isControlFlow(node)) {
      ts.forEachChild(node, (child) => {
        if (ts.isStatement(child) || ts.isBlock(child) || ts.isCaseBlock(child) || ts.isCaseOrDefaultClause(child) || ts.isCatchClause(child)) {
          pending.push(child);
        }
      });
    }
  }
  return out.sort((a, b) => a.pos - b.pos);
}

function isControlFlow(node: ts.Node): boolean {
  return (
    ts.isIfStatement(node) ||
    ts.isTryStatement(node) ||
    ts.isCatchClause(node) ||
    ts.isSwitchStatement(node) ||
    ts.isCaseBlock(node) ||
    ts.isCaseOrDefaultClause(node) ||
    ts.isLabeledStatement(node) ||
    ts.isIterationStatement(node, false)
  );
}

/** `const x = …` declared directly in a function body. */
function bodyConsts(body: ts.Block): Map<string, ts.Expression> {
  const out = new Map<string, ts.Expression>();
  for (const statement of body.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.initializer) out.set(declaration.name.text, declaration.initializer);
    }
  }
  return out;
}
