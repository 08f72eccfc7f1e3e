/**
 * `assembly-line init [dir]` (DESIGN §7, issue 10 item 3): starts an agent. Exit codes: 0 the
 * agent was written, 1 a file is in the way (nothing written).
 */
import * as path from "node:path";
import { initAgent } from "../init/init-agent.js";
import { printDiagnostics } from "../output.js";
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
  const lines = [`Created agent '${result.agentName}' in ${shown}:`, ...result.written.map((file) => `  ${file}`), ...added, "", "Next:"];
  // As the fix commands are written (`lockfile/fix-command.ts`): through npx, which finds a local install.
  const cd = shown === "." ? "" : ` ${shellQuote(shown)}`;
  lines.push(`  npx assembly-line compile${cd}`, `  npx assembly-line call hello${cd} --input '{"name":"Ada"}'`, "");
  process.stdout.write(lines.join("\n"));
  // The note about a project's own tsconfig.json (AL9103), after what was written.
  printDiagnostics(result.diagnostics, dir);
  return 0;
}
