/**
 * Resolves names for the static evaluator: top-level `const` bindings (memoised, with cycle
 * detection), relative imports of static values and JSON files inside the plugin root, and
 * the exports of imported modules (`export const`, `export { a as b }`, `export default`,
 * re-exports and `export *`). Anything else a name can be bound to is reported in words.
 */
import * as path from "node:path";
import { ts } from "./typescript.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { didYouMean } from "../../common/did-you-mean.js";
import type { ParsedSource } from "./core-imports.js";
import { Hints } from "./describe-construct.js";
import { reportInvalidUtf8, reportJsonProblems, reportSyntaxProblems } from "./file-problems.js";
import { spanLocation, type Located } from "./located-tree.js";
import { resolveImport } from "./module-resolution.js";
import { moduleScopeOf, type Binding, type ExportTarget } from "./module-scope.js";
import { pathSegments, type EvaluatorServices, type PathLink } from "./evaluation-path.js";

/** An import binding or a re-export: a name taken from another module. */
interface ImportLike {
  readonly name: string;
  readonly node: ts.Node;
  readonly specifier: string;
  readonly specifierNode: ts.StringLiteral;
  readonly imported: string;
  readonly typeOnly: boolean;
  readonly attributeType?: string | undefined;
}

const PENDING = Symbol("pending");

const BINDING_WORDS: Readonly<Record<string, string>> = {
  let: "is declared with 'let'",
  var: "is declared with 'var'",
  using: "is declared with 'using'",
  function: "is a function",
  class: "is a class",
  enum: "is an enum",
  namespace: "is a namespace",
  declared: "is declared without a value",
  type: "is a type, not a value",
  "import-equals": "is imported with 'import … = require(…)'",
};

/** Name resolution of one evaluator (one analysis session). */
export class ReferenceResolver {
  readonly #memo = new Map<ts.Node, Located | null | typeof PENDING>();
  readonly #stack: { readonly key: ts.Node; readonly name: string; readonly file: string }[] = [];
  readonly #checkedFiles = new Map<string, boolean>();

  constructor(readonly evaluator: EvaluatorServices) {}

  /** Evaluates the value of the top-level name `name` of module `m`, used at `useNode`. */
  evaluateName(m: ParsedSource, name: string, useNode: ts.Node, path: PathLink | undefined, depth: number): Located | undefined {
    const binding = moduleScopeOf(m).bindings.get(name);
    if (!binding) return this.#unbound(m, name, useNode, path);
    if (binding.kind === "import") return this.#evaluateImport(m, binding, useNode, path, depth);
    if (binding.kind !== "const") {
      const hint = bindingHint(binding);
      this.evaluator.report(Diagnostics.NotStatic, m.spanOf(useNode), [`a reference to '${name}', which ${BINDING_WORDS[binding.kind]}`], path, { hint });
      return undefined;
    }
    const initializer = binding.declaration.initializer;
    if (binding.destructured || !initializer) {
      const words = binding.destructured ? "is declared by destructuring" : "has no value";
      const hint = `Declare '${name}' with its own const and a static value.`;
      this.evaluator.report(Diagnostics.NotStatic, m.spanOf(useNode), [`a reference to '${name}', which ${words}`], path, { hint });
      return undefined;
    }
    if (useNode.pos < binding.declaration.pos && !ts.isExportSpecifier(useNode)) {
      this.evaluator.report(Diagnostics.UsedBeforeDeclaration, m.spanOf(useNode), [name], path, {
        related: [{ ...spanLocation(m.spanOf(binding.declaration.name)), message: `'${name}' is declared here.` }],
      });
    }
    return this.#memoized(binding.declaration, name, m, { module: m, node: useNode }, path, () =>
      this.evaluator.evaluate(m, initializer, path, depth),
    );
  }

  /**
   * The parsed module at `filePath` when it can be evaluated; its read and syntax problems
   * are reported once per session.
   */
  loadModule(filePath: string): ParsedSource | undefined {
    const loaded = this.evaluator.session.load(filePath, false);
    if (loaded?.kind !== "module") return undefined;
    if (!this.#checkedFiles.has(filePath)) {
      if (loaded.invalidUtf8) reportInvalidUtf8(this.evaluator.sink, loaded.module);
      this.#checkedFiles.set(filePath, reportSyntaxProblems(this.evaluator.sink, loaded.module));
    }
    return this.#checkedFiles.get(filePath) ? (loaded.module as ParsedSource) : undefined;
  }

  #unbound(m: ParsedSource, name: string, useNode: ts.Node, path: PathLink | undefined): undefined {
    const span = m.spanOf(useNode);
    if (name === "undefined") {
      this.evaluator.report(Diagnostics.NotJsonValue, span, ["'undefined'"], path, { hint: Hints.undefinedValue });
    } else if (name === "NaN" || name === "Infinity") {
      this.evaluator.report(Diagnostics.NotJsonValue, span, [`'${name}'`], path, { hint: Hints.numbers });
    } else {
      const candidates = [...moduleScopeOf(m).bindings.values()].filter((b) => b.kind === "const" || b.kind === "import").map((b) => b.name);
      const suggestion = didYouMean(name, candidates);
      this.evaluator.report(Diagnostics.UndeclaredName, span, [name], path, suggestion ? { hint: `Did you mean '${suggestion}'?` } : {});
    }
    return undefined;
  }

  /** Evaluates once per key; a key met again while it is being evaluated is a cycle (AL3202). */
  #memoized(
    key: ts.Node,
    name: string,
    owner: ParsedSource,
    use: { readonly module: ParsedSource; readonly node: ts.Node },
    path: PathLink | undefined,
    compute: () => Located | undefined,
  ): Located | undefined {
    const state = this.#memo.get(key);
    if (state === PENDING) {
      this.evaluator.report(Diagnostics.ReferenceCycle, use.module.spanOf(use.node), [name, this.#cycleWords(key, name, owner.path)], path);
      return undefined;
    }
    if (state !== undefined) return state ?? undefined;
    this.#memo.set(key, PENDING);
    this.#stack.push({ key, name, file: owner.path });
    const result = compute();
    this.#stack.pop();
    this.#memo.set(key, result ?? null);
    return result;
  }

  #cycleWords(key: ts.Node, name: string, file: string): string {
    const cycle = [...this.#stack.slice(this.#stack.findIndex((entry) => entry.key === key)), { key, name, file }];
    const oneFile = cycle.every((entry) => entry.file === file);
    return cycle.map((entry) => (oneFile ? entry.name : `${entry.name} (${path.basename(entry.file)})`)).join(" → ");
  }

  #evaluateImport(m: ParsedSource, imported: ImportLike, useNode: ts.Node, path: PathLink | undefined, depth: number): Located | undefined {
    const report = this.evaluator.report.bind(this.evaluator);
    const related = [{ ...spanLocation(m.spanOf(imported.node)), message: `'${imported.name}' is imported here.` }];
    if (imported.typeOnly || imported.imported === "*") {
      const words = imported.typeOnly ? "is a type-only import" : "is a namespace import";
      const hint = imported.typeOnly ? "A type has no value at run time; write the value itself." : "Import the const you need by name: import { value } from '…'.";
      report(Diagnostics.NotStatic, m.spanOf(useNode), [`a reference to '${imported.name}', which ${words}`], path, { hint, related });
      return undefined;
    }
    const resolution = resolveImport(imported.specifier, m.path, this.evaluator.session);
    const at = m.spanOf(imported.specifierNode);
    switch (resolution.kind) {
      case "package":
        report(Diagnostics.ImportFromPackage, m.spanOf(useNode), [`'${imported.name}'`, resolution.name], path, { related });
        return undefined;
      case "not-found":
        report(Diagnostics.ImportNotFound, at, [imported.specifier, resolution.tried.join(", ")], path);
        return undefined;
      case "outside-root":
        report(Diagnostics.ImportOutsidePluginRoot, at, [imported.specifier, resolution.shown], path);
        return undefined;
      case "unsupported":
        report(Diagnostics.NotStatic, at, [resolution.words], path, { hint: "Import a const from a module, or a JSON file." });
        return undefined;
      case "json":
        return this.#evaluateJsonImport(m, imported, resolution.path, path);
      case "module": {
        const target = this.loadModule(resolution.path);
        if (!target) return undefined;
        return this.evaluateExport(target, imported.imported, { module: m, node: imported.node, specifier: imported.specifier }, path, depth);
      }
    }
  }

  #evaluateJsonImport(m: ParsedSource, imported: ImportLike, filePath: string, path: PathLink | undefined): Located | undefined {
    if (imported.imported !== "default") {
      const hint = `Import the whole file and reference it: import data from '${imported.specifier}'.`;
      this.evaluator.report(Diagnostics.NotStatic, m.spanOf(imported.node), ["a named import from a JSON file"], path, { hint });
      return undefined;
    }
    if (imported.attributeType !== undefined && imported.attributeType !== "json") {
      const words = `an import of a JSON file with type '${imported.attributeType}'`;
      this.evaluator.report(Diagnostics.NotStatic, m.spanOf(imported.specifierNode), [words], path, { hint: "Use with { type: \"json\" }, or no import attributes." });
      return undefined;
    }
    const loaded = this.evaluator.session.load(filePath, true);
    if (loaded?.kind !== "json") return undefined;
    if (!this.#checkedFiles.has(filePath)) {
      if (loaded.invalidUtf8) reportInvalidUtf8(this.evaluator.sink, loaded.document.file);
      this.#checkedFiles.set(filePath, reportJsonProblems(this.evaluator.sink, loaded.document, pathSegments(path)));
    }
    return loaded.document.root;
  }

  /**
   * Evaluates the export `exportName` of `target`; `site` is where it is imported (or, for an
   * entry's own default export, the module itself), for the missing-name diagnostic.
   */
  evaluateExport(
    target: ParsedSource,
    exportName: string,
    site: { readonly module: ParsedSource; readonly node: ts.Node; readonly specifier: string },
    path: PathLink | undefined,
    depth: number,
  ): Located | undefined {
    const found = this.findExport(target, exportName);
    if (!found) {
      const names = [...moduleScopeOf(target).exports.keys()];
      const suggestion = didYouMean(exportName, names);
      this.evaluator.report(Diagnostics.ImportedNameMissing, site.module.spanOf(site.node), [site.specifier, exportName], path, suggestion ? { hint: `Did you mean '${suggestion}'?` } : {});
      return undefined;
    }
    const [owner, exported] = found;
    const use = { module: site.module, node: site.node };
    switch (exported.kind) {
      case "local":
        if (exported.typeOnly) {
          this.evaluator.report(Diagnostics.NotStatic, owner.spanOf(exported.node), [`a reference to '${exportName}', which is a type-only export`], path);
          return undefined;
        }
        return this.evaluateName(owner, exported.localName, exported.node, path, depth);
      case "reexport": {
        const reexport: ImportLike = { ...exported, name: exportName };
        return this.#memoized(exported.node, exportName, owner, use, path, () => this.#evaluateImport(owner, reexport, exported.node, path, depth));
      }
      case "expression":
        return this.#memoized(exported.node, exportName, owner, use, path, () => this.evaluator.evaluate(owner, exported.expression, path, depth));
      case "declaration": {
        const words = exported.what === "function" ? "a function" : "a class";
        this.evaluator.report(Diagnostics.NotStatic, owner.spanOf(exported.node), [words], path, { hint: Hints.functions });
        return undefined;
      }
    }
  }

  /** Finds an export in a module or, through `export * from`, in the modules it re-exports. */
  findExport(module: ParsedSource, name: string, seen = new Set<string>()): [ParsedSource, ExportTarget] | undefined {
    seen.add(module.path);
    const scope = moduleScopeOf(module);
    const direct = scope.exports.get(name);
    if (direct) return [module, direct];
    if (name === "default") return undefined;
    for (const star of scope.starExports) {
      const resolution = resolveImport(star.specifier, module.path, this.evaluator.session);
      if (resolution.kind !== "module" || seen.has(resolution.path)) continue;
      const target = this.loadModule(resolution.path);
      const found = target && this.findExport(target, name, seen);
      if (found) return found;
    }
    return undefined;
  }
}

function bindingHint(binding: Binding): string {
  switch (binding.kind) {
    case "let":
    case "var":
    case "using":
      return `Declare '${binding.name}' with 'const' and a static value at the top level of the module.`;
    case "function":
    case "class":
      return Hints.functions;
    case "type":
      return "A type has no value at run time; write the value itself.";
    case "import-equals":
      return "Use a static relative import of a const or a JSON file.";
    default:
      return Hints.literal;
  }
}
