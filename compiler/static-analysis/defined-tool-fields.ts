/**
 * The statically readable fields of one `defineTool({...})` call: `description`,
 * `inputSchema` and `needsApproval` (seed "Tool implementation", "Approval Gates"), read with
 * the same evaluator as entries, silently. A field whose value depends on run time, or that a
 * later unreadable spread could override, is left out.
 */
import { ts } from "./typescript.js";
import type { SourceLocation } from "../../diagnostics/diagnostic.js";
import type { JsonValue } from "../../common/json-value.js";
import type { DefinedTool } from "../model.js";
import { coreFunctionOf, skipTypeWrappers, type ParsedSource } from "./core-imports.js";
import { spanLocation, toLocatedValue, ValueTooLargeError, type Located, type Span } from "./located-tree.js";
import { moduleScopeOf } from "./module-scope.js";
import type { StaticEvaluator } from "./static-evaluator.js";
import { DEFAULT_SIDE_EFFECT } from "../../contract/approval.js";
import { TOOL_DEFINITION_FIELDS } from "../../contract/authoring-core.js";

/** The fields of {@link DefinedTool} read from a call. */
export type ToolFields = Pick<DefinedTool, "description" | "inputSchema" | "needsApproval">;

type FieldName = "description" | "inputSchema" | "needsApproval";
const FIELDS: readonly FieldName[] = ["description", "inputSchema", "needsApproval"];

/** Where a field's value comes from: an expression of the module, an evaluated spread member, or unknown. */
type FieldSource =
  | { readonly kind: "expression"; readonly node: ts.Expression }
  | { readonly kind: "located"; readonly node: Located }
  | { readonly kind: "unknown" };

/** Largest inputSchema (in values) read from a definition. */
const MAX_SCHEMA_VALUES = 100_000;

/** Reads the static fields of `defineTool(arg)`; never reports anything. */
export function readToolFields(evaluator: StaticEvaluator, module: ParsedSource, call: ts.CallExpression): ToolFields {
  const object = toolObject(module, call);
  if (!object) return {};
  const sources = fieldSources(evaluator, module, object);
  const out: { -readonly [K in FieldName]?: ToolFields[K] } = {};
  const description = sources.get("description");
  if (description) {
    const node = locate(evaluator, module, description);
    if (node?.kind === "leaf" && typeof node.value === "string" && !node.partial) out.description = { value: node.value, location: where(module, description, node) };
  }
  const schema = sources.get("inputSchema");
  if (schema) {
    const node = locate(evaluator, module, schema);
    const value = node && !node.partial ? plainValue(node) : undefined;
    if (node && value !== undefined) out.inputSchema = { value, location: where(module, schema, node) };
  }
  const approval = sources.get("needsApproval");
  if (approval) {
    const value = approvalValue(evaluator, module, approval);
    if (value !== undefined) out.needsApproval = value;
  } else if (!sources.has("unknown")) {
    out.needsApproval = { value: null, location: spanLocation(module.spanOf(object)) };
  }
  return out;
}

/** A field written in a `defineTool({...})` object that a ToolDefinition does not have. */
export interface UnknownToolField {
  readonly name: string;
  /** The key as written. */
  readonly key: ts.Node;
  /** The module the key is written in: the call's, or the one a spread's source is imported from. */
  readonly module: ParsedSource;
  /**
   * The spread (`...base`) of the call's object through which the key reaches the call, when
   * it is written in a spread object rather than in the call's object itself.
   */
  readonly spread?: ts.SpreadAssignment;
}

/** How deep spreads of spreads are followed (`...a` where `a = { ...b }`). */
const MAX_SPREAD_DEPTH = 4;

/**
 * The parsed module the import specifier `specifier`, written in `from`, names when it is a
 * relative module of the same plugin that parsed without errors (`definition-analysis.ts`
 * resolves it through the session, so the module is a dependency of the analysis and an edit
 * of it invalidates the cached result); `undefined` for anything else. Reports nothing.
 */
export type ImportedModule = (from: ParsedSource, specifier: string) => ParsedSource | undefined;

/**
 * How many modules one spread's named import may look into (`import { x }` → `export { x } from`
 * → `export *` → … → `export const x`, each `export *` tried counting too); past it the spread
 * is not followed (nothing reported).
 */
const MAX_IMPORT_HOPS = 8;

/** An object literal and the module it is written in. */
interface ModuleLiteral {
  readonly literal: ts.ObjectLiteralExpression;
  readonly module: ParsedSource;
}

/**
 * The fields of `defineTool(arg)`'s object literal (written directly or in a top-level const)
 * that are not {@link TOOL_DEFINITION_FIELDS}: written keys only (a computed key says nothing
 * certain about a name). A spread is followed when its source is an object literal of this
 * file (inline, or a top-level `const` that is not destructured) or, given `imported`, a named
 * import of such a `const` exported by a relative module of the same plugin, directly or through
 * re-exports ({@link importedLiteral}; read statically, never run), spreads of spreads too, each
 * in its own module, up to {@link MAX_SPREAD_DEPTH}; a
 * key that reaches the call that way is reported only when it is a near miss of a field
 * (`isNearMiss`: `descripton`), since an object spread into several places may carry data the
 * others use, and `tsc` checks no excess property of a spread (helper-76). A spread of anything
 * else (a package, a default or namespace import, a call, a parameter) is not guessed at.
 */
export function unknownToolFields(module: ParsedSource, call: ts.CallExpression, isNearMiss: (name: string) => boolean, imported?: ImportedModule): UnknownToolField[] {
  const object = toolObject(module, call);
  if (!object) return [];
  const known: readonly string[] = TOOL_DEFINITION_FIELDS;
  const out: UnknownToolField[] = [];
  const visit = (at: ModuleLiteral, spread: ts.SpreadAssignment | undefined, depth: number, seen: Set<ts.Node>): void => {
    for (const property of at.literal.properties) {
      if (ts.isSpreadAssignment(property)) {
        const source = spreadSourceOf(at.module, property.expression, imported);
        if (source && depth < MAX_SPREAD_DEPTH && !seen.has(source.literal)) visit(source, spread ?? property, depth + 1, new Set([...seen, source.literal]));
        continue;
      }
      const key = property.name;
      if (!key || !(ts.isIdentifier(key) || ts.isStringLiteral(key) || ts.isNoSubstitutionTemplateLiteral(key) || ts.isNumericLiteral(key))) continue;
      if (known.includes(key.text)) continue;
      if (spread === undefined) out.push({ name: key.text, key, module: at.module });
      else if (isNearMiss(key.text)) out.push({ name: key.text, key, module: at.module, spread });
    }
  };
  visit({ literal: object, module }, undefined, 0, new Set([object]));
  return out;
}

/**
 * A spread's source as an object literal: one of `module` ({@link objectLiteralOf}), or, given
 * `imported`, the `const` a named import names ({@link boundLiteral}).
 */
function spreadSourceOf(module: ParsedSource, expression: ts.Expression, imported: ImportedModule | undefined): ModuleLiteral | undefined {
  const literal = objectLiteralOf(module, expression);
  if (literal) return { literal, module };
  const value = skipTypeWrappers(expression);
  if (!imported || !ts.isIdentifier(value)) return undefined;
  return boundLiteral(module, value.text, { imported, hops: 0, seen: new Set() });
}

/** The state of following one named import: the module loader, the hops so far, the exports visited. */
interface ImportWalk {
  readonly imported: ImportedModule;
  hops: number;
  /** `path` + NUL + export name of each export looked at: a re-export cycle stops there. */
  readonly seen: Set<string>;
}

/**
 * The object literal the top-level name `name` of `module` holds: its own non-destructured
 * `const`, or, when `name` is a named import (`import { x as name }`), what the imported
 * module exports under `x` ({@link exportedLiteral}). Type-only, default and namespace
 * imports give `undefined`.
 */
function boundLiteral(module: ParsedSource, name: string, walk: ImportWalk): ModuleLiteral | undefined {
  const binding = moduleScopeOf(module).bindings.get(name);
  if (binding?.kind !== "import") {
    const literal = constLiteralOf(module, name);
    return literal ? { literal, module } : undefined;
  }
  if (binding.typeOnly) return undefined;
  return importedLiteral(module, binding.specifier, binding.imported, walk);
}

/** What the module `specifier` (written in `from`) exports under `name`, when it is a relative module of the plugin. */
function importedLiteral(from: ParsedSource, specifier: string, name: string, walk: ImportWalk): ModuleLiteral | undefined {
  if (name === "*" || name === "default" || walk.hops >= MAX_IMPORT_HOPS) return undefined;
  walk.hops++;
  const target = walk.imported(from, specifier);
  return target ? exportedLiteral(target, name, walk) : undefined;
}

/**
 * The object literal `module` exports under `name`, followed the way ES modules resolve an
 * export: its own export (`export const name`, `export { local as name }`, where `local` may
 * itself be a named import), a re-export (`export { x as name } from "…"`), else the first
 * `export * from "…"` that has it (as the static evaluator's `findExport` does). An export seen
 * before in this walk (a re-export cycle, which `tsc` reports) stops the walk; nothing is
 * reported here.
 */
function exportedLiteral(module: ParsedSource, name: string, walk: ImportWalk): ModuleLiteral | undefined {
  const key = `${module.path}\0${name}`;
  if (walk.seen.has(key)) return undefined;
  walk.seen.add(key);
  const scope = moduleScopeOf(module);
  const exported = scope.exports.get(name);
  if (exported?.kind === "local") return exported.typeOnly ? undefined : boundLiteral(module, exported.localName, walk);
  if (exported?.kind === "reexport") return exported.typeOnly ? undefined : importedLiteral(module, exported.specifier, exported.imported, walk);
  if (exported || name === "default") return undefined;
  for (const star of scope.starExports) {
    const found = importedLiteral(module, star.specifier, name, walk);
    if (found) return found;
  }
  return undefined;
}

/**
 * The object literal an expression is, inline or as a top-level non-destructured `const` of the
 * module (a spread's source, `defineTool`'s argument); `undefined` for anything else.
 */
function objectLiteralOf(module: ParsedSource, expression: ts.Expression): ts.ObjectLiteralExpression | undefined {
  const value = skipTypeWrappers(expression);
  if (ts.isIdentifier(value)) return constLiteralOf(module, value.text);
  return ts.isObjectLiteralExpression(value) ? value : undefined;
}

/** The object literal the top-level non-destructured `const name` of `module` holds, if any. */
function constLiteralOf(module: ParsedSource, name: string): ts.ObjectLiteralExpression | undefined {
  const binding = moduleScopeOf(module).bindings.get(name);
  if (binding?.kind !== "const" || binding.destructured || !binding.declaration.initializer) return undefined;
  const value = skipTypeWrappers(binding.declaration.initializer);
  return ts.isObjectLiteralExpression(value) ? value : undefined;
}

/** The object literal passed to `defineTool`, directly or through a top-level const. */
function toolObject(module: ParsedSource, call: ts.CallExpression): ts.ObjectLiteralExpression | undefined {
  const argument = call.arguments[0];
  if (!argument || ts.isSpreadElement(argument)) return undefined;
  return objectLiteralOf(module, argument);
}

/**
 * The last source of each field, in property order. The key `"unknown"` is present when some
 * member could define any key (an unreadable spread or a computed key).
 */
function fieldSources(evaluator: StaticEvaluator, module: ParsedSource, object: ts.ObjectLiteralExpression): Map<FieldName | "unknown", FieldSource> {
  const sources = new Map<FieldName | "unknown", FieldSource>();
  const unknown = { kind: "unknown" } as const;
  for (const property of object.properties) {
    if (ts.isSpreadAssignment(property)) {
      const spread = evaluator.evaluate(module, property.expression, undefined, 1);
      if (spread?.kind === "object" && !spread.partial) {
        for (const field of FIELDS) {
          const member = spread.members.get(field);
          if (member) sources.set(field, { kind: "located", node: member.node });
        }
      } else {
        for (const field of FIELDS) sources.set(field, unknown);
        sources.set("unknown", unknown);
      }
      continue;
    }
    const name = property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) ? property.name.text : undefined;
    if (name === undefined) {
      if (property.name && ts.isComputedPropertyName(property.name)) {
        for (const field of FIELDS) sources.set(field, unknown);
        sources.set("unknown", unknown);
      }
      continue;
    }
    if (!(FIELDS as readonly string[]).includes(name)) continue;
    if (ts.isPropertyAssignment(property)) sources.set(name as FieldName, { kind: "expression", node: property.initializer });
    else if (ts.isShorthandPropertyAssignment(property)) sources.set(name as FieldName, { kind: "expression", node: property.name });
    else sources.set(name as FieldName, unknown);
  }
  return sources;
}

function locate(evaluator: StaticEvaluator, module: ParsedSource, source: FieldSource): Located | undefined {
  if (source.kind === "unknown") return undefined;
  if (source.kind === "located") return source.node;
  return evaluator.evaluate(module, source.node, undefined, 1);
}

/** The property's value expression in the definition, or where a spread member is written. */
function where(module: ParsedSource, source: FieldSource, node: Located): SourceLocation {
  const span: Span = source.kind === "expression" ? module.spanOf(source.node) : node.span;
  return spanLocation(span);
}

function plainValue(node: Located): JsonValue | undefined {
  try {
    return toLocatedValue(node, MAX_SCHEMA_VALUES, false).value;
  } catch (error) {
    if (error instanceof ValueTooLargeError) return undefined;
    throw error;
  }
}

/** `approvalRequired(reason, sideEffect?)`, `{ reason, sideEffect? }`, or `null`/`undefined` (none). */
function approvalValue(evaluator: StaticEvaluator, module: ParsedSource, source: FieldSource): ToolFields["needsApproval"] {
  if (source.kind === "unknown") return undefined;
  if (source.kind === "expression") {
    const expression = skipTypeWrappers(source.node);
    const location = spanLocation(module.spanOf(source.node));
    if (ts.isIdentifier(expression) && expression.text === "undefined" && !moduleScopeOf(module).bindings.has("undefined")) return { value: null, location };
    if (ts.isCallExpression(expression)) {
      if (coreFunctionOf(module, expression, true) !== "approvalRequired") return undefined;
      const [reasonNode, sideEffectNode] = expression.arguments;
      const reason = reasonNode && !ts.isSpreadElement(reasonNode) ? evaluator.evaluate(module, reasonNode, undefined, 1) : undefined;
      const sideEffect = sideEffectNode && !ts.isSpreadElement(sideEffectNode) ? evaluator.evaluate(module, sideEffectNode, undefined, 1) : undefined;
      if (reason?.kind !== "leaf" || typeof reason.value !== "string") return undefined;
      if (sideEffectNode && (sideEffect?.kind !== "leaf" || typeof sideEffect.value !== "string")) return undefined;
      const effect = sideEffect?.kind === "leaf" ? (sideEffect.value as string) : DEFAULT_SIDE_EFFECT;
      return { value: { reason: reason.value, sideEffect: effect }, location };
    }
  }
  const node = locate(evaluator, module, source);
  if (!node || node.partial) return undefined;
  const location = where(module, source, node);
  if (node.kind === "leaf") return node.value === null ? { value: null, location } : undefined;
  if (node.kind !== "object") return undefined;
  const reason = node.members.get("reason")?.node;
  const sideEffect = node.members.get("sideEffect")?.node;
  if (reason?.kind !== "leaf" || typeof reason.value !== "string") return undefined;
  if (sideEffect && (sideEffect.kind !== "leaf" || typeof sideEffect.value !== "string")) return undefined;
  return { value: { reason: reason.value, sideEffect: sideEffect?.kind === "leaf" ? (sideEffect.value as string) : DEFAULT_SIDE_EFFECT }, location };
}
