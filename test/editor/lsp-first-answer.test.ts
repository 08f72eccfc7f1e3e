/**
 * What a user waits for after starting the language server (docs/editor.md "What you wait for"):
 * `initialize` is answered before the editor engine and the compiler load, and the first
 * `didOpen` still gets the entry's diagnostics, as `compile` reports them; a tool-name collision
 * with an entry that first answer did not read follows it, before the whole-agent analysis. The server runs in
 * this process over in-memory streams, so the test sees which of its modules had loaded when
 * the answer was written (the mocks below only record the load and return the real module).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { createConnection } from "vscode-languageserver/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startLanguageServer, type LanguageServerOptions } from "../../editor/lsp/server.js";
import { runCliJson } from "../helpers/run-cli.js";
import { AGENT_FILES, writeLspAgent } from "./lsp-agent.js";
import { uriOf, type LspDiagnostic } from "./lsp-client.js";

/** The modules of the analyses that have loaded, in order. */
const loaded = vi.hoisted((): string[] => []);
vi.mock("../../editor/engine/index.js", async (importOriginal) => {
  loaded.push("editor engine");
  return await importOriginal();
});
vi.mock("../../editor/lsp/agent-runner.js", async (importOriginal) => {
  loaded.push("agent runner");
  return await importOriginal();
});
vi.mock("../../build/compile.js", async (importOriginal) => {
  loaded.push("compiler");
  return await importOriginal();
});

const ENTRY = "plugins/example/ai.assemblyline/index.ts";
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * Starts the server on in-memory streams and a client on the other ends. `answered` holds what
 * had loaded when the server wrote its `initialize` result (undefined before).
 */
function startInProcess(options: LanguageServerOptions = { agentDelayMs: 0 }, events?: string[]) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const state: { answered: string[] | undefined } = { answered: undefined };
  const serverOut = new Writable({
    write(chunk: Buffer, encoding, callback) {
      if (state.answered === undefined && chunk.toString("utf8").includes('"serverInfo"')) state.answered = [...loaded];
      toClient.write(chunk, encoding, callback);
    },
  });
  const server = createConnection(toServer, serverOut);
  if (events) {
    const send = server.sendDiagnostics.bind(server);
    server.sendDiagnostics = (params) => {
      if (params.diagnostics.length > 0) events.push(`published ${path.basename(new URL(params.uri).pathname)}`);
      return send(params);
    };
  }
  startLanguageServer(server, options);
  const client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  client.listen();
  cleanups.push(() => {
    client.dispose();
    server.dispose();
  });
  return { client, server, state };
}

/** A whole-agent runner that records when it runs (in `events`) and finds nothing; `analysing` settles then. */
function recordingRunner(events: string[]) {
  let analysed = (): void => {};
  const analysing = new Promise<void>((resolve) => (analysed = resolve));
  const runner = {
    analyze: async () => {
      events.push("whole-agent analysis");
      analysed();
      return { byFile: new Map(), outside: [], rules: {} };
    },
    close: () => {},
  };
  return { runner, analysing };
}

describe("the language server's first answers", () => {
  it("answers initialize before the engine and the compiler load, and the first didOpen gets the entry's diagnostics", async () => {
    const root = writeLspAgent();
    const entry = path.join(root, ENTRY);
    const broken = AGENT_FILES[ENTRY].replace("description:", "descripton:");
    fs.writeFileSync(entry, broken);
    const { json } = runCliJson(["compile", ".", "--no-package", "--check"], { cwd: root });
    const expected = (json.diagnostics as { file: string; code: string; message: string; line: number; column: number }[])
      .filter((d) => d.file === ENTRY && d.code !== "AL6013")
      .map((d) => ({ code: d.code, message: d.message, line: d.line - 1, character: d.column - 1 }));
    expect(expected.length).toBeGreaterThan(0);

    const { client, state } = startInProcess();
    const uri = uriOf(entry);
    const first = new Promise<readonly LspDiagnostic[]>((resolve) => {
      client.onNotification("textDocument/publishDiagnostics", (params: { uri: string; diagnostics: readonly LspDiagnostic[] }) => {
        if (params.uri === uri && params.diagnostics.length > 0) resolve(params.diagnostics);
      });
    });
    const init = await client.sendRequest<{ capabilities: Record<string, unknown> }>("initialize", { processId: process.pid, rootUri: uriOf(root), capabilities: {} });
    expect(init.capabilities["textDocumentSync"]).toBeDefined();
    expect(state.answered).toEqual([]);

    await client.sendNotification("initialized", {});
    await client.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: 1, text: broken } });
    const diagnostics = await first;
    expect(diagnostics.map((d) => ({ code: d.code, message: d.message, line: d.range.start.line, character: d.range.start.character }))).toEqual(expected);
    expect(loaded).toContain("editor engine");
    // The compile driver loads for the whole-agent analysis (here in process: no worker under vitest), never before the answer.
    await client.sendRequest("shutdown");
  });

  it("runs the whole-agent analysis after a pending per-file pass, not beside it", async () => {
    const root = writeLspAgent();
    const entry = path.join(root, ENTRY);
    const broken = AGENT_FILES[ENTRY].replace("description:", "descripton:");
    const events: string[] = [];
    const { runner, analysing } = recordingRunner(events);
    // The whole-agent analysis is due before the per-file pass: it waits for that pass instead.
    const { client } = startInProcess({ agentDelayMs: 0, fileDelayMs: 50, runner }, events);
    await client.sendRequest("initialize", { processId: process.pid, rootUri: uriOf(root), capabilities: {} });
    await client.sendNotification("initialized", {});
    await client.sendNotification("textDocument/didOpen", { textDocument: { uri: uriOf(entry), languageId: "typescript", version: 1, text: broken } });
    await analysing;
    expect(events).toEqual(["published index.ts", "whole-agent analysis"]);
    await client.sendRequest("shutdown");
  });

  it("answers the first didOpen from the opened plugin alone, then sends the collision with an entry it had not read, before the whole-agent analysis (helper-106)", async () => {
    const root = writeLspAgent();
    // A second plugin that declares `echo` too.
    for (const [file, text] of Object.entries(AGENT_FILES)) {
      if (!file.startsWith("plugins/example/")) continue;
      const twin = path.join(root, file.replace("plugins/example/", "plugins/twin/"));
      fs.mkdirSync(path.dirname(twin), { recursive: true });
      fs.writeFileSync(twin, text.replace('"name": "example"', '"name": "twin"'));
    }
    fs.writeFileSync(path.join(root, "agent.md"), AGENT_FILES["agent.md"].replace("capabilities:\n", "capabilities:\n  twin: {}\n"));
    const { json } = runCliJson(["compile", ".", "--no-package", "--check"], { cwd: root });
    const all = json.diagnostics as { file: string; code: string; message: string; line: number; column: number }[];
    const collision = all.filter((d) => d.code === "AL4012");
    expect(collision).toHaveLength(1);
    const expected = all.filter((d) => d.file === collision[0]!.file && d.code !== "AL6013").map((d) => ({ code: d.code, message: d.message, line: d.line - 1, character: d.column - 1 }));

    const events: string[] = [];
    const { runner, analysing } = recordingRunner(events);
    const { client } = startInProcess({ agentDelayMs: 0, runner }, events);
    const entry = path.join(root, collision[0]!.file);
    const uri = uriOf(entry);
    const published: (readonly LspDiagnostic[])[] = [];
    client.onNotification("textDocument/publishDiagnostics", (params: { uri: string; diagnostics: readonly LspDiagnostic[] }) => {
      if (params.uri === uri) published.push(params.diagnostics);
    });
    await client.sendRequest("initialize", { processId: process.pid, rootUri: uriOf(root), capabilities: {} });
    await client.sendNotification("initialized", {});
    await client.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version: 1, text: fs.readFileSync(entry, "utf8") } });
    await analysing;
    // The collision's other entry was sent after the first answer and before the whole-agent analysis.
    expect(events).toEqual(["published index.ts", "whole-agent analysis"]);
    // The notifications cross the in-process streams after the server sent them: wait for them
    // rather than a fixed time (20 ms failed once at load 8, in a run of test/editor).
    await vi.waitFor(() => expect(published.length).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 5 });
    expect(published).toHaveLength(2);
    expect(published[0]!.map((d) => d.code)).not.toContain("AL4012");
    expect(published[1]!.map((d) => ({ code: d.code, message: d.message, line: d.range.start.line, character: d.range.start.character }))).toEqual(expected);
    await client.sendRequest("shutdown");
  });

  // A whole `npm test` of 6 December: the connection was disposed while an analysis ran; the
  // analysis failed, and logging its failure to the gone client threw an unhandled rejection.
  it("an analysis that fails after the connection is gone is not an unhandled rejection", async () => {
    const root = writeLspAgent();
    const entry = path.join(root, ENTRY);
    let fail = (): void => {};
    const failing = new Promise<void>((resolve) => (fail = resolve));
    let started = (): void => {};
    const analysing = new Promise<void>((resolve) => (started = resolve));
    const runner = {
      analyze: async () => {
        started();
        await failing;
        throw new Error("the agent went away");
      },
      close: () => {},
    };
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => void rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      const { client, server } = startInProcess({ agentDelayMs: 0, runner });
      await client.sendRequest("initialize", { processId: process.pid, rootUri: uriOf(root), capabilities: {} });
      await client.sendNotification("initialized", {});
      await client.sendNotification("textDocument/didOpen", { textDocument: { uri: uriOf(entry), languageId: "typescript", version: 1, text: AGENT_FILES[ENTRY] } });
      await analysing;
      client.dispose();
      server.dispose();
      fail();
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off("unhandledRejection", onRejection);
    }
    expect(rejections).toEqual([]);
  });
});
