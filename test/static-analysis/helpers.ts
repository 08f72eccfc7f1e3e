/**
 * Shared set-up for static-analysis tests: an in-memory plugin at `/plugin` whose entry is
 * `/plugin/ai.assemblyline/index.ts`, and a compact view of diagnostics for exact assertions.
 */
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { DefinitionAnalysis, EntryAnalysis } from "../../compiler/model.js";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { createMemoryHost } from "./memory-host.js";
import { findLocation } from "../../compiler/location-table.js";

export const ROOT = "/plugin";
export const DIR = "/plugin/ai.assemblyline";
export const ENTRY = `${DIR}/index.ts`;

/** Joins lines with LF, so line numbers in a test are the array positions + 1. */
export function lines(...source: string[]): string {
  return source.join("\n");
}

/** Analyses `source` as the entry, with further files (absolute path → text). */
export function analyzeSource(source: string, files: Record<string, string> = {}, entry = ENTRY): EntryAnalysis {
  const host = createMemoryHost({ [entry]: source, ...files });
  return createStaticAnalyzer(host).analyzeEntry(entry, ROOT);
}

/** Analyses `source` as a definition module at `/plugin/ai.assemblyline/tool.ts`. */
export function analyzeDefinitionSource(source: string, files: Record<string, string> = {}, file = `${DIR}/tool.ts`): DefinitionAnalysis {
  const host = createMemoryHost({ [file]: source, ...files });
  return createStaticAnalyzer(host).analyzeDefinition(file, ROOT);
}

/** The fields tests assert on: code, position, path (and file when not the entry). */
export function brief(d: Diagnostic): { code: string; line: number; column: number; path?: string; file?: string } {
  return {
    code: d.code,
    line: d.line,
    column: d.column,
    ...(d.path !== undefined ? { path: d.path } : {}),
    ...(d.file !== ENTRY ? { file: d.file } : {}),
  };
}

/** The value at `pointer`'s location as `line:column` (and the key's, when present). */
export function where(result: EntryAnalysis, pointer: string): string {
  const found = findLocation(result.entry!.locations, pointer);
  if (!found) return "none";
  const value = `${found.value.line}:${found.value.column}`;
  return found.key ? `${value} key ${found.key.line}:${found.key.column}` : value;
}
