/**
 * Recognises calls to the authoring API of `@assemblyline-agents/core`
 * (`defineAssemblyLinePlugin`, `defineTool`, `approvalRequired`) by how the callee is imported,
 * not by its spelling alone: `import { defineTool as tool } from "@assemblyline-agents/core"`
 * makes `tool({...})` a defineTool call, while a local function named `defineTool` is not one.
 */
import { ts } from "./typescript.js";
import { moduleScopeOf } from "./module-scope.js";
import type { ParsedModule } from "./source-store.js";

/** The package plugin code imports the authoring API from. */
export const CORE_PACKAGE = "@assemblyline-agents/core";

/** A module that parsed. */
export type ParsedSource = ParsedModule & { readonly sourceFile: ts.SourceFile };

/** The authoring functions the analysis understands. */
const CORE_FUNCTIONS: ReadonlySet<string> = new Set(["defineAssemblyLinePlugin", "defineTool", "approvalRequired"]);

/**
 * The core export a call invokes (`"defineTool"`, …), or `undefined` when the callee is not a
 * (possibly renamed or namespace-qualified) import from {@link CORE_PACKAGE}.
 *
 * @param allowUnbound also accept a core function's own name that the module does not declare
 *   at all (documentation snippets often omit the import); used for definition modules only,
 *   never for the entry, whose reading must be exact.
 */
export function coreFunctionOf(module: ParsedSource, call: ts.CallExpression, allowUnbound = false): string | undefined {
  const scope = moduleScopeOf(module);
  const callee = call.expression;
  if (ts.isIdentifier(callee)) {
    const binding = scope.bindings.get(callee.text);
    if (binding?.kind === "import" && binding.specifier === CORE_PACKAGE && !binding.typeOnly && binding.imported !== "*") return binding.imported;
    if (allowUnbound && !binding && CORE_FUNCTIONS.has(callee.text)) return callee.text;
    return undefined;
  }
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
    const binding = scope.bindings.get(callee.expression.text);
    if (binding?.kind === "import" && binding.specifier === CORE_PACKAGE && binding.imported === "*") return callee.name.text;
  }
  return undefined;
}

/** Strips parentheses and type-only wrappers (`as`, `satisfies`, `<T>x`, `x!`). */
export function skipTypeWrappers(node: ts.Expression): ts.Expression {
  let current = node;
  while (
    ts.isParenthesizedExpression(current) ||
    ts.isAsExpression(current) ||
    ts.isSatisfiesExpression(current) ||
    ts.isTypeAssertionExpression(current) ||
    ts.isNonNullExpression(current)
  ) {
    current = current.expression;
  }
  return current;
}
