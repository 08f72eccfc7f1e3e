/**
 * Test helper: spawns the built CLI's language server (`node dist/bin/assembly-line.cjs lsp
 * --stdio`) and speaks JSON-RPC to it with `vscode-jsonrpc`, as an editor does.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { pathToFileURL } from "node:url";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node";
import { cliPath } from "../helpers/run-cli.js";

/** The parts of an LSP diagnostic the tests read. */
export interface LspDiagnostic {
  readonly range: { start: { line: number; character: number }; end: { line: number; character: number } };
  readonly severity: number;
  readonly code: string;
  readonly source: string;
  readonly message: string;
  readonly data?: { hint?: string; path?: string };
  readonly relatedInformation?: readonly { message: string }[];
}

/** One `textDocument/publishDiagnostics` notification. */
export interface Published {
  readonly uri: string;
  readonly diagnostics: readonly LspDiagnostic[];
}

/** A running server and a client connected to it. */
export interface LspSession {
  readonly connection: MessageConnection;
  readonly process: ChildProcessWithoutNullStreams;
  /** The server's `initialize` result capabilities. */
  readonly capabilities: Record<string, unknown>;
  /** Every publishDiagnostics received so far, in order. */
  readonly published: Published[];
  /** Every registration the server asked for (`client/registerCapability`), in order. */
  readonly registrations: { readonly method: string; readonly registerOptions?: unknown }[];
  /** Resolves with the next publishDiagnostics for `uri` that satisfies `test`. */
  waitForDiagnostics(uri: string, test?: (diagnostics: readonly LspDiagnostic[]) => boolean): Promise<readonly LspDiagnostic[]>;
  /** Sends didOpen (languageId from the extension). */
  open(uri: string, text: string): void;
  /** Sends didChange with the whole new text (the version goes up by one). */
  change(uri: string, text: string): void;
  /** shutdown + exit; resolves with the process's exit code. */
  close(): Promise<number | null>;
  /** What the server wrote on stderr so far. */
  stderr(): string;
}

/** `file://` URI of an absolute path. */
export const uriOf = (file: string): string => pathToFileURL(file).href;

/**
 * Starts `lsp --stdio` with `root` as working directory and workspace, initializes it (with
 * pull diagnostics declared when `pull`, and file watching for the server declared when
 * `watch`: the server then registers its watchers and the test sends the changes), and sends
 * `initialized`.
 */
export async function startLspSession(root: string, options: { readonly pull?: boolean; readonly watch?: boolean } = {}): Promise<LspSession> {
  const child = spawn(process.execPath, [cliPath, "lsp", "--stdio"], { cwd: root });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published: Published[] = [];
  const waiters: { uri: string; test: (d: readonly LspDiagnostic[]) => boolean; resolve: (d: readonly LspDiagnostic[]) => void }[] = [];
  connection.onNotification("textDocument/publishDiagnostics", (params: Published) => {
    published.push(params);
    for (const waiter of [...waiters]) {
      if (waiter.uri !== params.uri || !waiter.test(params.diagnostics)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(params.diagnostics);
    }
  });
  connection.onRequest("workspace/diagnostic/refresh", () => null);
  const registrations: { method: string; registerOptions?: unknown }[] = [];
  connection.onRequest("client/registerCapability", (params: { registrations: { method: string; registerOptions?: unknown }[] }) => {
    registrations.push(...params.registrations);
    return null;
  });
  connection.onNotification("window/logMessage", (params: { message: string }) => {
    stderr += `[log] ${params.message}\n`;
  });
  connection.onNotification("window/showMessage", (params: { message: string }) => {
    stderr += `[show] ${params.message}\n`;
  });
  connection.listen();
  const versions = new Map<string, number>();
  const init = await connection.sendRequest<{ capabilities: Record<string, unknown> }>("initialize", {
    processId: process.pid,
    rootUri: uriOf(root),
    workspaceFolders: [{ uri: uriOf(root), name: "agent" }],
    capabilities: {
      textDocument: {
        publishDiagnostics: { relatedInformation: true },
        codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["quickfix"] } } },
        ...(options.pull ? { diagnostic: { dynamicRegistration: false } } : {}),
      },
      workspace: {
        ...(options.pull ? { diagnostics: { refreshSupport: true } } : {}),
        ...(options.watch ? { didChangeWatchedFiles: { dynamicRegistration: true } } : {}),
      },
    },
  });
  await connection.sendNotification("initialized", {});
  return {
    connection,
    process: child,
    capabilities: init.capabilities,
    published,
    registrations,
    waitForDiagnostics: (uri, test = () => true) => new Promise((resolve) => waiters.push({ uri, test, resolve })),
    open(uri, text) {
      versions.set(uri, 1);
      const languageId = /\.[cm]?[jt]s$/.test(uri) ? "typescript" : uri.endsWith(".md") ? "markdown" : "json";
      void connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } });
    },
    change(uri, text) {
      const version = (versions.get(uri) ?? 1) + 1;
      versions.set(uri, version);
      void connection.sendNotification("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
    },
    async close() {
      const exited = new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code))));
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
      const code = await exited;
      connection.dispose();
      return code;
    },
    stderr: () => stderr,
  };
}
