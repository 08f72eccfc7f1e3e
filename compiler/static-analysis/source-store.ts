/**
 * Parsed modules and JSON files, kept across analyses and re-parsed only when a file's
 * version changes (issue 2: "reuse per-file results"). TypeScript and JavaScript modules are
 * parsed by `ts.createSourceFile` (the compiler API embedded in ts-morph): syntax only, no
 * type checker, no `Program`, no language service.
 *
 * Positions: the text is parsed without its byte order mark, so every node offset is
 * shifted by {@link ParsedModule.bomShift} to address the text exactly as it was read.
 */
import { loadTypeScript, ts } from "./typescript.js";
import { createLineMap, type LineMap } from "../../common/positions.js";
import type { Span } from "./located-tree.js";
import { parseJsonDocument, type JsonDocument } from "./json-module.js";
import type { TextFile } from "./text-file.js";

export type { TextFile };
import { findDeepNesting, MAX_NESTING } from "./nesting-limit.js";


/** A syntax error of a module, as offsets into the text as read. */
export interface SyntaxProblem {
  readonly start: number;
  readonly end: number;
  readonly message: string;
}

/** A parsed TypeScript or JavaScript module. */
export interface ParsedModule extends TextFile {
  /** The compiler node of the module; `undefined` when parsing failed (see `syntaxErrors`). */
  readonly sourceFile: ts.SourceFile | undefined;
  /** 1 when the text starts with U+FEFF (which the parser does not see), else 0. */
  readonly bomShift: number;
  readonly isJavaScript: boolean;
  readonly syntaxErrors: readonly SyntaxProblem[];
  /** True when the parser ran out of stack (the file nests too deeply); see `syntaxErrors`. */
  readonly tooDeep: boolean;
  /** Per-version memo slots for derived facts (module scope), owned by their builders. */
  readonly memo: Map<string, unknown>;
  /** The span of a node of `sourceFile` (token start, without leading trivia, to end). */
  spanOf(node: ts.Node): Span;
}

const JAVASCRIPT_EXTENSION = /\.(?:[cm]?js|jsx)$/i;

/** Options of {@link SourceStore}. */
export interface SourceStoreOptions {
  /**
   * How many parsed modules (and, separately, JSON files) the store keeps between analyses,
   * the least recently used dropped first; with a bound, a file is kept only from its second
   * parse on (a file one analysis uses is dropped when that analysis ends). Default: no bound,
   * every file kept from its first parse, as the editor wants (it re-analyses on every
   * keystroke). A one-shot compile passes {@link ONE_SHOT_RETENTION}.
   */
  readonly retain?: number;
}

/**
 * The retention of a compile that analyses each module once (`compile`, `validate`, the
 * analysis worker): a module that more than one analysis reads (a schema module every tool of
 * a plugin imports) is parsed twice and then kept; a module only one analysis reads is dropped
 * as soon as that analysis ends. A syntax tree that lives on, even only until a few more
 * modules are parsed, is copied by every young-generation collection it survives and then
 * moved to the old generation; dropped at once, it costs the collector nothing. On the
 * 200 × 10 benchmark agent this halves the garbage collector's time (issue 14 item 1,
 * docs/performance.md "Seventh round").
 */
export const ONE_SHOT_RETENTION = 32;

/**
 * Parses files (modules with the TypeScript parser embedded in ts-morph, loaded on the first
 * parse; JSON with jsonc-parser) and caches them by path and version, as
 * {@link SourceStoreOptions.retain} says.
 */
export class SourceStore {
  readonly #modules = new Map<string, ParsedModule>();
  readonly #json = new Map<string, JsonDocument>();
  readonly #retain: number;
  /** With a bound: the paths parsed once and not kept (a second parse keeps them). */
  readonly #parsedOnce = new Set<string>();

  constructor(options: SourceStoreOptions = {}) {
    this.#retain = Math.max(1, options.retain ?? Number.POSITIVE_INFINITY);
  }

  /** The parsed JSON file for `path` at `version` (cached while the version is unchanged). */
  json(path: string, version: string, text: string): JsonDocument {
    const cached = this.#recall(this.#json, path);
    if (cached && cached.file.version === version) return cached;
    return this.#remember(this.#json, `json:${path}`, path, parseJsonDocument(createTextFile(path, version, text)));
  }

  /** The parsed module for `path` at `version` (cached while the version is unchanged). */
  module(path: string, version: string, text: string): ParsedModule {
    const cached = this.#recall(this.#modules, path);
    if (cached && cached.version === version) return cached;
    return this.#remember(this.#modules, `module:${path}`, path, this.#parse(path, version, text));
  }

  /** The kept value for `path`, now the most recently used. */
  #recall<T>(cache: Map<string, T>, path: string): T | undefined {
    const value = cache.get(path);
    if (value !== undefined && this.#retain !== Number.POSITIVE_INFINITY) {
      cache.delete(path);
      cache.set(path, value);
    }
    return value;
  }

  /**
   * Keeps `value` for `path` as the most recently used (with a bound: only from the path's
   * second parse on, and dropping the least recently used beyond it). Returns `value`.
   */
  #remember<T>(cache: Map<string, T>, seenKey: string, path: string, value: T): T {
    cache.delete(path);
    if (this.#retain !== Number.POSITIVE_INFINITY && !this.#parsedOnce.has(seenKey)) {
      this.#parsedOnce.add(seenKey);
      return value;
    }
    cache.set(path, value);
    if (cache.size > this.#retain) cache.delete(cache.keys().next().value!);
    return value;
  }

  #parse(path: string, version: string, text: string): ParsedModule {
    const bomShift = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    const file = createTextFile(path, version, text);
    let sourceFile: ts.SourceFile | undefined;
    // Written out rather than spread from `file`: one object shape for every module, and no
    // object spread, which a cold process runs slowly (issue 14 item 1).
    const parsed = (syntaxErrors: readonly SyntaxProblem[], tooDeep: boolean): ParsedModule => ({
      path,
      version,
      text,
      lineMap: file.lineMap,
      sourceFile,
      bomShift,
      isJavaScript: JAVASCRIPT_EXTENSION.test(path),
      syntaxErrors,
      tooDeep,
      memo: new Map<string, unknown>(),
      spanOf: (node: ts.Node): Span => ({ file, start: node.getStart(sourceFile, false) + bomShift, end: node.end + bomShift }),
    });
    loadTypeScript();
    // The parser is recursive, so whether a very deep file overflows the stack depends on how
    // much stack is left; deciding before parsing keeps the result the same on every run.
    if (exceedsBracketDepth(text, PARSE_DEPTH_LIMIT)) {
      const at = findDeepNesting(text, bomShift) ?? 0;
      const message = `the file nests brackets more than ${MAX_NESTING} levels deep`;
      return parsed([{ start: at, end: at, message }], true);
    }
    try {
      // The parser alone (no Project, no language service source file): syntax is all the
      // analysis reads, and an editor re-parses on every keystroke. Parent pointers are not set
      // (an extra walk of every tree, about 15 % of the parse): the analysis only walks down
      // (`forEachChild`, node fields) and passes the source file wherever TypeScript would
      // otherwise climb to it (`getStart(sourceFile)`, `getText(sourceFile)`); the one kind
      // test that reads a parent (`ts.isStatement` of a block) is paired with `ts.isBlock`.
      // JSDoc comments are not parsed (`JSDocParsingMode.ParseNone`, as tsc skips most of them
      // in TypeScript files since 5.3): the analysis reads no JSDoc node and reports no JSDoc
      // problem, and a documented file parses in about half the time (issue 14 item 1).
      // The script kind follows the extension (.js/.mjs: JavaScript).
      sourceFile = ts.createSourceFile(path, bomShift ? text.slice(1) : text, { languageVersion: ts.ScriptTarget.ESNext, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      // The parser is recursive: a file nested far beyond any real descriptor exhausts the stack.
      const at = findDeepNesting(text, bomShift) ?? 0;
      const message = `the file nests brackets more than ${MAX_NESTING} levels deep`;
      return parsed([{ start: at, end: at, message }], true);
    }
    return parsed(syntaxProblems(sourceFile, bomShift), false);
  }
}

/** A {@link TextFile} whose line map is built on first use. */
export function createTextFile(path: string, version: string, text: string): TextFile {
  let map: LineMap | undefined;
  return { path, version, text, lineMap: () => (map ??= createLineMap(path, text)) };
}

interface WithParseDiagnostics {
  /** Set by the TypeScript parser on every source file (not part of the public typings). */
  readonly parseDiagnostics?: readonly ts.DiagnosticWithLocation[];
}

function syntaxProblems(sourceFile: ts.SourceFile, bomShift: number): SyntaxProblem[] {
  const diagnostics = (sourceFile as ts.SourceFile & WithParseDiagnostics).parseDiagnostics ?? [];
  return diagnostics.map((d) => ({
    start: d.start + bomShift,
    end: d.start + d.length + bomShift,
    message: ts.flattenDiagnosticMessageText(d.messageText, " "),
  }));
}

/** Bracket depth beyond which a file is not handed to the (recursive) parser at all. */
const PARSE_DEPTH_LIMIT = 2 * MAX_NESTING;

/**
 * A cheap over-estimate of bracket nesting (strings and comments are not skipped): true when
 * `{`, `[` and `(` ever nest deeper than `limit`. Only files that pass it get the exact scan.
 * Nesting never exceeds the number of opening brackets, so a file with at most `limit` of them
 * is settled by counting them (`indexOf`, several times faster than the walk below in a cold
 * process: 2 against 11–14 ms for the 2,200 modules of the 200 × 10 agent; issue 14 item 1).
 */
function exceedsBracketDepth(text: string, limit: number): boolean {
  if (countOf(text, "{", limit) + countOf(text, "[", limit) + countOf(text, "(", limit) <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91 || c === 40) {
      if (++depth > limit) return findDeepNesting(text, 0) !== undefined;
    } else if (c === 125 || c === 93 || c === 41) {
      if (depth > 0) depth--;
    }
  }
  return false;
}

/** How many times `char` occurs in `text`, counting no further than just past `cap`. */
function countOf(text: string, char: string, cap: number): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1 && count <= cap; at = text.indexOf(char, at + 1)) count++;
  return count;
}
