/**
 * The types of the editor engine's API (re-exported by `index.ts`, which documents the engine).
 */
import type { RuleSetting } from "../../build/project-config/types.js";
import type { AgentAnalysis } from "../../compiler/analyze-agent.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { CompilerHost } from "../../common/host.js";

/** An unsaved editor buffer: its full text and a version that changes whenever the text does. */
export interface EditorBuffer {
  /** The whole text, as the editor holds it (a byte order mark, if any, included). */
  readonly text: string;
  /** Changes whenever `text` does (tsserver's script version, the LSP document version). */
  readonly version: string;
}

/**
 * Where the engine finds unsaved buffers: absolute path → buffer. A `Map` works; the tsserver
 * plugin passes an object that asks the project service on demand. Paths it does not know are
 * read from disk.
 */
export interface BufferSource {
  get(absolutePath: string): EditorBuffer | undefined;
}

/** Options of {@link createEditorEngine}. */
export interface EditorEngineOptions {
  /** File access below the buffers (default: the real file system, `createNodeHost()`). */
  readonly host?: CompilerHost;
  /**
   * How long (ms) the engine may trust what it last learnt from the disk (a file's mtime and
   * size, a folder's listing, a link's target) before asking again; buffers are always asked.
   * Default 0: every call re-checks every file a cached result depends on (a stat each).
   * An editor, whose requests come in bursts while the user types and which is told about
   * changes to open files anyway, can set a short interval; the tsserver plugin uses 1000.
   */
  readonly diskRecheckMs?: number;
  /**
   * Answer a plugin file without reading the entries of the other plugins of its surface when
   * their tool names are not known yet (a fresh engine): the tool-name collisions with them are
   * left out of that answer, and the entries are read by {@link EditorEngine.readDeferred}, or
   * before the next answer. Default false (every answer is whole). The front ends set it so
   * that the first answer after the editor starts comes from the opened plugin alone
   * (docs/editor.md, "What you wait for"); they call `readDeferred` right after answering.
   */
  readonly deferCollisionReads?: boolean;
}

/**
 * What a file is to the engine: a plugin entry, a definition module an entry points to, another
 * module of a plugin folder (e.g. an imported const module), `agent.md` / `plugin.json` / …, or
 * nothing it analyses.
 */
export type FileRole = "entry" | "definition" | "plugin-module" | "agent-file" | "none";

/** One text replacement; offsets index the file's text exactly as the engine read it (buffer or disk). */
export interface TextEdit {
  /** Absolute path of the file to change (a drift fix may edit the other file). */
  readonly file: string;
  /** UTF-16 offset of the first replaced code unit. */
  readonly start: number;
  /** UTF-16 offset after the last replaced code unit. */
  readonly end: number;
  /** What replaces `[start, end)`. */
  readonly newText: string;
  /** The same span as 1-based line/column (SourceLocation conventions: a BOM takes no column). */
  readonly range: { readonly line: number; readonly column: number; readonly endLine: number; readonly endColumn: number };
}

/** A quick fix for one diagnostic. */
export interface CodeFix {
  /** The kind of fix: a "Did you mean" rename, or syncing a drifted field from/to `defineTool()`. */
  readonly kind: "did-you-mean" | "drift-from-definition" | "drift-to-definition";
  /** What the editor shows ("Change 'descripton' to 'description'"). */
  readonly title: string;
  /** The diagnostic it fixes (one of {@link FileAnalysis.diagnostics}). */
  readonly diagnostic: Diagnostic;
  /** The replacements, in one or two files (a drift fix may edit the definition module). */
  readonly edits: readonly TextEdit[];
}

/** The engine's answer about one file. */
export interface FileAnalysis {
  /** Absolute path as asked. */
  readonly file: string;
  /** What the file is to the engine (`"none"`: outside its scope, nothing reported). */
  readonly role: FileRole;
  /** The agent root the file was analysed in, or the plugin folder when no agent selects it. */
  readonly root: string | undefined;
  /** Sorted as compile sorts them; `file` (and `related[].file`) absolute. */
  readonly diagnostics: readonly Diagnostic[];
  /** Fixes for `diagnostics`, in diagnostic order. */
  readonly fixes: readonly CodeFix[];
}

/** The engine. Every method is synchronous and never throws for bad input (only for bugs). */
export interface EditorEngine {
  /**
   * Cheap scope test (no I/O for folders already seen): true for entries, for definition
   * modules the engine knows an entry points to, for modules inside a plugin folder and for
   * `agent.md`/`plugin.json`/`mcp.json`/`SKILL.md`. `false` means {@link analyzeFile} would
   * return no diagnostics.
   */
  isCandidate(file: string): boolean;
  /** Diagnostics and fixes of `file` (absolute), reading `buffers` before the disk. */
  analyzeFile(file: string, buffers?: BufferSource): FileAnalysis;
  /** Fixes of the diagnostics of `file` whose span meets `[start, end]` (offsets in the file's text). */
  codeFixesAt(file: string, start: number, end: number, buffers?: BufferSource): readonly CodeFix[];
  /**
   * Folders whose changes can change the engine's answers beyond the files it read: new plugin
   * folders, a folder that gains an `ai.assemblyline/`, an `agent.md` created above a plugin.
   * The front end watches them (tsserver's `watchDirectory`, the LSP client's file watchers or
   * chokidar) and passes every change to {@link filesChanged}. Grows as the engine meets agents
   * and plugin folders; ask again after each {@link analyzeFile}.
   */
  foldersToWatch(): readonly FolderWatch[];
  /**
   * Tells the engine that files or folders were created, deleted or renamed at `paths`
   * (absolute): it works out again where files sit (plugin folders, agent roots) and asks the
   * disk again at the next request, even within `diskRecheckMs`. Cheap; cached results whose
   * inputs did not change are kept.
   */
  filesChanged(paths: readonly string[]): void;
  /**
   * True when an answer since the last {@link readDeferred} left out the collisions with other
   * plugins whose entries were not read yet (only with `deferCollisionReads`).
   */
  hasDeferredReads(): boolean;
  /**
   * Reads what earlier answers left out (the other plugins' declared tool names; `buffers` as
   * for {@link analyzeFile}) and returns the files (absolute, sorted) whose answers may change:
   * those of a plugin one of the other entries shares a tool name with. Ask
   * {@link analyzeFile} again for them. Empty when nothing was left out, or when what was left
   * out changes nothing (the common case: the first answers were whole). `analyzeFile` and
   * `codeFixesAt` call it first themselves, so only one answer is ever given without them.
   */
  readDeferred(buffers?: BufferSource): readonly string[];
  /**
   * Applies the project configuration's `rules` (found for the agent at `root`, absolute, as
   * `compile` finds it: `build/project-config/`) to the answers for the agent's files, as
   * `compile` applies them (`build/severity-rules.ts`); `{}` takes them away. The engine is
   * synchronous and loads no configuration itself: the front end loads it (asynchronously) and
   * tells the engine. Returns true when the rules differ from the ones set before, so that the
   * front end asks again for the open files.
   */
  setProjectRules(root: string, rules: Readonly<Record<string, RuleSetting>>): boolean;
  /**
   * The agent at `root` (absolute) analysed as `compile`'s front end analyses it
   * (`compiler/analyze-agent.ts`), reading `buffers` before the disk; kept while what it read
   * holds (the same analysis answers `agent.md`). For the checks that judge the whole agent's
   * tool snapshot, which the front end runs asynchronously (`targets`, `tokenBudget`:
   * `build/model-facing-checks.ts`).
   */
  analyzeAgent(root: string, buffers?: BufferSource): AgentAnalysis;
}

/** A folder to watch for {@link EditorEngine.filesChanged}. */
export interface FolderWatch {
  /** Absolute path. */
  readonly folder: string;
  /** True to watch everything below it (an agent root), false for its own entries only. */
  readonly recursive: boolean;
}
