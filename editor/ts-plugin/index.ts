/**
 * The tsserver plugin `@assemblyline-agents/assembly-line/ts-plugin` (issue 9, DESIGN §7).
 *
 * Listed in `compilerOptions.plugins` of a tsconfig, it adds to `getSemanticDiagnostics` of
 * every `ai.assemblyline/index.*` entry, every definition module an entry points to and every
 * other module of a plugin folder exactly the diagnostics `assembly-line compile` reports for
 * that file, computed from the editor's buffers (see `editor/engine/`), and offers their quick
 * fixes through `getCodeFixesAtPosition`.
 *
 * How our diagnostics look in TypeScript's shape (its `Diagnostic.code` is a number):
 * - `code` is {@link TS_CODE_BASE} + the number of the AL code (AL4001 → 994001);
 * - `source` is {@link DIAGNOSTIC_SOURCE} (`"assembly-line"`), so editors show where it is from;
 * - the message text is `"<AL code>: <the CLI's message>"`, and the CLI's hint is the next
 *   line of the message chain; related locations become `relatedInformation`;
 * - severity error / warning / info → category Error / Warning / Message.
 *
 * Guarantees: every override forwards all its arguments to TypeScript's own implementation and
 * starts from its result; our part runs in a `try` whose failure is logged through the project
 * service logger and returns TypeScript's result untouched; files the engine does not analyse
 * pay one cheap scope test; a project is decorated once (a second registration returns the
 * language service it is given).
 *
 * New folders: the plugin watches the folders the engine names ({@link EditorEngine.foldersToWatch}:
 * agent roots, recursively) through tsserver's own `serverHost.watchDirectory`; a change tells
 * the engine and refreshes the open files' diagnostics, so a plugin folder created while
 * tsserver runs is picked up without a restart.
 *
 * Test hook: with the environment variable {@link FAULT_ENV} set to some text, the analysis of
 * every file whose path contains that text throws (to prove that TypeScript's own results
 * survive a failure of ours).
 *
 * tsserver loads plugins with `require()`, so this module is bundled into one CommonJS file
 * (`dist/editor/ts-plugin.cjs`, by `scripts/build-ts-plugin.mjs`); `ts-plugin/index.js` at
 * the package root points tsserver's resolver at it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { sortDiagnostics } from "../../diagnostics/diagnostic.js";
import { agentSettingsKey, loadAgentSettings, type AgentSettings } from "./project-settings.js";
import { createEditorEngine, offsetAt, type BufferSource, type CodeFix, type Diagnostic, type EditorBuffer, type EditorEngine } from "../engine/index.js";

/** TypeScript code of an AL diagnostic = this + its number (AL4001 → 994001). */
export const TS_CODE_BASE = 990_000;

/** `Diagnostic.source` of our diagnostics. */
export const DIAGNOSTIC_SOURCE = "assembly-line";

/** Environment variable that makes the analysis of matching files throw (test hook; value: a path substring). */
export const FAULT_ENV = "ASSEMBLY_LINE_TS_PLUGIN_FAULT";

/** How long the plugin trusts what it last learnt from the disk (see `EditorEngineOptions.diskRecheckMs`). */
export const DISK_RECHECK_MS = 1000;

const DECORATED = Symbol.for("@assemblyline-agents/assembly-line/ts-plugin");

/** The TypeScript code of an `AL…` code (`undefined` for anything else). */
export function tsCodeOf(code: string): number | undefined {
  const match = /^AL(\d{4})$/.exec(code);
  return match ? TS_CODE_BASE + Number(match[1]) : undefined;
}

/** One engine per tsserver process: projects share its caches. */
let engine: EditorEngine | undefined;

/** The projects this process decorated (their diagnostics are refreshed after a watched change). */
const projects = new Set<ts.server.Project>();

/** The folder watchers this process opened, by folder (see {@link watchFolders}). */
const watchers = new Map<string, ts.FileWatcher>();

/** How long after a watched change the decorated projects' diagnostics are refreshed (one refresh per burst). */
export const REFRESH_DELAY_MS = 100;

let refreshTimer: unknown;

/**
 * How long after an answer about an agent's file its project configuration is loaded again
 * (at most one load per delay; `./project-settings.ts`).
 */
export const SETTINGS_DELAY_MS = 300;

/** Per agent root: its configuration's settings as last loaded, and the pending load. */
const agentSettings = new Map<string, { settings?: AgentSettings; timer?: unknown; running: boolean; again: boolean }>();

type TypeScript = typeof ts;

/**
 * The plugin module factory tsserver calls with its own `typescript` module.
 *
 * @returns `{ create }`, which decorates one project's language service.
 */
export function createPluginModule(modules: { typescript: TypeScript }): ts.server.PluginModule {
  const typescript = modules.typescript;
  return { create: (info) => decorate(typescript, info) };
}

function decorate(typescript: TypeScript, info: ts.server.PluginCreateInfo): ts.LanguageService {
  const service = info.languageService;
  if ((service as unknown as Record<symbol, unknown>)[DECORATED]) return service;
  // Open files are always checked (their versions come from tsserver); what is only on disk is
  // re-checked at most once a second while the user types.
  // The first answer comes from the opened plugin alone; the other entries of its surface are
  // read right after it ({@link readDeferredSoon}).
  const analysis = (engine ??= createEditorEngine({ diskRecheckMs: DISK_RECHECK_MS, deferCollisionReads: true }));
  const logger = info.project.projectService.logger;
  const report = (where: string, error: unknown): void => {
    logger.info(`[assembly-line] ${where} failed; TypeScript's own result is returned: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  };

  const proxy = Object.create(null) as ts.LanguageService;
  for (const key of Object.keys(service) as (keyof ts.LanguageService)[]) {
    const member = service[key];
    (proxy as unknown as Record<string, unknown>)[key] = typeof member === "function" ? (...args: unknown[]) => (member as (...a: unknown[]) => unknown).apply(service, args) : member;
  }
  Object.defineProperty(proxy, DECORATED, { value: true });
  const buffers = openBuffers(info);
  projects.add(info.project);

  proxy.getSemanticDiagnostics = (fileName: string, ...rest: unknown[]) => {
    const own = (service.getSemanticDiagnostics as (...a: unknown[]) => ts.Diagnostic[])(fileName, ...rest);
    try {
      if (!analysis.isCandidate(fileName)) return own;
      injectFault(fileName);
      const found = analysis.analyzeFile(fileName, buffers);
      watchFolders(analysis, info.serverHost, report);
      if (analysis.hasDeferredReads()) readDeferredSoon(analysis, buffers, info.serverHost, report);
      const agentRoot = found.root !== undefined && fs.existsSync(path.join(found.root, "agent.md")) ? found.root : undefined;
      if (agentRoot !== undefined) loadSettingsSoon(analysis, agentRoot, buffers, info.serverHost, report, logger);
      // What `targets` and `tokenBudget` report for the file (the rules are the engine's already).
      const modelFacing = agentRoot === undefined ? undefined : agentSettings.get(agentRoot)?.settings?.modelFacing.get(found.file);
      const diagnostics = modelFacing === undefined ? found.diagnostics : sortDiagnostics([...found.diagnostics, ...modelFacing]);
      if (diagnostics.length === 0) return own;
      const program = service.getProgram();
      const sourceFile = program?.getSourceFile(fileName);
      if (!program || !sourceFile) return own;
      return [...own, ...withoutRestated(own, diagnostics.map((d) => toTsDiagnostic(typescript, d, sourceFile, program)))];
    } catch (error) {
      report(`getSemanticDiagnostics(${fileName})`, error);
      return own;
    }
  };

  proxy.getCodeFixesAtPosition = (fileName: string, start: number, end: number, errorCodes: readonly number[], ...rest: unknown[]) => {
    const own = (service.getCodeFixesAtPosition as (...a: unknown[]) => readonly ts.CodeFixAction[])(fileName, start, end, errorCodes, ...rest);
    try {
      // Our codes asked for, and ours that TypeScript's asked-for codes restate: the fix of an
      // AL4001 left out for TypeScript's TS2561 is offered for TS2561 (TypeScript has none).
      const wanted = new Set([...errorCodes.filter((code) => code >= TS_CODE_BASE && code < TS_CODE_BASE + 10_000), ...errorCodes.flatMap((code) => RESTATING.get(code) ?? [])]);
      if (wanted.size === 0 || !analysis.isCandidate(fileName)) return own;
      injectFault(fileName);
      const program = service.getProgram();
      const fixes = analysis.codeFixesAt(fileName, start, end, buffers).filter((fix) => wanted.has(tsCodeOf(fix.diagnostic.code) ?? -1));
      if (fixes.length === 0) return own;
      return [...own, ...fixes.map((fix) => toCodeFixAction(fix, program))];
    } catch (error) {
      report(`getCodeFixesAtPosition(${fileName})`, error);
      return own;
    }
  };

  proxy.getSupportedCodeFixes = (...args: unknown[]) => {
    const own = (service.getSupportedCodeFixes as (...a: unknown[]) => readonly string[])(...args);
    try {
      const listed = new Set(own);
      return [...own, ...supportedCodes().filter((code) => !listed.has(code))];
    } catch (error) {
      report("getSupportedCodeFixes", error);
      return own;
    }
  };

  logger.info("[assembly-line] tsserver plugin enabled for this project");
  return proxy;
}

/**
 * Opens a tsserver directory watcher (`serverHost.watchDirectory`, the one tsserver uses for
 * its own wildcard includes) on every folder the engine asks to watch and has no watcher yet.
 * A change under one tells the engine ({@link EditorEngine.filesChanged}) and, after
 * {@link REFRESH_DELAY_MS}, asks every decorated project to refresh its open files'
 * diagnostics (`projectsUpdatedInBackground`), so a plugin folder or `agent.md` created after
 * the engine first looked shows up without restarting TS Server.
 */
function watchFolders(analysis: EditorEngine, host: ts.server.ServerHost, report: (where: string, error: unknown) => void): void {
  for (const { folder, recursive } of analysis.foldersToWatch()) {
    if (watchers.has(folder)) continue;
    const onChange = (changed: string): void => {
      try {
        analysis.filesChanged([changed]);
      } catch (error) {
        report(`filesChanged(${changed})`, error);
      }
      if (refreshTimer !== undefined) host.clearTimeout(refreshTimer);
      refreshTimer = host.setTimeout(refreshProjects, REFRESH_DELAY_MS);
    };
    watchers.set(folder, host.watchDirectory(folder, onChange, recursive));
  }
}

let deferredTimer: unknown;

/**
 * After an answer that left out the other entries of the plugin's surface (a fresh engine:
 * `deferCollisionReads`), reads them once tsserver is idle, and when one of them shares a tool
 * name with the answered plugin asks the decorated projects to refresh their diagnostics (the
 * editor then asks again and gets the collision). A request that comes first reads them itself
 * before its answer (`EditorEngine.analyzeFile`).
 */
function readDeferredSoon(analysis: EditorEngine, buffers: BufferSource, host: ts.server.ServerHost, report: (where: string, error: unknown) => void): void {
  if (deferredTimer !== undefined) return;
  deferredTimer = host.setTimeout(() => {
    deferredTimer = undefined;
    try {
      if (analysis.readDeferred(buffers).length > 0) refreshProjects();
    } catch (error) {
      report("readDeferred", error);
    }
  }, 0);
}

/**
 * {@link SETTINGS_DELAY_MS} after an answer about a file of the agent at `root` (at most one load
 * per delay, however many answers), loads its
 * project configuration (`./project-settings.ts`): its `rules` go to the engine, what its
 * `targets` and `tokenBudget` report is kept for the answers; when either changes what the open
 * files show, the decorated projects refresh their diagnostics. An invalid configuration is
 * written to the TS Server log (tsserver shows no diagnostics on a JSON or YAML file), and the
 * files are shown without it. A configuration edited on disk is seen by the next load: after
 * the next answer, which a watched change under the agent root asks for.
 */
function loadSettingsSoon(analysis: EditorEngine, root: string, buffers: BufferSource, host: ts.server.ServerHost, report: (where: string, error: unknown) => void, logger: ts.server.Logger): void {
  let state = agentSettings.get(root);
  if (!state) agentSettings.set(root, (state = { running: false, again: false }));
  const current = state;
  // Not pushed back by each request (an editor asks on every keystroke): one load per delay.
  if (current.timer !== undefined) return;
  current.timer = host.setTimeout(() => {
    current.timer = undefined;
    if (current.running) {
      current.again = true;
      return;
    }
    current.running = true;
    loadAgentSettings(analysis, root, buffers)
      .then((settings) => {
        const changed = agentSettingsKey(settings) !== agentSettingsKey(current.settings);
        current.settings = settings;
        const rulesChanged = analysis.setProjectRules(root, settings.rules);
        if (changed) for (const problem of settings.problems) logger.info(`[assembly-line] the project configuration of ${root} is not applied: ${problem.code} ${problem.file}:${problem.line}:${problem.column}: ${problem.message}`);
        if (changed || rulesChanged) refreshProjects();
      })
      .catch((error: unknown) => report(`loading the project configuration of ${root}`, error))
      .finally(() => {
        current.running = false;
        if (current.again) {
          current.again = false;
          loadSettingsSoon(analysis, root, buffers, host, report, logger);
        }
      });
  }, SETTINGS_DELAY_MS);
}

/** Asks every decorated project to refresh its open files' diagnostics. */
function refreshProjects(): void {
  refreshTimer = undefined;
  for (const project of projects) {
    if (project.isClosed()) projects.delete(project);
    else project.refreshDiagnostics();
  }
}

/**
 * The project's open files as editor buffers: text and version from tsserver's script infos
 * (the text is taken once per version). Closed files are read from disk by the engine.
 */
function openBuffers(info: ts.server.PluginCreateInfo): BufferSource {
  const texts = new Map<string, EditorBuffer>();
  return {
    get(file) {
      const script = info.project.projectService.getScriptInfo(file);
      if (!script || !script.isScriptOpen()) {
        texts.delete(file);
        return undefined;
      }
      const version = script.getLatestVersion();
      const known = texts.get(file);
      if (known && known.version === version) return known;
      const snapshot = script.getSnapshot();
      const buffer = { text: snapshot.getText(0, snapshot.getLength()), version };
      texts.set(file, buffer);
      return buffer;
    },
  };
}

/**
 * TypeScript's own codes that state the same problem as one of ours, by our TypeScript code:
 * an excess property in an object literal (TS2353, and TS2561 with its "Did you mean to write
 * 'description'?") is our unknown field (AL4001) whenever the object is typed, as
 * `defineAssemblyLinePlugin({...})` and `defineTool({...})` are.
 */
const RESTATED_BY_TYPESCRIPT: ReadonlyMap<number, ReadonlySet<number>> = new Map([[tsCodeOf(Diagnostics.EntryUnknownField.code)!, new Set([2353, 2561])]]);

/**
 * The other way round: by TypeScript's code, our codes it restates. A fix of ours for a
 * diagnostic left out in TypeScript's favour is offered for TypeScript's (TypeScript 6.0 has no
 * fix for TS2561 nor TS2353: without this the did-you-mean rename was lost with AL4001;
 * helper-78's trial).
 */
const RESTATING: ReadonlyMap<number, readonly number[]> = (() => {
  const map = new Map<number, number[]>();
  for (const [ours, theirs] of RESTATED_BY_TYPESCRIPT) for (const code of theirs) map.set(code, [...(map.get(code) ?? []), ours]);
  return map;
})();

/**
 * `ours` without each diagnostic that TypeScript's own list (`own`) already reports at the very
 * same span with a code that states the same problem ({@link RESTATED_BY_TYPESCRIPT}): one
 * problem, one diagnostic, as typescript-eslint leaves to `tsc` what it checks (helper-75's
 * trial, K7: TS2561 and AL4001 on one misspelt key). Where TypeScript does not see the problem
 * (an untyped `export default {...}`, an import it cannot resolve), ours stays, with its quick fix.
 */
export function withoutRestated(own: readonly ts.Diagnostic[], ours: readonly ts.Diagnostic[]): ts.Diagnostic[] {
  return ours.filter((diagnostic) => {
    const same = RESTATED_BY_TYPESCRIPT.get(diagnostic.code);
    return !same || !own.some((theirs) => same.has(theirs.code) && theirs.start === diagnostic.start && theirs.length === diagnostic.length);
  });
}

function categoryOf(typescript: TypeScript, severity: Diagnostic["severity"]): ts.DiagnosticCategory {
  return severity === "error" ? typescript.DiagnosticCategory.Error : severity === "warning" ? typescript.DiagnosticCategory.Warning : typescript.DiagnosticCategory.Message;
}

/** Our diagnostic in TypeScript's shape, its span computed in the source file's own text. */
function toTsDiagnostic(typescript: TypeScript, diagnostic: Diagnostic, sourceFile: ts.SourceFile, program: ts.Program): ts.Diagnostic {
  const code = tsCodeOf(diagnostic.code) ?? TS_CODE_BASE;
  const category = categoryOf(typescript, diagnostic.severity);
  const span = spanIn(sourceFile.text, diagnostic);
  const head = `${diagnostic.code}: ${diagnostic.message}`;
  const messageText: string | ts.DiagnosticMessageChain = diagnostic.hint
    ? { messageText: head, category, code, next: [{ messageText: diagnostic.hint, category: typescript.DiagnosticCategory.Message, code }] }
    : head;
  const relatedInformation: ts.DiagnosticRelatedInformation[] = [];
  for (const related of diagnostic.related ?? []) {
    const file = program.getSourceFile(related.file);
    const at = file ? spanIn(file.text, related) : undefined;
    relatedInformation.push({ category: typescript.DiagnosticCategory.Message, code, file, start: at?.start, length: at?.length, messageText: related.message });
  }
  return {
    file: sourceFile,
    start: span.start,
    length: span.length,
    messageText,
    category,
    code,
    source: DIAGNOSTIC_SOURCE,
    ...(relatedInformation.length > 0 ? { relatedInformation } : {}),
  };
}

function spanIn(text: string, at: { line: number; column: number; endLine?: number; endColumn?: number }): { start: number; length: number } {
  const start = offsetAt(text, at.line, at.column);
  const end = at.endLine !== undefined && at.endColumn !== undefined ? offsetAt(text, at.endLine, at.endColumn) : start;
  return { start, length: Math.max(0, end - start) };
}

/** A fix in TypeScript's shape; edits are re-addressed in each file's program text (by line and column). */
function toCodeFixAction(fix: CodeFix, program: ts.Program | undefined): ts.CodeFixAction {
  const changes = new Map<string, ts.TextChange[]>();
  for (const edit of fix.edits) {
    const text = program?.getSourceFile(edit.file)?.text;
    const start = text !== undefined ? offsetAt(text, edit.range.line, edit.range.column) : edit.start;
    const end = text !== undefined ? offsetAt(text, edit.range.endLine, edit.range.endColumn) : edit.end;
    const list = changes.get(edit.file) ?? [];
    list.push({ span: { start, length: end - start }, newText: edit.newText });
    changes.set(edit.file, list);
  }
  return {
    fixName: `assembly-line-${fix.kind}`,
    description: fix.title,
    changes: [...changes].map(([fileName, textChanges]) => ({ fileName, textChanges })),
  };
}

/** The {@link FAULT_ENV} test hook. */
function injectFault(fileName: string): void {
  const mark = process.env[FAULT_ENV];
  if (mark && fileName.includes(mark)) throw new Error(`injected analyzer fault (${FAULT_ENV}=${mark})`);
}

let supported: readonly string[] | undefined;

/**
 * Every AL code as the TypeScript code string `getSupportedCodeFixes` lists, and TypeScript's
 * codes that restate ours ({@link RESTATING}: editors ask for fixes only of listed codes).
 */
function supportedCodes(): readonly string[] {
  return (supported ??= [
    ...Object.values(Diagnostics)
      .map((message) => tsCodeOf(message.code))
      .filter((code): code is number => code !== undefined)
      .map(String),
    ...[...RESTATING.keys()].map(String),
  ]);
}
