/**
 * The language server on standard input and output (`assembly-line lsp --stdio`). Standard
 * output belongs to the protocol from here on: `console.log` and friends are sent to the client
 * as log messages instead, so nothing a dependency prints can corrupt the stream.
 */
import { createConnection } from "vscode-languageserver/node";
import { startLanguageServer, type LanguageServerOptions } from "./server.js";

/**
 * Serves the language server over stdio until the client sends `exit`; `vscode-languageserver`
 * then ends the process itself, with code 0 after a `shutdown` request and 1 without (the LSP's
 * rule), so the returned promise only settles in tests that stub the process exit.
 */
export function serveStdio(options: LanguageServerOptions = {}): Promise<number> {
  const connection = createConnection(process.stdin, process.stdout);
  const toClient = (...args: unknown[]) => connection.console.log(args.map((arg) => (typeof arg === "string" ? arg : String(arg))).join(" "));
  console.log = console.info = console.debug = toClient;
  const exited = new Promise<number>((resolve) => connection.onExit(() => resolve(0)));
  startLanguageServer(connection, options);
  return exited;
}
