/**
 * The import specifiers under which plugin code reaches the authoring API
 * (`defineAssemblyLinePlugin`, `defineTool`, `approvalRequired`, …; `runtime-min/authoring/`).
 * One list, so every part of the toolchain that recognises an authoring call — the static
 * analysis of entries and definition modules, and with it the descriptor/`defineTool` drift
 * check — accepts exactly the same spellings.
 *
 * - `@assemblyline-agents/core`: the name the README and the seed use (a `paths` mapping or an
 *   alias points it at the package's `./core` export; the packager bundles it from the toolchain);
 * - `@assemblyline-agents/assembly-line/core`: the package's own `./core` export (package.json
 *   `exports`), which resolves from `node_modules` without any mapping.
 */

/** Every specifier that names the authoring API; the first is the one messages and hints suggest. */
export const AUTHORING_CORE_SPECIFIERS = ["@assemblyline-agents/core", "@assemblyline-agents/assembly-line/core"] as const;

const SPECIFIERS: ReadonlySet<string> = new Set(AUTHORING_CORE_SPECIFIERS);

/** True when an import specifier, exactly as written, names the authoring API. */
export function isAuthoringCoreSpecifier(specifier: string): boolean {
  return SPECIFIERS.has(specifier);
}

/**
 * The fields of a `ToolDefinition` (`runtime-min/authoring/`), the object `defineTool({...})`
 * takes, in the order of its declaration: the static analysis reports any other field written
 * in that object (AL4001), as `tsc` does, so a misspelt key is caught without `tsc`.
 */
export const TOOL_DEFINITION_FIELDS = ["description", "inputSchema", "needsApproval", "execute", "toModelOutput"] as const;
