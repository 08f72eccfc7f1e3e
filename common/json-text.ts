/**
 * The one reader of JSON text with source positions (issue 8 "each rule once"): strict JSON
 * (RFC 8259) whose value comes from `JSON.parse`, and the line/column of any property path,
 * found in jsonc-parser's syntax tree. Used by plugins.lock (lockfile/), the artifact's
 * manifest.json and lock checks (runtime-min/artifact/), and — for the words of a syntax
 * error — by plugin.json/mcp.json and the entry's JSON imports (compiler/).
 *
 * Conventions (common/positions.ts): a leading byte order mark is skipped and takes no column;
 * lines and columns are 1-based, columns in UTF-16 code units.
 */
import { createRequire } from "node:module";
import type { Node, ParseError, ParseErrorCode } from "jsonc-parser";
import { createLineMap, locationOf, type LineMap, type SourceLocation } from "./positions.js";
import { findJsonNestingBeyond } from "./json-nesting.js";

let jsonc: typeof import("jsonc-parser") | undefined;

/**
 * jsonc-parser, loaded on first use (issue 14 item 3): a text that parses needs it only for a
 * diagnostic's position or a syntax error's words, so the host commands reading a current
 * artifact never load it. Its package entry is CommonJS, so `require` loads it synchronously.
 */
function jsoncParser(): typeof import("jsonc-parser") {
  jsonc ??= createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser");
  return jsonc;
}

/**
 * Deepest object/array nesting read by default. Real files nest a few levels; the limit only
 * keeps the recursive tree parser away from a stack overflow (a hostile or broken file).
 */
export const MAX_JSON_TEXT_DEPTH = 256;

/** Our words for jsonc-parser's syntax errors, by `printParseErrorCode` name: one list for every JSON reader. */
const SYNTAX_WORDS: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "a property name in double quotes is expected",
  ValueExpected: "a value is expected",
  ColonExpected: "':' is expected",
  CommaExpected: "',' is expected",
  CloseBraceExpected: "'}' is expected",
  CloseBracketExpected: "']' is expected",
  EndOfFileExpected: "nothing may follow the top-level value",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfComment: "comments are not allowed in JSON",
  UnexpectedEndOfString: "the string is not closed",
  UnexpectedEndOfNumber: "the number is incomplete",
  InvalidUnicode: "invalid \\u escape",
  InvalidEscapeCharacter: "invalid escape sequence",
  InvalidCharacter: "control characters must be escaped inside strings",
};

/**
 * Words for one jsonc-parser syntax error (`ParseErrorCode`), e.g. `"',' is expected"`; the
 * code's own name for a code this list does not know.
 */
export function jsonSyntaxWords(code: ParseErrorCode): string {
  const name = jsoncParser().printParseErrorCode(code);
  return SYNTAX_WORDS[name] ?? name;
}

/** What {@link JsonPositions.locate} points at for a property: its value, its name, or both. */
export type JsonTarget = "value" | "key" | "property";

/**
 * Positions in one JSON text: the line map and jsonc-parser's tree, each built on first use
 * (only a diagnostic needs them). The tree is built tolerantly, so a text that is not valid
 * JSON still locates what can be found in it.
 */
export class JsonPositions {
  private tree: Node | undefined | null = null;
  private lines: LineMap | undefined;
  /** Offset of the JSON after a byte order mark (0 or 1). */
  private readonly start: number;

  /** @param file carried into every location (as the caller reports it). */
  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  /** The line map of the text (built once). */
  lineMap(): LineMap {
    return (this.lines ??= createLineMap(this.file, this.text));
  }

  /**
   * The location of the member at property path `segments`: its value (`"value"`), its name
   * (`"key"`, only for the member itself, not an ancestor) or name and value together
   * (`"property"`). A path that does not exist falls back to its nearest existing ancestor,
   * and finally to line 1, column 1.
   */
  locate(segments: readonly PropertyKey[], target: JsonTarget = "value"): SourceLocation {
    const tree = this.syntaxTree();
    const lineMap = this.lineMap();
    if (!tree) return locationOf(lineMap, this.start);
    for (let length = segments.length; length >= 0; length--) {
      const path = segments.slice(0, length).map((s) => (typeof s === "number" ? s : String(s)));
      const node = jsoncParser().findNodeAtLocation(tree, path);
      if (!node) continue;
      const property = node.parent?.type === "property" ? node.parent : undefined;
      const chosen = target === "property" ? (property ?? node) : target === "key" && length === segments.length ? (property?.children?.[0] ?? node) : node;
      return locationOf(lineMap, this.start + chosen.offset, this.start + chosen.offset + chosen.length);
    }
    return locationOf(lineMap, this.start);
  }

  private syntaxTree(): Node | undefined {
    if (this.tree === null) {
      const body = this.text.slice(this.start);
      // jsonc-parser recurses once per level: no tree for absurd nesting (locations fall back to line 1).
      this.tree = findJsonNestingBeyond(body, MAX_JSON_TEXT_DEPTH) === undefined ? jsoncParser().parseTree(body) : undefined;
    }
    return this.tree;
  }
}

/** Result of {@link parseJsonText}. */
export type ParsedJson =
  | { readonly ok: true; readonly value: unknown; readonly positions: JsonPositions }
  | { readonly ok: false; readonly reason: string; readonly location: SourceLocation };

/**
 * Parses `text` as strict JSON (RFC 8259: no comments, no trailing commas). A leading byte
 * order mark is skipped; CRLF line ends are plain whitespace. Nesting deeper than `maxDepth`
 * is a problem (never a stack overflow). The value comes from `JSON.parse` (so keys such as
 * `__proto__` stay data); jsonc-parser supplies the position and words of a syntax error
 * ({@link jsonSyntaxWords}) and the positions of members ({@link JsonPositions}).
 *
 * @param file carried into the locations.
 */
export function parseJsonText(file: string, text: string, maxDepth = MAX_JSON_TEXT_DEPTH): ParsedJson {
  const positions = new JsonPositions(file, text);
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = text.slice(start);
  const tooDeep = findJsonNestingBeyond(body, maxDepth);
  if (tooDeep !== undefined) {
    return { ok: false, reason: `nesting deeper than ${maxDepth} levels is not supported`, location: locationOf(positions.lineMap(), start + tooDeep, start + tooDeep + 1) };
  }
  try {
    // The fast path: valid JSON needs no tree; it is built only to locate a problem.
    return { ok: true, value: JSON.parse(body) as unknown, positions };
  } catch (error) {
    const errors: ParseError[] = [];
    jsoncParser().parseTree(body, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    if (first) return { ok: false, reason: jsonSyntaxWords(first.error), location: locationOf(positions.lineMap(), start + first.offset, start + first.offset + first.length) };
    return { ok: false, reason: (error as Error).message, location: locationOf(positions.lineMap(), start) };
  }
}
