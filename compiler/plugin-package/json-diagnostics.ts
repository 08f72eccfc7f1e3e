/**
 * Diagnostics about the JSON text of plugin.json and mcp.json, shared by both loaders: the
 * first syntax error (with the caller's failure boundary) and duplicate keys.
 */
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { pointerToSegmentsIn } from "../../common/json-pointer.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { JsonDocument, JsonSyntaxProblem } from "./json-document.js";

/** AL2007 for `problem` in `displayName` ("plugin.json"), ending with `consequence`. */
export function jsonSyntaxDiagnostic(displayName: string, problem: JsonSyntaxProblem, consequence: string): Diagnostic {
  return createDiagnostic(Diagnostics.PluginFileJsonSyntax, problem.location, [displayName, problem.message, consequence], problem.hint ? { hint: problem.hint } : {});
}

/** AL2008 for every key written twice in one object, pointing at the later one (which wins). */
export function duplicateKeyWarnings(document: JsonDocument): Diagnostic[] {
  return document.duplicates.map((duplicate) =>
    createDiagnostic(Diagnostics.PluginFileDuplicateKey, duplicate.location, [duplicate.key], {
      path: [...pointerToSegmentsIn(duplicate.objectPointer, document.located?.value), duplicate.key],
      related: [{ ...duplicate.firstLocation, message: `'${duplicate.key}' is first written here` }],
    }),
  );
}
