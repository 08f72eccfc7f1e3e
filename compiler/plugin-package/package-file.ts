/**
 * Reads a text file of a plugin package through the {@link CompilerHost}, turning every way it
 * can fail (vanished, unreadable, not UTF-8) into one diagnostic with the caller's failure
 * boundary. Callers have already checked containment with `resolvePackagePath`.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";

/** The text of a package file, or the diagnostic that explains why it cannot be used. */
export type PackageText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly diagnostic: Diagnostic };

/**
 * Reads `real` (the resolved path, inside the plugin root) and reports against `file` (the
 * path as the author sees it).
 *
 * @param consequence what the failure means, e.g. {@link PLUGIN_REJECTED} from `./consequences.js`.
 */
export function readPackageText(host: CompilerHost, root: string, file: string, real: string, consequence: string): PackageText {
  const display = displayPath(root, file);
  const result = host.read(real);
  switch (result.kind) {
    case "file":
      if (result.invalidUtf8) {
        return { ok: false, diagnostic: createDiagnostic(Diagnostics.PackageFileInvalidUtf8, fileStart(file), [display, consequence]) };
      }
      return { ok: true, text: result.text };
    case "unreadable":
      return { ok: false, diagnostic: createDiagnostic(Diagnostics.PackageFileUnreadable, fileStart(file), [display, result.reason, consequence]) };
    case "directory":
      return { ok: false, diagnostic: createDiagnostic(Diagnostics.PackageFileUnreadable, fileStart(file), [display, "it is a directory", consequence]) };
    case "missing":
      return { ok: false, diagnostic: createDiagnostic(Diagnostics.PackageFileUnreadable, fileStart(file), [display, "it no longer exists", consequence]) };
  }
}

/** `file` relative to the plugin `root`, with `/` separators, for messages. */
export function displayPath(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative === "" ? "." : relative.split(path.sep).join("/");
}
