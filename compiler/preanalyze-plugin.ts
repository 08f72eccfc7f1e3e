/**
 * One plugin folder's share of the static analysis, done ahead of `analyzeAgent`'s passes so
 * that two threads can share it (issue 14 item 1, `analysis-pool.ts`): the Assembly Line entry
 * and every definition module its tool descriptors name, analysed with the same analyzer calls
 * (same file, same plugin root) pass 1 and pass 2 of `analyzeAgent` make. The results land in
 * the analyzer's caches (and, through its `persistent` store, in the analysis worker's
 * answers); nothing is reported from here: the passes report as before.
 */
import * as path from "node:path";
import type { CompilerHost } from "../common/host.js";
import { isJsonObject } from "../common/json-value.js";
import { fileStart } from "../common/positions.js";
import { findExtensionEntry } from "./plugin-package/extension-directory.js";
import type { StaticAnalyzer } from "./static-analysis/static-analyzer.js";
import { resolveDefinition } from "./validation/resolve-definition.js";

/**
 * Analyses the entry of the plugin at `pluginRoot` (`entryFile` when the caller already found
 * it, else looked up as `loadPluginPackage` does) and every definition module a tool
 * descriptor's `definition` string resolves to (`resolveDefinition`, as validation resolves
 * it). A definition pass 2 will not ask for (a broken descriptor) is analysed for nothing,
 * never reported. Never throws for bad input.
 */
export function preanalyzePlugin(host: CompilerHost, analyzer: StaticAnalyzer, pluginRoot: string, entryFile?: string): void {
  let file = entryFile;
  if (file === undefined) {
    const rootReal = host.realpath(pluginRoot);
    if (rootReal === undefined) return;
    file = findExtensionEntry(host, pluginRoot, rootReal).entryFile;
    if (file === undefined) return;
  }
  const tools = analyzer.analyzeEntry(file, pluginRoot).entry?.value["tools"];
  if (!isJsonObject(tools)) return;
  for (const name of Object.keys(tools)) {
    const descriptor = tools[name];
    const definition = isJsonObject(descriptor) ? descriptor["definition"] : undefined;
    if (typeof definition !== "string") continue;
    const resolved = resolveDefinition(host, pluginRoot, definition, fileStart(file), ["tools", name, "definition"], path.dirname(file));
    if (resolved.file) analyzer.analyzeDefinition(resolved.file, pluginRoot);
  }
}
