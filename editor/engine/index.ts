/**
 * The editor engine (issue 9): the per-file path through the compiler front end that the
 * tsserver plugin (`editor/ts-plugin/`) and the language server (`editor/lsp/`) share.
 *
 * One engine per editor process. Ask it about one file at a time, synchronously, with the
 * editor's unsaved buffers as overlays; it answers with exactly the diagnostics
 * `assembly-line compile` reports for that file (same code, message, severity, span, property
 * path, hint and related locations; file paths stay ABSOLUTE, the caller shows them), plus the
 * code fixes those diagnostics know.
 *
 * Scope: `ai.assemblyline/index.{ts,mts,js,mjs}` entries, the definition modules they point to
 * and the other modules of a plugin folder, and the agent's own files (`agent.md`,
 * `plugin.json`, `mcp.json`, `SKILL.md`). Any other file costs a string test and a map lookup
 * ({@link EditorEngine.isCandidate}). Packaging (esbuild) and lock-drift diagnostics are not
 * part of the front end and are not reported here.
 *
 * Caching: every stage result (agent + capability resolution, each plugin package, each
 * validated plugin, each content hash, the static analyses, ajv verdicts) is kept with a
 * fingerprint of every file it read (version of a buffer, mtime+size on disk, directory
 * listings, symlink targets) and reused while the fingerprint holds, so a change to the
 * definition module, `plugin.json`, `agent.md` or an imported const/JSON module re-runs exactly
 * what depended on it, and an edit of one entry re-validates only that plugin. Where files sit
 * (plugin folders, agent roots) is remembered per folder; the front ends watch the folders the
 * engine names ({@link EditorEngine.foldersToWatch}) and report changes
 * ({@link EditorEngine.filesChanged}), so new plugin folders are seen while the editor runs.
 *
 * @example
 * const engine = createEditorEngine();
 * const buffers = new Map([["/a/plugins/x/ai.assemblyline/index.ts", { text, version: "3" }]]);
 * const { diagnostics, fixes } = engine.analyzeFile("/a/plugins/x/ai.assemblyline/index.ts", buffers);
 */
export type { Diagnostic, RelatedLocation, Severity } from "../../diagnostics/diagnostic.js";
export type { BufferSource, CodeFix, EditorBuffer, EditorEngine, EditorEngineOptions, FileAnalysis, FileRole, FolderWatch, TextEdit } from "./types.js";
export { createEditorEngine } from "./engine.js";
export { offsetAt, positionAt } from "./offsets.js";
