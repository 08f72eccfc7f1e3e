#!/usr/bin/env node
/**
 * Entry point of the `assembly-line` binary: runs the CLI and exits with its code. The binary
 * sits above `cli/` and `editor/` (siblings in the layers), so it is what joins them: it gives
 * the CLI the language server for `assembly-line lsp --stdio`, loaded only by that command.
 * The V8 code cache of CommonJS dependencies (`common/code-cache.ts`) is installed first, so
 * that every command's dependencies (the CLI's own included) load through it.
 */
import { installCodeCache } from "../common/code-cache.js";

installCodeCache();
const { main } = await import("../cli/main.js");
process.exitCode = await main(process.argv.slice(2), {
  serveLanguageServer: async () => (await import("../editor/lsp/stdio.js")).serveStdio(),
});
