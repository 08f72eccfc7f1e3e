/**
 * The `definition` rules of a tool descriptor (DESIGN §3): plugin-relative and beginning
 * with `./`, inside the plugin root after resolving symlinks, an existing module file.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { CompilerHost } from "../../common/host.js";
import { didYouMean } from "../../common/did-you-mean.js";
import { isPathInside as isInside } from "../../common/path-inside.js";

const MODULE_EXTENSIONS = new Set([".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"]);

/** Result of {@link resolveDefinition}: the absolute module path, or why there is none. */
export interface ResolvedDefinition {
  /** Absolute path as written under the plugin root (symlinks not resolved), when valid. */
  readonly file: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Resolves `definition` against `pluginRoot`.
 *
 * @param location where the `definition` value is written (diagnostics point there).
 * @param propertyPath property path of the value (`tools.echo.definition`).
 */
export function resolveDefinition(
  host: CompilerHost,
  pluginRoot: string,
  definition: string,
  location: SourceLocation,
  propertyPath: readonly PropertyKey[],
  /** Folder of the entry that names the definition (for a hint when the path was written relative to it). */
  entryDir?: string,
): ResolvedDefinition {
  const fail = (diagnostic: Diagnostic): ResolvedDefinition => ({ file: undefined, diagnostics: [diagnostic] });
  const details = { path: propertyPath };
  if (!definition.startsWith("./")) {
    return fail(createDiagnostic(Diagnostics.DefinitionNotRelative, location, [definition], { ...details, ...withDotSlashHint(host, pluginRoot, definition) }));
  }
  const file = path.resolve(pluginRoot, definition);
  if (!isInside(pluginRoot, file)) return fail(createDiagnostic(Diagnostics.DefinitionEscapesPlugin, location, [definition, ""], details));
  const kind = host.kind(file);
  if (kind === "missing") {
    const hint = missingDefinitionHint(host, pluginRoot, definition, entryDir);
    return fail(createDiagnostic(Diagnostics.DefinitionMissing, location, [definition], { ...details, ...(hint ? { hint } : {}) }));
  }
  const real = host.realpath(file);
  if (real === undefined) {
    return fail(createDiagnostic(Diagnostics.DefinitionMissing, location, [definition], { ...details, hint: "It is a symlink whose target does not exist." }));
  }
  const realRoot = host.realpath(pluginRoot) ?? pluginRoot;
  if (!isInside(realRoot, real)) {
    return fail(createDiagnostic(Diagnostics.DefinitionEscapesPlugin, location, [definition, " through a symlink"], details));
  }
  const realKind = host.kind(real);
  if (realKind !== "file") {
    return fail(createDiagnostic(Diagnostics.DefinitionNotFile, location, [definition, realKind === "directory" ? "a directory" : "not a regular file"], details));
  }
  if (!MODULE_EXTENSIONS.has(path.extname(file).toLowerCase())) {
    return fail(createDiagnostic(Diagnostics.DefinitionNotModule, location, [definition], details));
  }
  return { file, diagnostics: [] };
}

/** A fix-it for a definition that does not exist, when a likely intended file does. */
function missingDefinitionHint(host: CompilerHost, pluginRoot: string, definition: string, entryDir: string | undefined): string | undefined {
  const exists = (file: string) => host.kind(file) === "file" || host.kind(file) === "symlink";
  const asWritten = (file: string) => `./${path.relative(pluginRoot, file).split(path.sep).join("/")}`;
  if (entryDir) {
    const nextToEntry = path.resolve(entryDir, definition);
    if (isInside(pluginRoot, nextToEntry) && exists(nextToEntry)) {
      return `definition is relative to the plugin root, not to the entry: write '${asWritten(nextToEntry)}'.`;
    }
  }
  const file = path.resolve(pluginRoot, definition);
  for (const [from, to] of [[".js", ".ts"], [".mjs", ".mts"], [".js", ".tsx"]] as const) {
    if (file.endsWith(from) && exists(file.slice(0, -from.length) + to)) {
      return `definition names the source file itself: write '${asWritten(file.slice(0, -from.length) + to)}'.`;
    }
  }
  // A misspelled file name: the closest module in the same folder.
  const siblings = (host.readDirectory(path.dirname(file)) ?? []).filter((entry) => entry.kind !== "directory" && /\.[cm]?[jt]sx?$/i.test(entry.name)).map((entry) => entry.name);
  const closest = didYouMean(path.basename(file), siblings);
  if (closest !== undefined) return `Did you mean '${asWritten(path.join(path.dirname(file), closest))}'?`;
  return "definition is relative to the plugin root (the folder with plugin.json).";
}

/**
 * AL4005's hint when the same path with `./` before it names a file of the plugin
 * (`ai.assemblyline/spin.ts` → "Did you mean './ai.assemblyline/spin.ts'?", which the editor's
 * quick fix applies; helper-78's trial: the catalog's example named echo.ts). Nothing (the
 * catalog's hint) for an absolute or parent path, or when no such file exists.
 */
function withDotSlashHint(host: CompilerHost, pluginRoot: string, definition: string): { hint?: string } {
  if (definition === "" || path.isAbsolute(definition) || definition.startsWith("../") || definition.startsWith(".\\") || definition.includes("\\")) return {};
  const candidate = `./${definition}`;
  const file = path.resolve(pluginRoot, candidate);
  if (!isInside(pluginRoot, file) || host.kind(file) !== "file") return {};
  return { hint: `Did you mean '${candidate}'? Definitions are written relative to the plugin root, beginning with './'.` };
}
