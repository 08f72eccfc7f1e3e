/**
 * `assembly-line init [dir]` (DESIGN §7, issue 10 item 3): starts an agent. Exit codes: 0 the
 * agent was written, 1 a file is in the way (nothing written).
 */
import * as path from "node:path";
import { initAgent } from "../init/init-agent.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { printDiagnostics } from "../output.js";
import { cliCommand } from "../../common/cli-command.js";
import { shellQuote } from "../../common/shell-quote.js";

/** Runs `init` and prints what it wrote (or why it wrote nothing); resolves to the exit code. */
export function runInit(dirArgument: string): number {
  const dir = path.resolve(dirArgument);
  const result = initAgent(dir);
  if (!result.ok) {
    printDiagnostics(result.diagnostics, dir);
    return 1;
  }
  const shown = path.relative(process.cwd(), dir) || ".";
  const added = result.gitignoreAdded.length > 0 ? [`  .gitignore (added ${result.gitignoreAdded.join(", ")})`] : [];
  const keptTsconfig = result.diagnostics.some((d) => d.code === Diagnostics.InitKeptTsconfig.code) ? ["  tsconfig.json (yours, kept as it was: see the note below)"] : [];
  process.stdout.write([`Created agent '${result.agentName}' in ${shown}:`, ...result.written.map((file) => `  ${file}`), ...added, ...keptTsconfig, ""].join("\n"));
  // The note about a project's own tsconfig.json (AL9103) or the agent around (AL9104), before the next steps.
  printDiagnostics(result.diagnostics, dir);
  // Started as this command was, so that the lines run here (`common/cli-command.ts`): npx only where it finds the project's install.
  // A subagent is a surface of its parent agent: compiled with it, called through it (new-user
  // trial of 6 December: the steps for a standalone agent left a second plugins.lock in it).
  const parent = result.parentAgent === undefined ? undefined : path.relative(process.cwd(), result.parentAgent) || ".";
  const root = (parent ?? shown) === "." ? [] : [parent ?? shown];
  const surface = result.parentAgent === undefined ? "" : ` --surface ${shellQuote(path.relative(result.parentAgent, dir).split(path.sep).join("/"))}`;
  process.stdout.write(["", "Next:", `  ${cliCommand("compile", ...root)}`, `  ${cliCommand("call", "hello", ...root)}${surface} --input '{"name":"Ada"}'`, ""].join("\n"));
  return 0;
}
