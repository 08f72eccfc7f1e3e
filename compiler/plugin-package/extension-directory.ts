/**
 * The Assembly Line extension directory, `ai.assemblyline/` (Agent Plugins v1 §8.2: "A client
 * that implements file-based behavior for a namespace MUST look for it in the corresponding
 * top-level directory"), and its statically inspected entry `index.{ts,mts,js,mjs}` (DESIGN §2).
 *
 * The directory and the entry must resolve inside the plugin root (§4.1 item 3; for any other
 * package path, access is denied). Exactly one entry file may exist. A top-level directory whose
 * name is a near miss of the namespace (`AI.AssemblyLine`, `ai-assemblyline`) is reported, since
 * the spec requires the exact name and such a directory is silently ignored otherwise.
 */
import * as path from "node:path";
import { distance } from "fastest-levenshtein";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, folderStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";
import { EXTENSION_NOT_LOADED } from "./consequences.js";
import { relativeToRoot, resolvePackagePath } from "./containment.js";

/** The reverse-domain namespace Assembly Line owns (manifest data and directory). */
export const EXTENSION_NAMESPACE = "ai.assemblyline";

/** Entry file names, in the order they are listed in messages. */
export const ENTRY_FILE_NAMES: readonly string[] = ["index.ts", "index.mts", "index.js", "index.mjs"];

/** Where the plugin's Assembly Line entry is, if anywhere. */
export interface ExtensionEntry {
  /** Absolute path (`<root>/ai.assemblyline/index.ts`) when exactly one contained entry exists. */
  readonly entryFile: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** Looks for `<root>/ai.assemblyline/index.{ts,mts,js,mjs}` (real root `rootReal`). */
export function findExtensionEntry(host: CompilerHost, root: string, rootReal: string): ExtensionEntry {
  const directory = path.join(root, EXTENSION_NAMESPACE);
  const at = fileStart(directory);
  const none = (diagnostics: readonly Diagnostic[]): ExtensionEntry => ({ entryFile: undefined, diagnostics });
  const status = resolvePackagePath(host, rootReal, directory);
  switch (status.kind) {
    case "missing":
      return none(nearMisses(host, root));
    case "broken":
      return none([createDiagnostic(Diagnostics.PackageBrokenSymlink, at, [EXTENSION_NAMESPACE, EXTENSION_NOT_LOADED])]);
    case "outside":
      // A linked folder: placed on the folder (common/positions.ts folderStart).
      return none([createDiagnostic(Diagnostics.PathOutsidePluginRoot, folderStart(directory), [EXTENSION_NAMESPACE, relativeToRoot(rootReal, status.real), EXTENSION_NOT_LOADED])]);
    case "inside":
      if (status.type !== "directory") {
        const kind = status.type === "file" ? "a regular file" : "not a directory";
        return none([createDiagnostic(Diagnostics.ComponentLocationWrongKind, at, [EXTENSION_NAMESPACE, "a directory", kind, EXTENSION_NOT_LOADED])]);
      }
  }
  return findEntry(host, rootReal, directory, status.real);
}

function findEntry(host: CompilerHost, rootReal: string, directory: string, directoryReal: string): ExtensionEntry {
  const diagnostics: Diagnostic[] = [];
  const found: string[] = [];
  for (const name of ENTRY_FILE_NAMES) {
    const file = path.join(directory, name);
    const display = `${EXTENSION_NAMESPACE}/${name}`;
    const status = resolvePackagePath(host, rootReal, path.join(directoryReal, name));
    if (status.kind === "missing") continue;
    if (status.kind === "broken") {
      diagnostics.push(createDiagnostic(Diagnostics.PackageBrokenSymlink, fileStart(file), [display, "it cannot be the Assembly Line entry"]));
    } else if (status.kind === "outside") {
      diagnostics.push(createDiagnostic(Diagnostics.PathOutsidePluginRoot, fileStart(file), [display, relativeToRoot(rootReal, status.real), EXTENSION_NOT_LOADED]));
    } else if (status.type !== "file") {
      diagnostics.push(createDiagnostic(Diagnostics.ExtensionEntryNotFile, status.type === "directory" ? folderStart(file) : fileStart(file), [display]));
    } else {
      found.push(file);
    }
  }
  if (found.length === 1) return { entryFile: found[0], diagnostics };
  if (found.length > 1) {
    const names = found.map((file) => path.basename(file)).join(", ");
    const related = found.slice(1).map((file) => ({ ...fileStart(file), message: `${path.basename(file)} is also an entry` }));
    diagnostics.push(createDiagnostic(Diagnostics.ExtensionEntryAmbiguous, fileStart(found[0]!), [names], { related }));
    return { entryFile: undefined, diagnostics };
  }
  if (diagnostics.length === 0) diagnostics.push(missingEntry(host, directory, directoryReal));
  return { entryFile: undefined, diagnostics };
}

function missingEntry(host: CompilerHost, directory: string, directoryReal: string): Diagnostic {
  const others = (host.readDirectory(directoryReal) ?? []).map((entry) => entry.name).filter((name) => /^index\.[^.]+$/.test(name));
  const hint =
    others.length > 0
      ? `Found ${others.join(", ")}; the entry must be named ${ENTRY_FILE_NAMES.join(", ")}.`
      : undefined;
  return createDiagnostic(Diagnostics.ExtensionEntryMissing, folderStart(directory), [], hint ? { hint } : {});
}

/** Warnings for top-level directories that look like a misspelled `ai.assemblyline`. */
function nearMisses(host: CompilerHost, root: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const entry of host.readDirectory(root) ?? []) {
    if (entry.kind !== "directory" && entry.kind !== "symlink") continue;
    const folded = entry.name.toLowerCase().replace(/[-_]/g, ".");
    if (folded === EXTENSION_NAMESPACE || distance(entry.name.toLowerCase(), EXTENSION_NAMESPACE) <= 2) {
      diagnostics.push(createDiagnostic(Diagnostics.ExtensionDirectoryNearMiss, folderStart(path.join(root, entry.name)), [entry.name]));
    }
  }
  return diagnostics;
}
