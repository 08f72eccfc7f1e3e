/**
 * Runs the `assembly-line` CLI on `argv` and returns its exit code. The binary sits above
 * `cli/` and `editor/` (siblings in the layers), so this is what joins them: it gives the CLI
 * the language server for `assembly-line lsp --stdio`, loaded only by that command. Run by the
 * binary's entry (`./assembly-line.ts`) and by the CLI bundle's (scripts/build-cli-bundle.mjs),
 * which passes the sandbox process it started early for a `call` (`cli/early-call.ts`).
 */
import type { EarlySandboxStart } from "../runtime-min/execution/early-start.js";
import { rememberCliStart } from "../common/cli-command.js";

/**
 * Runs the CLI on `argv` (without `node` and the script path) and resolves to its exit code. The
 * script Node ran is recorded first, so the commands the CLI prints start the way this one was
 * started (`common/cli-command.ts`).
 */
export async function run(argv: readonly string[], earlyStart?: EarlySandboxStart): Promise<number> {
  rememberCliStart(process.argv[1]);
  const { main } = await import("../cli/main.js");
  return main(argv, {
    serveLanguageServer: async () => (await import("../editor/lsp/stdio.js")).serveStdio(),
    ...(earlyStart === undefined ? {} : { earlyStart }),
  });
}
