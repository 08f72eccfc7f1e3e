/**
 * `assembly-line lsp --stdio` (DESIGN §7, issue 9 part 2): the command-line side of the
 * language server. The server itself is `editor/lsp/` — beside `cli/` in the layers, so `cli/`
 * does not import it: the binary (`bin/`, above both) hands {@link main} a function that starts
 * it, and this module only wires the flag to that function.
 */
import type { Command } from "commander";

/**
 * Serves the language server over standard input and output. Resolves with the exit code when
 * the server stops (the LSP's `exit`: 0 after `shutdown`, else 1).
 */
export type ServeLanguageServer = () => Promise<number>;

/**
 * Adds `lsp --stdio` to `program`. Without `--stdio` (the only transport) it is a usage error
 * (AL9001, exit 2); without a `serve` function (a CLI embedded without the editor layer) it
 * says the language server is not available (exit 2).
 *
 * @param setExitCode receives the command's exit code.
 */
export function registerLspCommand(program: Command, serve: ServeLanguageServer | undefined, setExitCode: (code: number) => void): void {
  program
    .command("lsp")
    .description("Run the language server (diagnostics and quick fixes in any LSP editor) on stdin/stdout.")
    .option("--stdio", "talk LSP over standard input and output (the only transport)")
    .action(async (options: { stdio?: boolean }, command: Command) => {
      // A usage error as every other command's (AL9001 with this command's own --help).
      if (!options.stdio) command.error("error: lsp needs --stdio (the only transport)", { code: "assembly-line.lspNeedsStdio", exitCode: 2 });
      const problem = !serve ? "this build of assembly-line has no language server" : undefined;
      if (problem !== undefined) {
        // Loaded here: `cli/main.ts` registers this command on every start (docs/performance.md).
        const [{ Diagnostics }, { createDiagnostic }, { formatPretty }] = await Promise.all([
          import("../../diagnostics/catalog/index.js"),
          import("../../diagnostics/diagnostic.js"),
          import("../../diagnostics/format-pretty.js"),
        ]);
        const diagnostic = createDiagnostic(Diagnostics.UsageError, { file: "", line: 1, column: 1 }, [problem]);
        process.stderr.write(formatPretty([diagnostic]));
        setExitCode(2);
        return;
      }
      setExitCode(await serve!());
    });
}
