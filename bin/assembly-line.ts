#!/usr/bin/env node
/**
 * Entry point of the `assembly-line` binary: runs the CLI and exits with its code. The binary
 * sits above `cli/` and `editor/` (siblings in the layers), so it is what joins them: it gives
 * the CLI the language server for `assembly-line lsp --stdio`, loaded only by that command.
 */
import { main } from "../cli/main.js";

process.exitCode = await main(process.argv.slice(2), {
  serveLanguageServer: async () => (await import("../editor/lsp/stdio.js")).serveStdio(),
});
