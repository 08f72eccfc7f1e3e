/**
 * AL1001 ("There is no agent.md in …") for a root that lies inside an agent — a command run
 * from `plugins/hello/` (helper-64 M22) — or above agents — a command run from a repository
 * whose agent is `examples/support-agent/` (README trial of 6 December, C4). The catalog's hint
 * suggests `init <dir>`, which inside an agent would start a second agent in the first and above
 * one is rarely meant; this hint names the nearest agent root above, else the agent roots a few
 * folders below, and the command as typed with that root. The root used is never changed: no
 * command searches on its own, so what a command acts on is always what was typed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { findAgentRoot } from "../compiler/agent/agent-root.js";
import { createNodeHost } from "../common/host.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { shellQuote } from "../common/shell-quote.js";
import { typedCommandWithRoot } from "./typed-command.js";

/**
 * `diagnostics` (files relative to `root`) with the hint of the root's AL1001 replaced when a
 * folder above `root` is an agent root: "This folder is inside the agent whose root is ../..
 * …: run `npx assembly-line compile ../..`"; else when agent roots lie below it
 * ({@link agentRootsBelow}): "… the agent below it is examples/support-agent …: run `…`".
 * `rootAsTyped` is the root as the user gave it (`.` when omitted), so the printed command
 * repeats the typed one with the root changed. Returns `diagnostics` itself when there is
 * nothing to change.
 */
export function hintAgentRootAbove(diagnostics: readonly Diagnostic[], root: string, rootAsTyped: string): readonly Diagnostic[] {
  // The root's own AL1001 is a whole-run diagnostic (`file: ""`); a subagent's names its folder.
  const at = diagnostics.findIndex((d) => d.code === "AL1001" && d.file === "");
  if (at < 0) return diagnostics;
  const absolute = path.resolve(root);
  const above = findAgentRoot(createNodeHost(), path.join(absolute, "agent.md"));
  const hint = above !== undefined && above !== absolute ? hintAbove(above, rootAsTyped) : hintBelow(agentRootsBelow(absolute), rootAsTyped);
  return hint === undefined ? diagnostics : diagnostics.map((d, i) => (i === at ? { ...d, hint } : d));
}

/** The command as typed with `root` (as shown from the working directory), or words saying where to run it. */
function runWith(root: string, rootAsTyped: string): string {
  const command = typedCommandWithRoot(rootAsTyped, root);
  return command === undefined ? `pass ${shellQuote(root)} as the agent root, or run the command there` : `run \`${command}\``;
}

function hintAbove(above: string, rootAsTyped: string): string {
  const shown = path.relative(process.cwd(), above) || ".";
  return `This folder is inside the agent whose root is ${shown} (the folder with its agent.md): ${runWith(shown, rootAsTyped)}. \`init\` here would start a second agent inside it.`;
}

function hintBelow(below: readonly string[], rootAsTyped: string): string | undefined {
  if (below.length === 0) return undefined;
  const shown = below.map((root) => path.relative(process.cwd(), root) || ".");
  if (shown.length === 1) return `The agent below this folder is ${shown[0]} (the folder with its agent.md): ${runWith(shown[0]!, rootAsTyped)}.`;
  const listed = shown.length > AGENTS_LISTED ? `${shown.slice(0, AGENTS_LISTED).join(", ")} and more` : shown.join(", ");
  return `Agents below this folder: ${listed} (each a folder with its agent.md). Pass one as the agent root, e.g. ${runWith(shown[0]!, rootAsTyped).replace(/^run /, "")}.`;
}

/** How many agent roots below a hint names. */
const AGENTS_LISTED = 5;
/** How deep below the typed root {@link agentRootsBelow} looks (`examples/support-agent/` is 2). */
const BELOW_DEPTH = 2;
/** How many folders {@link agentRootsBelow} reads, and entries it looks at, at most: a hint never walks a large tree. */
const BELOW_FOLDERS = 200;
const BELOW_ENTRIES = 2000;

/**
 * The agent roots (folders holding an `agent.md` file) at most {@link BELOW_DEPTH} folders below
 * `dir`, sorted, in at most {@link BELOW_FOLDERS} folders read breadth first and
 * {@link BELOW_ENTRIES} of their entries; skips `node_modules`
 * and folders whose names start with `.`, does not follow links, and does not look inside an
 * agent root found (its `subagents/` belong to it). Unreadable folders are skipped; never throws.
 */
export function agentRootsBelow(dir: string): string[] {
  const found: string[] = [];
  let level = [dir];
  let read = 0;
  let looked = 0;
  for (let depth = 1; depth <= BELOW_DEPTH && level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const folder of level) {
      if (read >= BELOW_FOLDERS) break;
      read += 1;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "node_modules") continue;
        if (++looked > BELOW_ENTRIES) return found.sort();
        const child = path.join(folder, entry.name);
        let isAgent = false;
        try {
          isAgent = fs.lstatSync(path.join(child, "agent.md")).isFile();
        } catch {
          // No agent.md there.
        }
        if (isAgent) found.push(child);
        else next.push(child);
      }
    }
    level = next.sort();
  }
  return found.sort();
}
