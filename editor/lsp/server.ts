/**
 * The language server behind `assembly-line lsp --stdio` (issue 9 part 2): it reports what
 * `assembly-line compile` reports, on the files it concerns, from the editor's buffers, and
 * offers the quick fixes those diagnostics know.
 *
 * Two analyses feed it, both reading the open buffers before the disk:
 *  - open files the editor engine covers (entries, definition modules and other plugin
 *    modules, `agent.md`, `plugin.json`, `mcp.json`, `SKILL.md`): the shared per-file engine
 *    (`editor/engine/`), synchronous and cached per file version, re-run
 *    {@link LanguageServerOptions.fileDelayMs} after a change for every open file (an edit of a
 *    definition module changes its entry's diagnostics);
 *  - everything else, above all `plugins.lock` (missing, stale or damaged, with a "run
 *    compile" fix) and the files that are not open: the whole-agent analysis of
 *    `compile --check --no-package` (`agent-diagnostics.ts`), on a worker thread,
 *    {@link LanguageServerOptions.agentDelayMs} after the last change of the agent.
 *
 * Clients that declare pull diagnostics (`textDocument.diagnostic`) pull their open files, are
 * asked to refresh after each whole-agent analysis, and are pushed to only for files they do not
 * have open; all others get `textDocument/publishDiagnostics` for everything.
 * Every handler is guarded: an exception is logged to the client and the request answers with
 * nothing, so a bug in an analysis never takes the server down.
 *
 * What a user waits for after opening a file (docs/editor.md "What you wait for"): `initialize`
 * is answered before the analyses load (the editor engine and, through the whole-agent analysis,
 * the compiler: most of a cold server's start); they load right after the answer, while the
 * client sends `initialized` and its first `didOpen`, and every handler that needs them waits
 * for them. The whole-agent analysis waits for a pending per-file pass, so that on a cold
 * process the open entry's own diagnostics come first instead of sharing the CPU with the
 * worker's start. The engine's first answer comes from the opened plugin alone
 * (`deferCollisionReads`): the other entries of its surface are read right after that answer is
 * written, and the files whose answers change (a tool-name collision) are sent again, as part
 * of the same per-file pass (helper-106).
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { FSWatcher } from "chokidar";
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  DocumentDiagnosticReportKind,
  TextDocumentSyncKind,
  TextDocuments,
  type CodeAction,
  type Connection,
  type Diagnostic as LspDiagnostic,
  type FullDocumentDiagnosticReport,
  type InitializeResult,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { createNodeHost, createOverlayHost, type CompilerHost, type OverlayFile } from "../../common/host.js";
// Types only: the engine, the runner and the compiler load after `initialize` is answered ({@link startLanguageServer}).
import type { CodeFix, EditorEngine, FolderWatch } from "../engine/index.js";
import type { DiagnosticsByFile } from "./agent-diagnostics.js";
import { findAgentRoot } from "../../compiler/agent/agent-root.js";
import { CONFIG_SEARCH_PLACES } from "../../build/project-config/types.js";
import { MODEL_FACING_CODES } from "../../diagnostics/catalog/providers.js";
import { sortDiagnostics } from "../../diagnostics/diagnostic.js";
import type { AgentAnalysisRunner } from "./agent-runner.js";
import { COMPILE_COMMAND, codeActionsFor } from "./code-actions.js";
import { fileUri, toLspDiagnostic, toRange } from "./to-lsp.js";

/** How long the default engine trusts what it last learnt from the disk (see `EditorEngineOptions.diskRecheckMs`). */
export const DISK_RECHECK_MS = 1000;

/** Options of {@link startLanguageServer}. */
export interface LanguageServerOptions {
  /** Delay after a change before the open files are analysed again (default 0: the next turn of the event loop, so a burst of changes already received is analysed once). */
  readonly fileDelayMs?: number;
  /** Delay after the last change before the whole agent is analysed again (default 300 ms). */
  readonly agentDelayMs?: number;
  /** The disk below the buffers (default: the real file system). */
  readonly host?: CompilerHost;
  /** The per-file engine (default: a new `createEditorEngine` over `host`). */
  readonly engine?: EditorEngine;
  /** The whole-agent analysis (default: on a worker thread when built, else in process). */
  readonly runner?: AgentAnalysisRunner;
}

/** What the server knows about one agent root. */
interface AgentState {
  /** Diagnostics of the last whole-agent analysis. */
  byFile: DiagnosticsByFile;
  /** The agent's plugin folders outside its root, from the last whole-agent analysis (`AgentDiagnostics.outside`). */
  outside: readonly string[];
  /** True once a whole-agent analysis finished. */
  analysed: boolean;
  /** The pending (debounced) whole-agent analysis. */
  timer: NodeJS.Timeout | undefined;
  /** The analysis running now. */
  running: Promise<void> | undefined;
  /** A change arrived while an analysis was running: run again when it ends. */
  again: boolean;
  /** The project configuration file the last analysis found for the agent (`AgentDiagnostics.configFile`). */
  configFile?: string | undefined;
}

/**
 * Serves the language server on `connection` (stdio for `assembly-line lsp --stdio`) until the
 * client sends `exit`.
 */
export function startLanguageServer(connection: Connection, options: LanguageServerOptions = {}): void {
  const fileDelay = options.fileDelayMs ?? 0;
  const agentDelay = options.agentDelayMs ?? 300;
  const base = options.host ?? createNodeHost();
  const documents = new TextDocuments(TextDocument);
  /** Open buffers by absolute path (what the engine and the whole-agent analysis read first). */
  const overlays = new Map<string, OverlayFile>();
  const host = createOverlayHost(base, overlays);
  /** Logs a failure to the client; never throws (the connection may be gone: an analysis can fail after the client left). */
  const log = (error: unknown): void => {
    try {
      connection.console.error(`assembly-line: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } catch {
      // No client to tell.
    }
  };
  /** The per-file engine and the whole-agent runner: undefined until {@link ready} has loaded them. */
  let engine: EditorEngine | undefined = options.engine;
  let runner: AgentAnalysisRunner | undefined = options.runner;
  let loading: Promise<void> | undefined;
  /**
   * Loads the engine and the runner (their modules hold the compiler front end) once; every
   * handler that needs them awaits this. Started right after `initialize` is answered, or by
   * the first handler that needs them. A failed load rejects; the handlers that wait log it.
   */
  const ready = (): Promise<void> =>
    (loading ??= (async () => {
      const [engineModule, runnerModule] = await Promise.all([engine ? undefined : import("../engine/index.js"), runner ? undefined : import("./agent-runner.js")]);
      // On the real file system the engine checks its cached results with a stat per file, and
      // trusts the disk for DISK_RECHECK_MS: changes behind the editor's back come in through the
      // file watchers (filesChanged), which make it ask again at once.
      // The first answer comes from the opened plugin alone: the other entries of its surface
      // are read right after it is sent (completeDeferred).
      engine ??= engineModule!.createEditorEngine(options.host ? { host: base, deferCollisionReads: true } : { diskRecheckMs: DISK_RECHECK_MS, deferCollisionReads: true });
      runner ??= runnerModule!.createAgentAnalysisRunner(base, log);
    })());
  /** The per-file pass that is scheduled or running, settled when it ends (the whole-agent analysis waits for it). */
  let filePass: { readonly done: Promise<void>; readonly end: () => void } | undefined;
  const agents = new Map<string, AgentState>();
  /** Last diagnostics sent per URI (to clear stale ones and skip repeats). */
  const published = new Map<string, LspDiagnostic[]>();
  /** The URI the client uses for each open file (diagnostics must name the same URI). */
  const uris = new Map<string, string>();
  /** Files edited since the last per-file pass: their diagnostics are sent even when unchanged. */
  const edited = new Set<string>();
  /** URIs a pull client was pushed diagnostics for while they were not open. */
  const pushedToPullClient = new Set<string>();
  let fileTimer: NodeJS.Timeout | undefined;
  let pull = false;
  let refreshSupported = false;
  /** The client watches files for us (`workspace/didChangeWatchedFiles` dynamic registration). */
  let clientWatches = false;
  /** Our own watchers (clients that cannot watch for us), by folder. */
  const watchers = new Map<string, FSWatcher | Promise<FSWatcher | undefined>>();
  let closed = false;

  const guarded = <A extends unknown[], R>(fallback: R, fn: (...args: A) => R) => (...args: A): R => {
    try {
      return fn(...args);
    } catch (error) {
      log(error);
      return fallback;
    }
  };
  const uriOf = (file: string): string => uris.get(file) ?? fileUri(file);
  const fileOf = (uri: string): string | undefined => (uri.startsWith("file:") ? path.resolve(fileURLToPath(uri)) : undefined);
  const agentOf = (root: string): AgentState => {
    let state = agents.get(root);
    if (!state) agents.set(root, (state = { byFile: new Map(), outside: [], analysed: false, timer: undefined, running: undefined, again: false }));
    return state;
  };
  /** True for an open file the per-file engine answers for. */
  const byEngine = (file: string): boolean => overlays.has(file) && engine !== undefined && engine.isCandidate(file);

  /**
   * The agents whose whole-agent analysis reads `file`: the agent whose root holds it, and every
   * agent with a plugin folder outside its root that holds it (a workspace's shared plugin
   * package: `AgentDiagnostics.outside`, learnt from each agent's last analysis).
   */
  const agentsOf = (file: string): string[] => {
    const roots = new Set<string>();
    const own = findAgentRoot(host, file);
    if (own !== undefined) roots.add(own);
    for (const [root, state] of agents) if (state.configFile === file || state.outside.some((folder) => isInside(folder, file))) roots.add(root);
    return [...roots];
  };

  /** Our diagnostics for `file` now: the engine's for open files it covers, else the last analyses of the agents that read it. */
  const diagnosticsOf = (file: string): LspDiagnostic[] => {
    if (byEngine(file)) {
      const analysis = engine!.analyzeFile(file, overlays);
      const own = analysis.diagnostics;
      // The provider profiles' and token budget's diagnostics (`targets`, `tokenBudget`) judge the
      // whole agent's tool snapshot: they come from the last whole-agent analysis of the agent the
      // engine answered in (a map lookup per keystroke: no search for agent roots).
      const found = analysis.root === undefined ? undefined : agents.get(analysis.root)?.byFile.get(file);
      const modelFacing = found?.filter((d) => MODEL_FACING_CODES.has(d.code)) ?? [];
      return (modelFacing.length === 0 ? own : sortDiagnostics([...own, ...modelFacing])).map(toLspDiagnostic);
    }
    const found = agentsOf(file).flatMap((root) => agentOf(root).byFile.get(file) ?? []);
    // A shared package's problem is reported once, whichever agents selecting it found it.
    const seen = new Set<string>();
    return found.map(toLspDiagnostic).filter((diagnostic) => {
      const key = JSON.stringify(diagnostic);
      return !seen.has(key) && seen.add(key) !== undefined;
    });
  };

  /**
   * Sends `file`'s diagnostics unless they are what was sent last (or `always`). A pull client
   * pulls its open files itself; it is pushed to only for files it does not have open (a stale
   * `plugins.lock`, a broken `mcp.json`), and such a push is cleared when it opens the file, so
   * nothing shows twice.
   */
  const publish = (file: string, diagnostics: LspDiagnostic[], always = false): void => {
    const uri = uriOf(file);
    const before = published.get(uri) ?? [];
    if (!always && JSON.stringify(before) === JSON.stringify(diagnostics)) return;
    if (diagnostics.length === 0) published.delete(uri);
    else published.set(uri, diagnostics);
    if (pull && overlays.has(file)) return;
    void connection.sendDiagnostics({ uri, diagnostics });
    if (pull && diagnostics.length > 0) pushedToPullClient.add(uri);
    else pushedToPullClient.delete(uri);
  };

  /**
   * The per-file pass: every open file the engine covers (cached, so unaffected files cost
   * little). Before the engine has loaded it runs again once it has.
   */
  const analyzeOpenFiles = guarded(undefined, () => {
    fileTimer = undefined;
    if (engine === undefined) {
      ready().then(() => {
        if (!fileTimer && !closed) scheduleFilePass();
      }, log);
      return;
    }
    try {
      for (const file of [...overlays.keys()].sort()) {
        if (!byEngine(file)) continue;
        try {
          publish(file, diagnosticsOf(file), edited.has(file));
        } catch (error) {
          log(error);
        }
      }
      edited.clear();
      watchEngineFolders();
    } finally {
      if (engine.hasDeferredReads()) {
        // Once the answers are written (the writer sends them from a later turn of the event loop).
        setImmediate(completeDeferred);
      } else {
        endFilePass();
      }
    }
  });

  /** Ends the per-file pass (the whole-agent analysis waits for it). */
  const endFilePass = (): void => {
    const pass = filePass;
    filePass = undefined;
    pass?.end();
  };

  /**
   * The rest of a per-file pass whose answers left out the other entries of a plugin's surface
   * (a fresh engine, `deferCollisionReads`): reads them, and sends the open files whose answers
   * change (a tool-name collision with one of them) again; a pull client is asked to refresh.
   * Part of the per-file pass: the whole-agent analysis starts after it.
   */
  const completeDeferred = guarded(undefined, () => {
    try {
      if (closed || engine === undefined) return;
      const changed = engine.readDeferred(overlays);
      for (const file of changed) if (byEngine(file)) publish(file, diagnosticsOf(file));
      if (changed.length > 0 && pull && refreshSupported) void connection.languages.diagnostics.refresh();
    } finally {
      // A pass scheduled meanwhile ends it instead.
      if (fileTimer === undefined) endFilePass();
    }
  });

  /** Schedules the per-file pass {@link LanguageServerOptions.fileDelayMs} from now (a burst of changes is analysed once). */
  function scheduleFilePass(): void {
    if (fileTimer) clearTimeout(fileTimer);
    if (!filePass) {
      let end = (): void => {};
      const done = new Promise<void>((resolve) => (end = resolve));
      filePass = { done, end };
    }
    fileTimer = setTimeout(analyzeOpenFiles, fileDelay);
  }

  /**
   * Files or folders were created, changed or deleted (reported by the client's file watchers
   * or ours): the engine works out again where files sit, the agents they belong to are
   * analysed again, and so are the open files.
   */
  const filesChanged = (files: readonly string[]): void => {
    // An engine that has not loaded yet has learnt nothing to forget.
    engine?.filesChanged(files);
    const roots = new Set<string>();
    for (const file of files) for (const root of agentsOf(file)) roots.add(root);
    for (const root of roots) scheduleAgent(root);
    scheduleFilePass();
  };

  /**
   * For a client that does not watch files for us: a chokidar watcher on every folder the
   * engine asks to watch (agent roots, without `.git/`, `node_modules/` and `.assemblyline/`; where an `agent.md`
   * would select a plugin), and on every analysed agent's plugin folders outside its root (a
   * workspace's shared plugin package), feeding {@link filesChanged}.
   */
  const watchEngineFolders = (): void => {
    if (clientWatches || closed || engine === undefined) return;
    const engineFolders = engine.foldersToWatch();
    const deep = engineFolders.filter((watch) => watch.recursive).map((watch) => watch.folder);
    const outside = [...new Set([...agents.values()].flatMap((state) => state.outside))]
      .filter((folder) => !deep.some((root) => isInside(root, folder)))
      .map((folder): FolderWatch => ({ folder, recursive: true }));
    for (const { folder, recursive } of [...engineFolders, ...outside]) {
      if (watchers.has(folder)) continue;
      // Not what compile writes (.assemblyline/: the artifact and the analysis cache) nor what it never reads.
      const ignoredDirs = [".git", "node_modules", ".assemblyline"].map((name) => path.join(folder, name));
      const starting = import("chokidar").then(
        ({ watch }) => {
          const watcher = watch(folder, {
            ignoreInitial: true,
            ...(recursive ? {} : { depth: 0 }),
            ignored: (file: string) => ignoredDirs.some((dir) => file === dir || file.startsWith(dir + path.sep)),
          });
          watcher.on("all", (_event, file) => filesChanged([path.resolve(file)]));
          // What changed while chokidar was still scanning is not reported (ignoreInitial): look again once it is ready.
          watcher.on("ready", () => filesChanged([folder]));
          watcher.on("error", log);
          if (closed) void watcher.close();
          else watchers.set(folder, watcher);
          return watcher;
        },
        (error: unknown) => {
          log(error);
          return undefined;
        },
      );
      watchers.set(folder, starting);
    }
  };

  const runAgent = (root: string): Promise<void> => {
    const state = agentOf(root);
    if (state.running) {
      state.again = true;
      return state.running;
    }
    state.again = false;
    state.running = (async () => {
      try {
        await ready();
        // The open files' own diagnostics first: on a cold process the worker's start would share the CPU with them.
        while (filePass) await filePass.done;
        if (closed) return;
        const previous = state.byFile;
        // The buffers it reads: the agent's own, and those in its plugin folders outside it (as the last analysis found them).
        const read = (file: string): boolean => isInside(root, file) || state.outside.some((folder) => isInside(folder, file));
        const found = await runner!.analyze(root, new Map([...overlays].filter(([file]) => read(file))));
        state.byFile = found.byFile;
        state.configFile = found.configFile;
        // The configuration's rules for the per-file engine's answers (open files); a changed
        // configuration, or new provider/budget diagnostics, republish the open files below.
        engine!.setProjectRules(root, found.rules);
        const newlyOutside = found.outside.some((folder) => !state.outside.includes(folder));
        state.outside = found.outside;
        state.analysed = true;
        watchEngineFolders();
        // A plugin folder outside the root seen for the first time may have open buffers the analysis did not read.
        if (newlyOutside && [...overlays.keys()].some((file) => !isInside(root, file) && read(file))) state.again = true;
        const files = new Set([...previous.keys(), ...state.byFile.keys()]);
        for (const file of [...files].sort()) if (!byEngine(file)) publish(file, diagnosticsOf(file));
        // Open files the engine answers for: only what changed is sent (publish compares).
        for (const file of [...overlays.keys()].sort()) if (byEngine(file) && agentsOf(file).includes(root)) publish(file, diagnosticsOf(file));
        if (pull && refreshSupported) void connection.languages.diagnostics.refresh();
      } catch (error) {
        log(error);
      } finally {
        state.running = undefined;
      }
      if (state.again) await runAgent(root);
    })();
    return state.running;
  };

  const scheduleAgent = (root: string): void => {
    const state = agentOf(root);
    if (state.timer) clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.timer = undefined;
      void runAgent(root);
    }, agentDelay);
  };

  const changed = guarded(undefined, (document: TextDocument) => {
    const file = fileOf(document.uri);
    if (!file) return;
    uris.set(file, document.uri);
    if (!overlays.has(file) && pushedToPullClient.delete(document.uri)) void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
    overlays.set(file, { text: document.getText(), version: String(document.version) });
    edited.add(file);
    scheduleFilePass();
    for (const root of agentsOf(file)) scheduleAgent(root);
  });

  connection.onInitialize((params): InitializeResult => {
    pull = params.capabilities.textDocument?.diagnostic !== undefined;
    refreshSupported = params.capabilities.workspace?.diagnostics?.refreshSupport === true;
    clientWatches = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    // The analyses load once this answer is on its way (the reply is written from a setImmediate
    // queued after this one), while the client sends `initialized` and its first `didOpen`.
    setImmediate(() => setImmediate(() => void ready().catch(() => {})));
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        executeCommandProvider: { commands: [COMPILE_COMMAND] },
        ...(pull ? { diagnosticProvider: { interFileDependencies: true, workspaceDiagnostics: false } } : {}),
      },
      serverInfo: { name: "assembly-line" },
    };
  });

  connection.onInitialized(() => {
    if (!clientWatches) return;
    // What can change the diagnostics behind the editor's back: the files compile reads
    // besides modules, and anything in a plugin's ai.assemblyline/ (a new plugin folder).
    // The project configuration's names (`build/project-config/`): found from the agent root upwards.
    const globs = ["**/agent.md", "**/plugin.json", "**/mcp.json", "**/SKILL.md", "**/plugins.lock", "**/ai.assemblyline/**", "**/*.{ts,mts,cts,js,mjs,cjs,json}", ...CONFIG_SEARCH_PLACES.map((name) => `**/${name}`)];
    connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: globs.map((globPattern) => ({ globPattern })) }).catch(log);
  });

  documents.onDidChangeContent((event) => changed(event.document));
  documents.onDidSave(
    guarded(undefined, (event: { document: TextDocument }) => {
      const file = fileOf(event.document.uri);
      for (const root of file === undefined ? [] : agentsOf(file)) scheduleAgent(root);
    }),
  );
  documents.onDidClose(
    guarded(undefined, (event: { document: TextDocument }) => {
      const file = fileOf(event.document.uri);
      if (!file) return;
      overlays.delete(file);
      // The disk's content counts again: the file's diagnostics come from the next whole-agent analysis.
      const roots = agentsOf(file);
      for (const root of roots) scheduleAgent(root);
      if (roots.length === 0) publish(file, []);
    }),
  );
  connection.onDidChangeWatchedFiles(
    guarded(undefined, (params: { changes: readonly { uri: string }[] }) => {
      filesChanged(params.changes.map((change) => fileOf(change.uri)).filter((file): file is string => file !== undefined));
    }),
  );

  connection.languages.diagnostics.on(async (params) => {
    const report = (items: LspDiagnostic[]): FullDocumentDiagnosticReport => ({ kind: DocumentDiagnosticReportKind.Full, items });
    try {
      const file = fileOf(params.textDocument.uri);
      if (!file) return report([]);
      await ready();
      if (!byEngine(file)) {
        for (const root of agentsOf(file)) {
          const state = agentOf(root);
          // A pull asks for the current state: settle a pending whole-agent analysis first.
          if (state.timer || state.running || !state.analysed) {
            if (state.timer) clearTimeout(state.timer);
            state.timer = undefined;
            await runAgent(root);
          }
        }
      }
      return report(diagnosticsOf(file));
    } catch (error) {
      log(error);
      return report([]);
    }
  });

  connection.onCodeAction(async (params): Promise<CodeAction[]> => {
    try {
      await ready();
      const file = fileOf(params.textDocument.uri);
      if (!file) return [];
      // A file the server pushes diagnostics to without the editor having opened it (a stale or
      // missing plugins.lock) is read from the disk, or is empty when it does not exist, so its
      // fixes (the compile command) are offered where its diagnostics are shown (new-user trial
      // of 6 December: the command was offered only once plugins.lock was open).
      const document = documents.get(params.textDocument.uri) ?? documentOnDisk(host, params.textDocument.uri, file);
      const root = findAgentRoot(host, file);
      if (!byEngine(file)) return codeActionsFor(document, params.context.diagnostics, root);
      const fixes = engine!.codeFixesAt(file, document.offsetAt(params.range.start), document.offsetAt(params.range.end), overlays);
      const lockActions = codeActionsFor(document, params.context.diagnostics, root).filter((action) => action.command !== undefined);
      return [...fixes.map((fix) => toCodeAction(fix, uriOf, params.context.diagnostics)), ...lockActions];
    } catch (error) {
      log(error);
      return [];
    }
  });

  connection.onExecuteCommand(async (params) => {
    const root = params.command === COMPILE_COMMAND && typeof params.arguments?.[0] === "string" ? params.arguments[0] : undefined;
    if (root === undefined) return undefined;
    try {
      // The real compile on the files on disk, as the CLI would run it: it writes plugins.lock and the artifact.
      const { compileAgent } = await import("../../build/compile.js");
      const result = await compileAgent({ root });
      if (!result.ok) {
        const errors = result.diagnostics.filter((d) => d.severity === "error").length;
        void connection.window.showWarningMessage(`assembly-line compile found ${errors} error${errors === 1 ? "" : "s"}; plugins.lock was not written.`);
      }
      await runAgent(root);
      return { ok: result.ok, lockChanged: result.lockChanged };
    } catch (error) {
      log(error);
      return undefined;
    }
  });

  connection.onShutdown(async () => {
    closed = true;
    runner?.close();
    const stopping = [...watchers.values()];
    watchers.clear();
    await Promise.all(stopping.map(async (watcher) => (await watcher)?.close()));
  });
  documents.listen(connection);
  connection.listen();
}

/** A file that is not open in the editor as a document: its text on disk, empty when it cannot be read (a missing plugins.lock). */
function documentOnDisk(host: CompilerHost, uri: string, file: string): TextDocument {
  const read = host.read(file);
  return TextDocument.create(uri, "", 0, read.kind === "file" ? read.text : "");
}

/** An engine fix as an LSP code action (its edits may touch another file: drift fixes). */
function toCodeAction(fix: CodeFix, uriOf: (file: string) => string, sent: readonly LspDiagnostic[]): CodeAction {
  const changes: Record<string, { range: ReturnType<typeof toRange>; newText: string }[]> = {};
  for (const edit of fix.edits) {
    (changes[uriOf(edit.file)] ??= []).push({ range: toRange({ file: edit.file, ...edit.range }), newText: edit.newText });
  }
  const target = toLspDiagnostic(fix.diagnostic);
  const matching = sent.filter((d) => d.code === target.code && d.range.start.line === target.range.start.line && d.range.start.character === target.range.start.character);
  return {
    title: fix.title,
    kind: CodeActionKind.QuickFix,
    diagnostics: matching.length > 0 ? matching : [target],
    isPreferred: fix.kind === "did-you-mean",
    edit: { changes },
  };
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
