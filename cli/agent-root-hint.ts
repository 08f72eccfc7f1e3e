/**
 * AL1001 ("There is no agent.md in …") for a root that lies inside an agent — a command run
 * from `plugins/hello/` (helper-64 M22). The catalog's hint suggests `init <dir>`, which there
 * would start a second agent inside the first; this hint names the nearest agent root above and
 * the command as typed with that root. The root used is never changed: no command searches
 * upwards on its own, so what a command acts on is always what was typed.
 */
import * as path from "node:path";
import { findAgentRoot } from "../compiler/agent/agent-root.js";
import { createNodeHost } from "../common/host.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { shellQuote } from "../common/shell-quote.js";
import { typedCommandWithRoot } from "./typed-command.js";

/**
 * `diagnostics` (files relative to `root`) with the hint of the root's AL1001 replaced when a
 * folder above `root` is an agent root: "This folder is inside the agent whose root is ../..
 * …: run `npx assembly-line compile ../..`". `rootAsTyped` is the root as the user gave it
 * (`.` when omitted), so the printed command repeats the typed one with the root changed.
 * Returns `diagnostics` itself when there is nothing to change.
 */
export function hintAgentRootAbove(diagnostics: readonly Diagnostic[], root: string, rootAsTyped: string): readonly Diagnostic[] {
  // The root's own AL1001 is a whole-run diagnostic (`file: ""`); a subagent's names its folder.
  const at = diagnostics.findIndex((d) => d.code === "AL1001" && d.file === "");
  if (at < 0) return diagnostics;
  const absolute = path.resolve(root);
  const above = findAgentRoot(createNodeHost(), path.join(absolute, "agent.md"));
  if (above === undefined || above === absolute) return diagnostics;
  const shown = path.relative(process.cwd(), above) || ".";
  const command = typedCommandWithRoot(rootAsTyped, shown);
  const run = command === undefined ? `pass ${shellQuote(shown)} as the agent root, or run the command there` : `run \`${command}\``;
  const hint = `This folder is inside the agent whose root is ${shown} (the folder with its agent.md): ${run}. \`init\` here would start a second agent inside it.`;
  return diagnostics.map((d, i) => (i === at ? { ...d, hint } : d));
}
