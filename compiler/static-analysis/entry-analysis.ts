/**
 * Reads the default export of an `ai.assemblyline/index.{ts,mts,js,mjs}` entry without running
 * it (DESIGN §3): a plain object, or `defineAssemblyLinePlugin({...})` imported from
 * `@assemblyline-agents/core`, possibly through `export { x as default }`, a top-level const
 * or a relative re-export.
 */
import { ts } from "./typescript.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { fileStart } from "../../common/positions.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { JsonObject } from "../../common/json-value.js";
import type { LocatedValue } from "../model.js";
import type { AnalysisSession } from "./analysis-session.js";
import { coreFunctionOf, skipTypeWrappers, type ParsedSource } from "./core-imports.js";
import { displayName, reportUnreadable } from "./file-problems.js";
import { describeJsonType, spanLocation, toLocatedValue, ValueTooLargeError, type Located } from "./located-tree.js";
import { resolveImport } from "./module-resolution.js";
import { moduleScopeOf, type ExportTarget } from "./module-scope.js";
import { StaticEvaluator } from "./static-evaluator.js";

/** The most values (shared constants counted at every use) an entry may evaluate to. */
export const MAX_ENTRY_VALUES = 1_000_000;

/** Follows at most this many const/import hops when looking for the wrapper call. */
const MAX_HOPS = 64;

/** What {@link analyzeEntryModule} found; diagnostics went to the session. */
export interface EntryFacts {
  readonly entry: LocatedValue<JsonObject> | undefined;
  readonly wrapped: boolean;
}

/** Evaluates the entry's default export, reporting every problem to `session`. */
export function analyzeEntryModule(session: AnalysisSession, entryFile: string): EntryFacts {
  const read = session.read(entryFile);
  if (read.kind !== "file") {
    reportUnreadable(session, entryFile, read);
    return { entry: undefined, wrapped: false };
  }
  const evaluator = new StaticEvaluator(session);
  const module = evaluator.references.loadModule(entryFile);
  if (!module) return { entry: undefined, wrapped: false };
  const scope = moduleScopeOf(module);
  const defaultExport = scope.exports.get("default");
  if (!defaultExport) {
    const hint = scope.assignsCommonJsExports
      ? "The entry is an ECMAScript module: replace 'module.exports = …' with 'export default …'."
      : undefined;
    session.report(createDiagnostic(Diagnostics.MissingDefaultExport, fileStart(entryFile), [displayName(entryFile, session.pluginRoot)], hint ? { hint } : {}));
    return { entry: undefined, wrapped: false };
  }
  for (const extra of scope.extraDefaultExports) {
    const related = [{ ...spanLocation(module.spanOf(defaultExport.node)), message: "The first default export is here." }];
    session.report(createDiagnostic(Diagnostics.DuplicateDefaultExport, spanLocation(module.spanOf(extra)), [], { related }));
  }
  const wrapper = findWrapperCall(evaluator, module, defaultExport, 0);
  const root = wrapper
    ? evaluateWrapperArgument(evaluator, wrapper.module, wrapper.call)
    : evaluator.references.evaluateExport(module, "default", { module, node: defaultExport.node, specifier: "" }, undefined, 0);
  return { entry: rootObject(session, root), wrapped: wrapper !== undefined };
}

function rootObject(session: AnalysisSession, root: Located | undefined): LocatedValue<JsonObject> | undefined {
  if (!root) return undefined;
  if (root.kind !== "object") {
    session.report(createDiagnostic(Diagnostics.DefaultExportNotObject, spanLocation(root.span), [describeJsonType(root)]));
    return undefined;
  }
  try {
    return toLocatedValue(root, MAX_ENTRY_VALUES) as LocatedValue<JsonObject>;
  } catch (error) {
    if (!(error instanceof ValueTooLargeError)) throw error;
    session.report(createDiagnostic(Diagnostics.ValueTooLarge, spanLocation(root.span), [error.limit]));
    return undefined;
  }
}

function evaluateWrapperArgument(evaluator: StaticEvaluator, module: ParsedSource, call: ts.CallExpression): Located | undefined {
  const [argument, ...rest] = call.arguments;
  if (!argument || rest.length > 0 || ts.isSpreadElement(argument)) {
    const given = call.arguments.length === 1 ? "a spread argument" : `${call.arguments.length} arguments`;
    evaluator.report(Diagnostics.PluginWrapperArguments, module.spanOf(call), [given], undefined);
    return undefined;
  }
  return evaluator.evaluate(module, argument, undefined, 0);
}

interface WrapperCall {
  readonly module: ParsedSource;
  readonly call: ts.CallExpression;
}

/**
 * Follows the default export through consts, `export { x as default }` and relative
 * re-exports to a `defineAssemblyLinePlugin(…)` call, without reporting anything: when the
 * chain leads elsewhere the normal evaluation reports what is wrong.
 */
function findWrapperCall(evaluator: StaticEvaluator, module: ParsedSource, target: ExportTarget, hops: number): WrapperCall | undefined {
  if (hops > MAX_HOPS) return undefined;
  switch (target.kind) {
    case "expression":
      return wrapperFromExpression(evaluator, module, target.expression, hops + 1);
    case "local":
      return target.typeOnly ? undefined : wrapperFromName(evaluator, module, target.localName, hops + 1);
    case "reexport":
      return target.typeOnly ? undefined : wrapperFromImport(evaluator, module, target.specifier, target.imported, hops + 1);
    default:
      return undefined;
  }
}

function wrapperFromExpression(evaluator: StaticEvaluator, module: ParsedSource, node: ts.Expression, hops: number): WrapperCall | undefined {
  const expression = skipTypeWrappers(node);
  if (ts.isCallExpression(expression)) {
    return coreFunctionOf(module, expression) === "defineAssemblyLinePlugin" ? { module, call: expression } : undefined;
  }
  return ts.isIdentifier(expression) ? wrapperFromName(evaluator, module, expression.text, hops + 1) : undefined;
}

function wrapperFromName(evaluator: StaticEvaluator, module: ParsedSource, name: string, hops: number): WrapperCall | undefined {
  if (hops > MAX_HOPS) return undefined;
  const binding = moduleScopeOf(module).bindings.get(name);
  if (binding?.kind === "const" && !binding.destructured && binding.declaration.initializer) {
    return wrapperFromExpression(evaluator, module, binding.declaration.initializer, hops + 1);
  }
  if (binding?.kind === "import" && !binding.typeOnly && binding.imported !== "*") {
    return wrapperFromImport(evaluator, module, binding.specifier, binding.imported, hops + 1);
  }
  return undefined;
}

function wrapperFromImport(evaluator: StaticEvaluator, module: ParsedSource, specifier: string, imported: string, hops: number): WrapperCall | undefined {
  const resolution = resolveImport(specifier, module.path, evaluator.session);
  if (resolution.kind !== "module") return undefined;
  const target = evaluator.references.loadModule(resolution.path);
  const found = target && evaluator.references.findExport(target, imported);
  return found ? findWrapperCall(evaluator, found[0], found[1], hops + 1) : undefined;
}
