/**
 * {@link createEditorEngine}: the per-file entry point of the editor engine (see `index.ts`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { analyzeAgent, type AgentAnalysis } from "../../compiler/analyze-agent.js";
import { createStaticAnalyzer } from "../../compiler/static-analysis/static-analyzer.js";
import { createSchemaCompiler } from "../../compiler/validation/schema-compiler.js";
import { createNodeHost, createOverlayHost, type OverlayFile } from "../../common/host.js";
import { isJsonObject } from "../../common/json-value.js";
import { dedupeDiagnostics, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { compileSettingsKey } from "../../build/compile-settings.js";
import type { RuleSetting } from "../../build/project-config/types.js";
import { applySeverityRules } from "../../build/severity-rules.js";
import { fixesFor } from "./code-fixes.js";
import type { BufferSource, EditorBuffer, EditorEngine, EditorEngineOptions, FileAnalysis, FileRole, FolderWatch } from "./types.js";
import { isAgentFileName, Locator, pluginRootOfEntry } from "./locate.js";
import { StageMemo } from "./memo.js";
import { offsetAt } from "./offsets.js";
import { pinsFor, SliceStages, type PluginSlice } from "./plugin-slice.js";
import { createRecordingHost } from "./recording-host.js";

/** Modules a plugin folder may hold (entries, definitions, imported consts and JSON). */
const MODULE = /\.(?:[cm]?[jt]s|[jt]sx|json)$/i;

/** Creates an engine. Keep one per editor process: its caches are what make edits cheap. */
export function createEditorEngine(options: EditorEngineOptions = {}): EditorEngine {
  let buffers: BufferSource | undefined;
  /**
   * The current call's answers of `buffers`, by absolute path: a request asks about each file
   * once (a tsserver buffer lookup goes through the project service), however many cached
   * results depend on it.
   */
  let asked = new Map<string, EditorBuffer | undefined>();
  const bufferOf = (absolute: string): EditorBuffer | undefined => {
    if (asked.has(absolute)) return asked.get(absolute);
    const buffer = buffers?.get(absolute);
    asked.set(absolute, buffer);
    return buffer;
  };
  /** `path.resolve` of the paths the compiler asks about, kept (the same few hundred paths come back on every request). */
  const resolved = new Map<string, string>();
  const absoluteOf = (file: string): string => {
    let absolute = resolved.get(file);
    if (absolute === undefined) resolved.set(file, (absolute = path.resolve(file)));
    return absolute;
  };
  // createOverlayHost asks its map only `get` (with resolved paths); the current call's buffers answer.
  const overlays = { get: bufferOf } as unknown as ReadonlyMap<string, OverlayFile>;
  const base = createOverlayHost(options.host ?? createNodeHost(), overlays);
  // On the real file system a fingerprint's reads are checked with a stat, not a read.
  const host = options.host
    ? createRecordingHost(base)
    : createRecordingHost(base, {
        probe: (file) => statReadState(bufferOf(absoluteOf(file)), file),
        stamp: statStamp,
        isBuffer: (file) => bufferOf(absoluteOf(file)) !== undefined,
        diskRecheckMs: options.diskRecheckMs ?? 0,
      });
  /** Starts one request with `source` as the buffers. */
  const begin = (source: BufferSource | undefined): void => {
    buffers = source;
    asked = new Map();
  };
  const locator = new Locator(host);
  const stages = newStages();
  const results = new StageMemo<FileAnalysis>(host);
  const agentRuns = new StageMemo<AgentAnalysis>(host);
  /** The agent at `root` analysed as compile's front end does (kept while what it read holds). */
  const agentAnalysisOf = (root: string): AgentAnalysis => agentRuns.get(root, () => analyzeAgent(host, root, { analyzer: stages.analyzer, pins: pinsFor(host, root) }));
  /** The project configuration's `rules` by agent root (set by the front end: {@link EditorEngine.setProjectRules}). */
  const projectRules = new Map<string, Readonly<Record<string, RuleSetting>>>();
  /** Definition module → plugin folder, learnt from every entry analysed. */
  const definitions = new Map<string, string>();
  /** Folders to watch → recursively (agent roots) or not (where an `agent.md` would select a plugin). */
  const watches = new Map<string, boolean>();
  /**
   * Answers given without the collisions with other plugins whose entries were not read yet
   * (`deferCollisionReads`), by file: the file's plugin folder and the folders left out. Read
   * by {@link EditorEngine.readDeferred}, or before the next request's answer.
   */
  const incomplete = new Map<string, { readonly pluginDir: string; readonly deferred: readonly string[] }>();
  /** Files whose answers changed when `analyzeFile` read what earlier answers left out (reported by the next `readDeferred`). */
  const changedByReads = new Set<string>();
  /** What {@link analyze} learnt about the file it answers for (set there, read by `analyzeFile`). */
  let answerDeferred: { readonly pluginDir: string; readonly deferred: readonly string[] } | undefined;

  /** Watches an agent root (everything below it), or the folder where an agent.md would select `pluginDir`. */
  function watchAround(root: string | undefined, pluginDir: string | undefined): void {
    if (root !== undefined) watches.set(root, true);
    else if (pluginDir !== undefined && !watches.has(path.dirname(path.dirname(pluginDir)))) watches.set(path.dirname(path.dirname(pluginDir)), false);
  }

  function newStages(): SliceStages {
    // Never announced to, so it judges inline (no worker thread inside an editor) and keeps verdicts.
    return new SliceStages(host, createStaticAnalyzer(host), createSchemaCompiler(), options.deferCollisionReads === true);
  }

  /** Remembers (and returns) the definition modules the entry of `pluginDir` points to. */
  function learnDefinitions(slice: PluginSlice, pluginDir: string): Set<string> {
    const found = new Set<string>();
    const tools = slice.package?.entry?.entry?.value["tools"];
    if (!isJsonObject(tools)) return found;
    for (const descriptor of Object.values(tools)) {
      const definition = isJsonObject(descriptor) ? descriptor["definition"] : undefined;
      if (typeof definition !== "string") continue;
      const file = path.resolve(pluginDir, definition);
      definitions.set(file, pluginDir);
      found.add(file);
    }
    return found;
  }

  function pluginDirOf(file: string): string | undefined {
    return pluginRootOfEntry(file) ?? definitions.get(file) ?? (MODULE.test(file) ? locator.pluginRootAbove(path.dirname(file)) : undefined);
  }

  function analyze(file: string): FileAnalysis {
    const pluginDir = isAgentFileName(file) ? undefined : pluginDirOf(file);
    if (pluginDir !== undefined) {
      const root = locator.agentRootOfPlugin(pluginDir);
      let slice = root !== undefined ? stages.slice(root, pluginDir) : undefined;
      const selected = slice?.selected === true;
      watchAround(root, pluginDir);
      if (!selected) slice = stages.standalone(pluginDir);
      const known = learnDefinitions(slice!, pluginDir);
      const entryFile = slice!.package?.pluginPackage.entryFile;
      const role: FileRole = entryFile !== undefined && path.resolve(entryFile) === file ? "entry" : known.has(file) ? "definition" : "plugin-module";
      if (slice!.deferred.length > 0) answerDeferred = { pluginDir, deferred: slice!.deferred };
      return finish(file, role, selected ? root : pluginDir, slice!.diagnostics, selected ? root : undefined);
    }
    if (isAgentFileName(file)) {
      const root = locator.agentRootAbove(path.dirname(file));
      // plugin.json, mcp.json or a SKILL.md of a plugin its agent does not select: checked as
      // `validate` does, as the plugin's modules are (they showed nothing: new-user trial).
      const owner = path.basename(file) === "agent.md" ? undefined : locator.pluginRootAbove(path.dirname(file));
      if (root !== undefined && owner !== undefined && isInside(root, owner) && !stages.slice(root, owner).selected) {
        watchAround(root, owner);
        return finish(file, "agent-file", owner, stages.standalone(owner).diagnostics);
      }
      if (root !== undefined) {
        watchAround(root, undefined);
        const diagnostics = agentAnalysisOf(root).diagnostics;
        return finish(file, "agent-file", root, diagnostics, root);
      }
      const plugin = locator.pluginRootAbove(path.dirname(file));
      if (plugin !== undefined) {
        watchAround(undefined, plugin);
        return finish(file, "agent-file", plugin, stages.standalone(plugin).diagnostics);
      }
    }
    return nothing(file);
  }

  /** Reads what the incomplete answers left out; returns their files whose answers change. */
  function readIncomplete(source: BufferSource | undefined): string[] {
    if (incomplete.size === 0) return [];
    const answers = [...incomplete];
    incomplete.clear();
    begin(source);
    host.startRound();
    try {
      return answers.filter(([, { pluginDir, deferred }]) => stages.readDeferred(pluginDir, deferred)).map(([file]) => file);
    } finally {
      begin(undefined);
    }
  }

  /** `agentRoot`: the agent whose compile reports the file (its configuration's rules apply), if any. */
  function finish(file: string, role: FileRole, root: string | undefined, all: readonly Diagnostic[], agentRoot?: string): FileAnalysis {
    const own = all.filter((d) => d.file === file);
    const rules = agentRoot === undefined ? undefined : projectRules.get(agentRoot);
    const diagnostics = sortDiagnostics(dedupeDiagnostics(rules ? applySeverityRules(own, rules) : own));
    const fixes = fixesFor(diagnostics, {
      text: (target) => {
        const read = host.read(target);
        return read.kind === "file" ? read.text : undefined;
      },
      pluginDirOf,
      analyzer: stages.analyzer,
    });
    return { file, role, root, diagnostics, fixes };
  }

  const engine: EditorEngine = {
    isCandidate(file) {
      const absolute = path.resolve(file);
      if (pluginRootOfEntry(absolute) !== undefined || definitions.has(absolute) || isAgentFileName(absolute)) return true;
      return MODULE.test(absolute) && locator.pluginRootAbove(path.dirname(absolute)) !== undefined;
    },
    analyzeFile(file, source) {
      const absolute = path.resolve(file);
      if (!engine.isCandidate(absolute)) return nothing(absolute);
      // What an earlier answer left out is read before this one: only the first answer waits less.
      if (incomplete.size > 0) for (const changed of readIncomplete(source)) changedByReads.add(changed);
      begin(source);
      host.startRound();
      try {
        answerDeferred = undefined;
        const analysis = results.get(absolute, () => analyze(absolute));
        if (answerDeferred !== undefined) {
          // Not kept: once the other entries are read, the same request gives the whole answer.
          incomplete.set(absolute, answerDeferred);
          results.delete(absolute);
        }
        return analysis;
      } finally {
        answerDeferred = undefined;
        begin(undefined);
      }
    },
    hasDeferredReads() {
      return incomplete.size > 0 || changedByReads.size > 0;
    },
    readDeferred(source) {
      const changed = new Set([...changedByReads, ...readIncomplete(source)]);
      changedByReads.clear();
      return [...changed].sort();
    },
    codeFixesAt(file, start, end, source) {
      const analysis = engine.analyzeFile(file, source);
      if (analysis.fixes.length === 0) return [];
      begin(source);
      try {
        const read = host.read(analysis.file);
        if (read.kind !== "file") return [];
        return analysis.fixes.filter((fix) => overlaps(read.text, fix.diagnostic, start, end));
      } finally {
        begin(undefined);
      }
    },
    foldersToWatch() {
      const recursive = [...watches].filter(([, deep]) => deep).map(([folder]) => folder);
      const covered = (folder: string) => recursive.some((root) => root !== folder && isInside(root, folder));
      return [...watches].filter(([folder]) => !covered(folder)).map(([folder, deep]): FolderWatch => ({ folder, recursive: deep }));
    },
    analyzeAgent(root, source) {
      begin(source);
      host.startRound();
      try {
        return agentAnalysisOf(path.resolve(root));
      } finally {
        begin(undefined);
      }
    },
    setProjectRules(root, rules) {
      const absolute = path.resolve(root);
      const key = (value: Readonly<Record<string, RuleSetting>> | undefined) => compileSettingsKey(value === undefined ? {} : { rules: value });
      if (key(projectRules.get(absolute)) === key(rules)) return false;
      if (Object.keys(rules).length === 0) projectRules.delete(absolute);
      else projectRules.set(absolute, rules);
      // The answers are kept by what they read, which the rules are not: all are worked out again (from the kept stage results).
      results.clear();
      return true;
    },
    filesChanged(paths) {
      if (paths.length === 0) return;
      // Where files sit is cheap to work out again (a few stats), and so is a file's answer from
      // the stage results, which re-check their own inputs and stay while those hold. (A file's
      // answer is dropped too: its fingerprint lacks what the locator had already cached.)
      locator.clear();
      results.clear();
      host.forgetDiskAnswers();
    },
  };
  return engine;
}

/**
 * What `read` on the overlay host over `createNodeHost()` reports as its state, from a stat:
 * a buffer's version, or the disk's `mtime:size` version (the node host's version format).
 */
function statReadState(overlay: EditorBuffer | undefined, file: string): string {
  if (overlay) return `file:overlay:${overlay.version}`;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP" ? "missing" : `unreadable:${String(code)}`;
  }
  if (stat.isDirectory()) return "directory";
  return stat.isFile() ? `file:${stat.mtimeMs}:${stat.size}` : "unreadable:not a regular file";
}

/** A folder's modification time on disk (changes when an entry is added, removed or renamed). */
function statStamp(dir: string): string {
  try {
    return String(fs.statSync(dir).mtimeMs);
  } catch {
    return "missing";
  }
}

/** True when `file` is `folder` or below it. */
function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return !relative.startsWith("..") && !path.isAbsolute(relative);
}

function nothing(file: string): FileAnalysis {
  return { file, role: "none", root: undefined, diagnostics: [], fixes: [] };
}

/** True when the diagnostic's span (in `text`) meets `[start, end]`. */
function overlaps(text: string, diagnostic: Diagnostic, start: number, end: number): boolean {
  const from = offsetAt(text, diagnostic.line, diagnostic.column);
  const to = diagnostic.endLine !== undefined && diagnostic.endColumn !== undefined ? offsetAt(text, diagnostic.endLine, diagnostic.endColumn) : from;
  return from <= end && start <= to;
}
