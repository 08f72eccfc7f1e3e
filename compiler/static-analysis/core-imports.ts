/**
 * Recognises calls to the authoring API (`defineAssemblyLinePlugin`, `defineTool`,
 * `approvalRequired`) by how the callee is imported, not by its spelling alone:
 * `import { defineTool as tool } from "@assemblyline-agents/core"` makes `tool({...})` a
 * defineTool call, while a local function named `defineTool` is not one. Every specifier of
 * `contract/authoring-core.ts` counts (`@assemblyline-agents/core` and the package's own
 * `@assemblyline-agents/assembly-line/core`), so the entry's reading and the descriptor/
 * `defineTool` drift check see the same calls whichever spelling a plugin uses.
 */
import { AUTHORING_CORE_SPECIFIERS, isAuthoringCoreSpecifier } from "../../contract/authoring-core.js";
import { ts } from "./typescript.js";
import { moduleScopeOf } from "./module-scope.js";
import type { ParsedModule } from "./source-store.js";

/** The specifier messages suggest for the authoring API (the first of {@link AUTHORING_CORE_SPECIFIERS}). */
export const CORE_PACKAGE = AUTHORING_CORE_SPECIFIERS[0];

/** A module that parsed. */
export type ParsedSource = ParsedModule & { readonly sourceFile: ts.SourceFile };

/** The authoring functions the analysis understands. */
const CORE_FUNCTIONS: ReadonlySet<string> = new Set(["defineAssemblyLinePlugin", "defineTool", "approvalRequired"]);

/**
 * The core export a call invokes (`"defineTool"`, …), or `undefined` when the callee is not a
 * (possibly renamed or namespace-qualified) import from one of {@link AUTHORING_CORE_SPECIFIERS}.
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
    if (binding?.kind === "import" && isAuthoringCoreSpecifier(binding.specifier) && !binding.typeOnly && binding.imported !== "*") return binding.imported;
    if (allowUnbound && !binding && CORE_FUNCTIONS.has(callee.text)) return callee.text;
    return undefined;
  }
  if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
    const binding = scope.bindings.get(callee.expression.text);
    if (binding?.kind === "import" && isAuthoringCoreSpecifier(binding.specifier) && binding.imported === "*") return callee.name.text;
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
