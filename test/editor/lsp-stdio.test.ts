/**
 * Issue 9 part 2: `assembly-line lsp --stdio`, driven over stdio as an editor drives it (the
 * built CLI in a child process, JSON-RPC through vscode-jsonrpc). Each expectation is the code,
 * message and span that `compile --format json` reports for the same files.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { printedCli, runCli, runCliJson } from "../helpers/run-cli.js";
import { tempDir } from "../helpers/temp-tree.js";
import { AGENT_FILES, writeLspAgent } from "./lsp-agent.js";
import { compiledByFile, CONFIG_AGENT_FILES, CONFIG_AGENT_TEXTS, EDITED_CONFIG, writeConfig, writeConfigAgent, type ComparedDiagnostic } from "./config-agent.js";
import { startLspSession, uriOf, type LspDiagnostic, type LspSession } from "./lsp-client.js";

const ENTRY = "plugins/example/ai.assemblyline/index.ts";
const sessions: LspSession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close().catch(() => session.process.kill());
});

async function start(root: string, options: { pull?: boolean; watch?: boolean } = {}): Promise<LspSession> {
  const session = await startLspSession(root, options);
  sessions.push(session);
  return session;
}

/** What `compile --check --no-package` (run in the root) reports for `file`, with LSP's 0-based positions. */
function compileDiagnostics(root: string, file: string) {
  const { json } = runCliJson(["compile", ".", "--no-package", "--check"], { cwd: root });
  return (json.diagnostics as { file: string; code: string; message: string; line: number; column: number }[])
    .filter((d) => d.file === file && d.code !== "AL6013")
    .map((d) => ({ code: d.code, message: d.message, line: d.line - 1, character: d.column - 1 }));
}

/** A module that is not part of a plugin yet: its folder gains an ai.assemblyline/ entry (that imports it) while the server runs. */
const SHARED_LIMITS = "export const MAX = Math.max(1, 10);\n";
const GROWN = {
  "plugins/grown/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "grown", version: "1.0.0", description: "Grown while the server ran." }),
  "plugins/grown/ai.assemblyline/index.ts": 'import { MAX } from "../shared/limits.js";\n\nexport default { configSchema: { type: "object", properties: { limit: { type: "integer", maximum: MAX } } }, tools: {} };\n',
};

/**
 * Opens `plugins/grown/shared/limits.ts` (no plugin folder yet: nothing to report), waits until
 * the server has taken it in, then writes the plugin folder around it on disk and returns its
 * URI and what `validate` reports for it.
 */
async function growPlugin(session: LspSession, root: string) {
  const limits = path.join(root, "plugins/grown/shared/limits.ts");
  fs.mkdirSync(path.dirname(limits), { recursive: true });
  fs.writeFileSync(limits, SHARED_LIMITS);
  const uri = uriOf(limits);
  session.open(uri, SHARED_LIMITS);
  // A request after the notification: the server has seen the open (and judged the file) when it answers.
  const none = await session.connection.sendRequest("textDocument/codeAction", { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [] } });
  expect(none).toEqual([]);
  for (const [relative, text] of Object.entries(GROWN)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  }
  const { json } = runCliJson(["validate", path.join(root, "plugins/grown")]);
  const expected = (json.diagnostics as { file: string; code: string; message: string; line: number; column: number }[])
    .filter((d) => d.file === "shared/limits.ts")
    .map((d) => ({ code: d.code, message: d.message, line: d.line - 1, character: d.column - 1 }));
  expect(expected.length).toBeGreaterThan(0);
  return { uri, files: [limits, ...Object.keys(GROWN).map((relative) => path.join(root, relative))], expected };
}

/** The distinct nice values of the threads of process `pid` (Linux: `/proc/<pid>/task/<tid>/stat`, field 19). */
function threadNiceValues(pid: number): number[] {
  const tasks = fs.readdirSync(`/proc/${pid}/task`);
  expect(tasks.length).toBeGreaterThan(1);
  const nice = tasks.map((tid) => {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    // The fields after the command name (in parentheses): state is field 3, nice field 19.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19 - 3]);
  });
  return [...new Set(nice)];
}

const summary = (diagnostics: readonly LspDiagnostic[]) =>
  diagnostics.map((d) => ({ code: d.code, message: d.message, line: d.range.start.line, character: d.range.start.character }));

describe("assembly-line lsp --stdio", () => {
  it("publishes an entry's diagnostics as compile reports them, offers the did-you-mean fix, and clears them after an unsaved fix", async () => {
    const root = writeLspAgent();
    const entry = path.join(root, ENTRY);
    const broken = AGENT_FILES[ENTRY].replace("description:", "descripton:");
    fs.writeFileSync(entry, broken);
    const expected = compileDiagnostics(root, ENTRY);
    expect(expected.length).toBeGreaterThan(0);

    const session = await start(root);
    expect(session.capabilities["diagnosticProvider"]).toBeUndefined();
    const uri = uriOf(entry);
    const opened = session.waitForDiagnostics(uri, (d) => d.length > 0);
    session.open(uri, broken);
    const diagnostics = await opened;
    expect(summary(diagnostics)).toEqual(expected);
    expect(diagnostics.every((d) => d.source === "assembly-line")).toBe(true);
    const unknown = diagnostics.find((d) => d.data?.hint === "Did you mean 'description'?")!;
    expect(unknown.relatedInformation?.map((r) => r.message)).toContain("Did you mean 'description'?");

    const actions = await session.connection.sendRequest<{ title: string; edit?: { changes: Record<string, unknown[]> } }[]>("textDocument/codeAction", {
      textDocument: { uri },
      range: unknown.range,
      context: { diagnostics: [unknown] },
    });
    const rename = actions.find((a) => a.title.includes("'description'"));
    expect(rename?.edit?.changes[uri]).toEqual([{ range: unknown.range, newText: "description" }]);

    const cleared = session.waitForDiagnostics(uri, (d) => d.length === 0);
    session.change(uri, AGENT_FILES[ENTRY]);
    expect(await cleared).toEqual([]);

    // A plugin folder created while the server runs: this client does not watch files, so the
    // server's own watcher (chokidar, on the agent root) tells the engine.
    const grown = await growPlugin(session, root);
    expect(summary(await session.waitForDiagnostics(grown.uri, (d) => d.length > 0))).toEqual(grown.expected);
  });

  it("gives the same ranges for a CRLF buffer with a byte order mark", async () => {
    const root = writeLspAgent();
    const entry = path.join(root, ENTRY);
    const broken = AGENT_FILES[ENTRY].replace("description:", "descripton:");
    fs.writeFileSync(entry, broken);
    const expected = compileDiagnostics(root, ENTRY);
    const session = await start(root);
    const uri = uriOf(entry);
    const opened = session.waitForDiagnostics(uri, (d) => d.length > 0);
    // What an editor holds for a Windows checkout: CRLF line ends; the BOM stays in the text here.
    session.open(uri, `\uFEFF${broken.replace(/\n/g, "\r\n")}`);
    expect(summary(await opened)).toEqual(expected);
  });

  it("offers the drift fixes of the engine, editing the descriptor or the definition module", async () => {
    const root = writeLspAgent();
    const entry = path.join(root, ENTRY);
    const drifted = AGENT_FILES[ENTRY].replace("Echo a message back to the caller.", "Echo a message back.");
    fs.writeFileSync(entry, drifted);
    const expected = compileDiagnostics(root, ENTRY);
    expect(expected.map((d) => d.code)).toEqual(["AL4026"]);
    const session = await start(root);
    const uri = uriOf(entry);
    const opened = session.waitForDiagnostics(uri, (d) => d.length > 0);
    session.open(uri, drifted);
    const [drift] = await opened;
    const actions = await session.connection.sendRequest<{ title: string; edit?: { changes: Record<string, { newText: string }[]> } }[]>("textDocument/codeAction", {
      textDocument: { uri },
      range: drift!.range,
      context: { diagnostics: [drift] },
    });
    const intoDescriptor = actions.find((a) => a.title.startsWith("Copy description from defineTool()"));
    const intoDefinition = actions.find((a) => a.title.startsWith("Copy the descriptor's description into defineTool()"));
    expect(intoDescriptor?.edit?.changes[uri]?.[0]?.newText).toBe('"Echo a message back to the caller."');
    expect(intoDefinition?.edit?.changes[uriOf(path.join(root, "plugins/example/ai.assemblyline/echo.ts"))]?.[0]?.newText).toBe('"Echo a message back."');
  });

  it("reports agent.md capability config errors at their YAML positions, pushed or pulled", async () => {
    const root = writeLspAgent();
    const agentFile = path.join(root, "agent.md");
    const broken = AGENT_FILES["agent.md"].replace("greeting: hello", "greeting: 42");
    fs.writeFileSync(agentFile, broken);
    const expected = compileDiagnostics(root, "agent.md");
    expect(expected.length).toBeGreaterThan(0);
    expect(expected[0]!.line).toBe(5);

    const push = await start(root);
    const uri = uriOf(agentFile);
    const pushed = push.waitForDiagnostics(uri, (d) => d.length > 0);
    push.open(uri, broken);
    expect(summary(await pushed)).toEqual(expected);

    const pull = await start(root, { pull: true });
    expect(pull.capabilities["diagnosticProvider"]).toMatchObject({ interFileDependencies: true });
    pull.open(uri, broken);
    const report = await pull.connection.sendRequest<{ kind: string; items: LspDiagnostic[] }>("textDocument/diagnostic", { textDocument: { uri } });
    expect(report.kind).toBe("full");
    expect(summary(report.items)).toEqual(expected);
    const fixed = await (async () => {
      pull.change(uri, AGENT_FILES["agent.md"]);
      return pull.connection.sendRequest<{ kind: string; items: LspDiagnostic[] }>("textDocument/diagnostic", { textDocument: { uri } });
    })();
    expect(fixed.items).toEqual([]);
    // A pull client is not pushed to for the files it has open.
    expect(pull.published.filter((p) => p.uri === uri)).toEqual([]);
  });

  it("reports plugin.json problems on plugin.json (open) and mcp.json problems on mcp.json (not open)", async () => {
    // Two agents: a rejected plugin.json stops the package before its mcp.json is read.
    const first = writeLspAgent();
    const manifest = path.join(first, "plugins/example/plugin.json");
    const badManifest = AGENT_FILES["plugins/example/plugin.json"].replace('"version": "1.0.0"', '"version": 1');
    fs.writeFileSync(manifest, badManifest);
    const expectedManifest = compileDiagnostics(first, "plugins/example/plugin.json");
    expect(expectedManifest.length).toBeGreaterThan(0);
    const second = writeLspAgent();
    const mcp = path.join(second, "plugins/example/mcp.json");
    fs.writeFileSync(mcp, AGENT_FILES["plugins/example/mcp.json"].replace('"command": "node"', '"command": 42'));
    const expectedMcp = compileDiagnostics(second, "plugins/example/mcp.json");
    expect(expectedMcp.map((d) => d.code)).toEqual(["AL2315"]);

    const session = await start(first);
    const gotManifest = session.waitForDiagnostics(uriOf(manifest), (d) => d.length > 0);
    session.open(uriOf(manifest), badManifest);
    expect(summary(await gotManifest)).toEqual(expectedManifest);

    // mcp.json is not open: its diagnostics come with the whole-agent analysis of the agent of an open file.
    const gotMcp = session.waitForDiagnostics(uriOf(mcp), (d) => d.length > 0);
    const agentFile = path.join(second, "agent.md");
    session.open(uriOf(agentFile), AGENT_FILES["agent.md"]);
    expect(summary(await gotMcp)).toEqual(expectedMcp);
  });

  it("shows a stale plugins.lock with a 'run compile' fix that rewrites it", async () => {
    const root = writeLspAgent();
    const lockFile = path.join(root, "plugins.lock");
    // A new tag changes the locked contract (and nothing else is wrong).
    fs.writeFileSync(path.join(root, ENTRY), AGENT_FILES[ENTRY].replace('description: "Echo', 'tags: ["echo"],\n      description: "Echo'));
    const expected = compileDiagnostics(root, "plugins.lock");
    expect(expected.map((d) => d.code)).toEqual(["AL6002"]);

    const session = await start(root);
    const lockUri = uriOf(lockFile);
    const stale = session.waitForDiagnostics(lockUri, (d) => d.length > 0);
    session.open(lockUri, fs.readFileSync(lockFile, "utf8"));
    const diagnostics = await stale;
    expect(summary(diagnostics)).toEqual(expected);
    // That came from the whole-agent analysis on the server's worker thread, which runs at the
    // server's own CPU priority: at the lowest one, the other busy processes of its session (a
    // loaded test run) starved it, and this test timed out waiting for it.
    expect(threadNiceValues(session.process.pid!)).toEqual([os.getPriority(session.process.pid!)]);

    const actions = await session.connection.sendRequest<{ title: string; command?: { command: string; arguments: unknown[] } }[]>("textDocument/codeAction", {
      textDocument: { uri: lockUri },
      range: diagnostics[0]!.range,
      context: { diagnostics },
    });
    const compile = actions.find((a) => a.command?.command === "assembly-line.compile");
    expect(compile?.command?.arguments).toEqual([root]);
    const result = await session.connection.sendRequest("workspace/executeCommand", compile!.command);
    expect(result).toEqual({ ok: true, lockChanged: true });
    // The editor reloads the rewritten file into its (unmodified) buffer; the lock is then current.
    const fresh = session.waitForDiagnostics(lockUri, (d) => d.length === 0);
    session.change(lockUri, fs.readFileSync(lockFile, "utf8"));
    await fresh;
    expect(runCliJson(["compile", ".", "--no-package", "--check"], { cwd: root }).json.ok).toBe(true);
  });

  it("offers the 'run compile' fix on a stale or missing plugins.lock the editor has not opened (new-user trial of 6 December)", async () => {
    const root = writeLspAgent();
    const lockFile = path.join(root, "plugins.lock");
    fs.writeFileSync(path.join(root, ENTRY), AGENT_FILES[ENTRY].replace('description: "Echo', 'tags: ["echo"],\n      description: "Echo'));
    const session = await start(root);
    const lockUri = uriOf(lockFile);
    const compileAction = async (diagnostics: readonly LspDiagnostic[]) => {
      const actions = await session.connection.sendRequest<{ command?: { command: string; arguments: unknown[] } }[]>("textDocument/codeAction", {
        textDocument: { uri: lockUri },
        range: diagnostics[0]!.range,
        context: { diagnostics },
      });
      return actions.find((a) => a.command?.command === "assembly-line.compile")?.command;
    };
    const stale = session.waitForDiagnostics(lockUri, (d) => d.length > 0);
    session.open(uriOf(path.join(root, "agent.md")), AGENT_FILES["agent.md"]);
    const pushed = await stale;
    expect(pushed.map((d) => d.code)).toEqual(["AL6002"]);
    expect(await compileAction(pushed)).toEqual({ command: "assembly-line.compile", title: "Run assembly-line compile", arguments: [root] });

    // A missing lock is shown on a file that does not exist: the fix is offered there too.
    fs.rmSync(lockFile);
    const missing = session.waitForDiagnostics(lockUri, (d) => d.some((x) => x.code === "AL6001"));
    session.change(uriOf(path.join(root, "agent.md")), `${AGENT_FILES["agent.md"]}\n`);
    const gone = await missing;
    const command = await compileAction(gone);
    expect(command?.arguments).toEqual([root]);
    expect(await session.connection.sendRequest("workspace/executeCommand", command)).toEqual({ ok: true, lockChanged: true });
    expect(fs.existsSync(lockFile)).toBe(true);
  });

  it("pushes a stale plugins.lock to a pull client that has not opened it, and clears that push when it opens it", async () => {
    const root = writeLspAgent();
    fs.writeFileSync(path.join(root, ENTRY), AGENT_FILES[ENTRY].replace('description: "Echo', 'tags: ["echo"],\n      description: "Echo'));
    const session = await start(root, { pull: true, watch: true });
    const lockUri = uriOf(path.join(root, "plugins.lock"));
    const pushed = session.waitForDiagnostics(lockUri, (d) => d.length > 0);
    session.open(uriOf(path.join(root, "agent.md")), AGENT_FILES["agent.md"]);
    expect((await pushed).map((d) => d.code)).toEqual(["AL6002"]);
    const cleared = session.waitForDiagnostics(lockUri, (d) => d.length === 0);
    session.open(lockUri, fs.readFileSync(path.join(root, "plugins.lock"), "utf8"));
    await cleared;
    const report = await session.connection.sendRequest<{ items: LspDiagnostic[] }>("textDocument/diagnostic", { textDocument: { uri: lockUri } });
    expect(report.items.map((d) => d.code)).toEqual(["AL6002"]);

    // This client watches files for the server: the server registered its globs, and hears of
    // a plugin folder created while it runs through workspace/didChangeWatchedFiles.
    const watched = session.registrations.filter((r) => r.method === "workspace/didChangeWatchedFiles");
    expect(watched).toHaveLength(1);
    expect((watched[0]!.registerOptions as { watchers: { globPattern: string }[] }).watchers.map((w) => w.globPattern)).toEqual(expect.arrayContaining(["**/agent.md", "**/ai.assemblyline/**"]));
    const grown = await growPlugin(session, root);
    const pulled = () => session.connection.sendRequest<{ items: LspDiagnostic[] }>("textDocument/diagnostic", { textDocument: { uri: grown.uri } });
    expect((await pulled()).items).toEqual([]);
    await session.connection.sendNotification("workspace/didChangeWatchedFiles", { changes: grown.files.map((file) => ({ uri: uriOf(file), type: 1 })) });
    expect(summary((await pulled()).items)).toEqual(grown.expected);
  });

  it("analyses the agent again when its workspace plugin package outside the agent root changes, in a buffer or on disk (new-user trial 120)", async () => {
    // An npm workspace: the agent selects its own plugin package, linked into the root's node_modules.
    const repo = tempDir("al-lsp-ws-");
    const agent = path.join(repo, "agents/demo");
    const pkg = path.join(repo, "packages/example");
    for (const [relative, text] of Object.entries(AGENT_FILES)) {
      const file = relative === "agent.md" ? path.join(agent, "agent.md") : path.join(pkg, relative.slice("plugins/example/".length));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, relative === "agent.md" ? text.replace("  example:\n", '  example:\n    package: "@team/example"\n') : text);
    }
    fs.writeFileSync(path.join(pkg, "package.json"), `${JSON.stringify({ name: "@team/example", version: "1.0.0" }, null, 2)}\n`);
    fs.writeFileSync(path.join(repo, "package.json"), `${JSON.stringify({ name: "team", private: true, workspaces: ["agents/*", "packages/*"] }, null, 2)}\n`);
    fs.mkdirSync(path.join(repo, "node_modules/@team"), { recursive: true });
    fs.symlinkSync("../../packages/example", path.join(repo, "node_modules/@team/example"));
    const compiled = runCli(["compile", agent, "--no-package"]);
    expect(compiled.status, compiled.stderr).toBe(0);
    const entry = path.join(pkg, "ai.assemblyline/index.ts");
    const tagged = AGENT_FILES[ENTRY].replace('description: "Echo', 'tags: ["echo"],\n      description: "Echo');

    // A pull client that does not watch files: the server watches the package folder itself.
    const session = await start(repo, { pull: true });
    const lockUri = uriOf(path.join(agent, "plugins.lock"));
    const pulled = () => session.connection.sendRequest<{ items: LspDiagnostic[] }>("textDocument/diagnostic", { textDocument: { uri: lockUri } });
    expect((await pulled()).items).toEqual([]);

    // An unsaved edit of the package's entry changes the agent's locked contract.
    const entryUri = uriOf(entry);
    const staleInBuffer = session.waitForDiagnostics(lockUri, (d) => d.length > 0);
    session.open(entryUri, tagged);
    expect((await staleInBuffer).map((d) => d.code)).toEqual(["AL6002"]);
    // Closed without saving: the disk's text counts again, and the lock is current.
    const current = session.waitForDiagnostics(lockUri, (d) => d.length === 0);
    await session.connection.sendNotification("textDocument/didClose", { textDocument: { uri: entryUri } });
    await current;

    // The same edit made on disk behind the editor's back (a git checkout, another editor).
    fs.writeFileSync(entry, tagged);
    const expected = compileDiagnostics(agent, "plugins.lock");
    expect(expected.map((d) => d.code)).toEqual(["AL6002"]);
    const staleOnDisk = session.waitForDiagnostics(lockUri, (d) => d.length > 0);
    expect(summary(await staleOnDisk)).toEqual(expected);
  });

  it("answers nothing for a file outside any agent and exits with 0 after shutdown", async () => {
    const root = writeLspAgent();
    const session = await start(root);
    const outside = uriOf(path.join(path.dirname(root), "elsewhere.ts"));
    session.open(outside, "export const x = 1;\n");
    const actions = await session.connection.sendRequest("textDocument/codeAction", {
      textDocument: { uri: outside },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [] },
    });
    expect(actions).toEqual([]);
    const report = await session.connection.sendRequest("textDocument/diagnostic", { textDocument: { uri: outside } });
    expect(report).toEqual({ kind: "full", items: [] });
    sessions.splice(sessions.indexOf(session), 1);
    expect(await session.close()).toBe(0);
    expect(session.published.filter((p) => p.uri === outside)).toEqual([]);
  });

  it("refuses to start without --stdio (usage error AL9001, exit 2)", () => {
    const run = runCli(["lsp"]);
    expect(run.status).toBe(2);
    // As every command's usage error: commander's message, then the command's own help (docs/cli.md).
    expect(run.stderr).toBe(`error AL9001: lsp needs --stdio (the only transport)\n(run '${printedCli()} lsp --help' for usage)\n`);
    expect(run.stdout).toBe("");
  });
  it("applies the project configuration as compile does (rules, targets, tokenBudget), and follows an edit of it on disk", async () => {
    const root = writeLspAgent();
    writeConfigAgent(root);
    const severities = ["error", "warning", "info"] as const;
    const compared = (diagnostics: readonly LspDiagnostic[]): ComparedDiagnostic[] =>
      diagnostics.map((d) => ({ code: d.code, severity: severities[d.severity - 1]!, line: d.range.start.line, character: d.range.start.character, endLine: d.range.end.line, endCharacter: d.range.end.character }));
    const agentText = fs.readFileSync(path.join(root, CONFIG_AGENT_FILES.agent), "utf8");
    const texts: Record<string, string> = { ...CONFIG_AGENT_TEXTS, [CONFIG_AGENT_FILES.agent]: agentText };
    /** Resolves once every file's published diagnostics equal `expected` (the server publishes the engine's answer first, then the analysed agent's). */
    const settled = (session: LspSession, expected: Record<string, ComparedDiagnostic[]>) =>
      Promise.all(
        Object.values(CONFIG_AGENT_FILES).map((file) => {
          const uri = uriOf(path.join(root, file));
          const last = session.published.filter((p) => p.uri === uri).at(-1);
          const matches = (d: readonly LspDiagnostic[]) => JSON.stringify(compared(d)) === JSON.stringify(expected[file]);
          return last && matches(last.diagnostics) ? last.diagnostics : session.waitForDiagnostics(uri, matches);
        }),
      );
    const expected = compiledByFile(root);
    // What the configuration does: AL4032 off, AL4039 an error, gemini's AL4705, the budget's AL4720.
    expect(Object.values(expected).flat().map((d) => `${d.code} ${d.severity}`).sort()).toEqual(["AL4039 error", "AL4705 info", "AL4720 error"]);

    const session = await start(root);
    const opened = settled(session, expected);
    for (const file of Object.values(CONFIG_AGENT_FILES)) session.open(uriOf(path.join(root, file)), texts[file]!);
    await opened;

    // The configuration edited on disk (the server's own watcher sees it: this client watches nothing).
    writeConfig(root, EDITED_CONFIG);
    const edited = compiledByFile(root);
    expect(Object.values(edited).flat().map((d) => `${d.code} ${d.severity}`).sort()).toEqual(["AL4032 warning", "AL4032 warning", "AL4707 error", "AL4708 error"]);
    await settled(session, edited);
  });
});
