/**
 * The diagnostic of a write refused by `common/confined-write.ts` (AL6301 for a link, AL6302
 * for a file where a folder is expected or the reverse), located at the offending path.
 */
import * as path from "node:path";
import type { WriteRefusal } from "../common/confined-write.js";
import { fileStart } from "../common/positions.js";
import { Diagnostics } from "./catalog/index.js";
import { createDiagnostic, type Diagnostic } from "./diagnostic.js";
import { relativeInside } from "../common/path-inside.js";

/**
 * AL6301/AL6302 for `refusal`. `what` names what was not written (e.g. "plugins.lock");
 * paths in the message are shown relative to `root` when they are inside it.
 */
export function writeRefusalDiagnostic(what: string, refusal: WriteRefusal, root: string, severity?: "warning"): Diagnostic {
  const relative = relativeInside(root, refusal.path);
  const shown = relative ? relative.split(path.sep).join("/") : refusal.path;
  const message = refusal.kind === "link" ? Diagnostics.WriteThroughLinkRefused : Diagnostics.WriteTargetShapeRefused;
  const diagnostic = createDiagnostic(message, fileStart(refusal.path), [what, shown, refusal.reason]);
  return severity ? { ...diagnostic, severity } : diagnostic;
}
