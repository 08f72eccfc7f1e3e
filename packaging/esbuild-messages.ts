/**
 * Turns esbuild's errors and warnings into our diagnostics (STYLE §4: map a library's error
 * objects into our own codes and words): a stable AL7xxx code, the absolute file, and a 1-based
 * line and UTF-16 column taken from esbuild's message location.
 */
import * as path from "node:path";
import type { Location, Message } from "esbuild";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../diagnostics/diagnostic.js";
import { describeTool, type PackagingTool } from "./plan-bundles.js";
import type { ConfinementRefusal } from "./import-confinement.js";
import type { NotRegularFile } from "./read-targets.js";

/** What is needed to place a message: the agent root and the tools by absolute definition path. */
export interface MessageContext {
  readonly root: string;
  readonly toolsByDefinition: ReadonlyMap<string, PackagingTool>;
}

const COULD_NOT_RESOLVE = /^Could not resolve "(.*)"$/s;
const NO_LOADER = /^No loader is configured for "([^"]*)" files: (.*)$/s;
const UNSUPPORTED_ATTRIBUTE = /^Importing with a type attribute of "(.*)" is not supported$/s;

/**
 * Maps one esbuild error to a diagnostic: AL7008 for a missing definition module (an entry
 * point esbuild could not resolve), AL7011 for an import that leads out of its package
 * (`./import-confinement.ts`), AL7012 for a file to read that is not a regular file
 * (`./read-targets.ts`), AL7001 for an unresolvable import, AL7002 for a file no
 * asset rule covers, AL7003 for an unknown import attribute, AL7004 for anything else.
 */
export function diagnosticFromEsbuildError(message: Message, context: MessageContext): Diagnostic {
  const location = locationOf(message.location, context.root);
  const detail = message.detail as ConfinementRefusal | NotRegularFile | undefined;
  if (detail?.kind === "import-leaves-package") return createDiagnostic(Diagnostics.ImportLeavesPackage, location, [detail.specifier, detail.inside]);
  if (detail?.kind === "not-a-regular-file") {
    // A definition (an entry point) or an asset's load has no import to point at: the file itself.
    const at = message.location === null ? { file: path.resolve(context.root, detail.specifier), line: 1, column: 1 } : location;
    return createDiagnostic(Diagnostics.ImportReadsNonRegularFile, at, [detail.specifier, detail.file, detail.what]);
  }
  const unresolved = COULD_NOT_RESOLVE.exec(message.text);
  if (unresolved) {
    const tool = message.location === null ? context.toolsByDefinition.get(unresolved[1]!) : undefined;
    if (tool) {
      return createDiagnostic(Diagnostics.DefinitionNotFound, { file: tool.definitionFile, line: 1, column: 1 }, [
        path.relative(tool.pluginRoot, tool.definitionFile).split(path.sep).join("/"),
        describeTool(tool),
      ]);
    }
    return createDiagnostic(Diagnostics.UnresolvedImport, location, [unresolved[1]!]);
  }
  const noLoader = NO_LOADER.exec(message.text);
  if (noLoader) return createDiagnostic(Diagnostics.UnsupportedAssetImport, location, [noLoader[2]!, noLoader[1]!]);
  const attribute = UNSUPPORTED_ATTRIBUTE.exec(message.text);
  if (attribute) return createDiagnostic(Diagnostics.UnsupportedImportAttribute, location, [attribute[1]!]);
  return createDiagnostic(Diagnostics.BundleFailed, location, [message.text]);
}

/** Maps one esbuild warning to AL7005 with esbuild's text. */
export function diagnosticFromEsbuildWarning(message: Message, context: MessageContext): Diagnostic {
  return createDiagnostic(Diagnostics.BundleWarning, locationOf(message.location, context.root), [message.text]);
}

/**
 * An esbuild location as ours: esbuild gives a root-relative file (or a namespace path), a
 * 1-based line and a 0-based column and length in UTF-8 bytes of `lineText`; we report the
 * absolute file and 1-based UTF-16 columns. No location places the message at the agent root.
 */
export function locationOf(location: Location | null, root: string): SourceLocation {
  if (location === null) return { file: root, line: 1, column: 1 };
  const file = path.resolve(root, location.file);
  const bytes = Buffer.from(location.lineText, "utf8");
  const column = utf16Length(bytes, location.column) + 1;
  if (location.length <= 0) return { file, line: location.line, column };
  const endColumn = utf16Length(bytes, location.column + location.length) + 1;
  return { file, line: location.line, column, endLine: location.line, endColumn };
}

/** Number of UTF-16 code units in the first `byteCount` bytes of a UTF-8 line. */
function utf16Length(line: Buffer, byteCount: number): number {
  return line.subarray(0, Math.max(0, Math.min(byteCount, line.length))).toString("utf8").length;
}
