/**
 * Parsing lock text as strict JSON with source locations (syntax errors and property paths
 * mapped to line/column as an editor shows them).
 */
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import type { SourceLocation } from "../diagnostics/diagnostic.js";
import { createLineMap, locationOf, type LineMap } from "../common/positions.js";
import { findJsonNestingBeyond } from "../common/json-nesting.js";

/** Result of {@link parseJsonText}. */
export type ParsedJson =
  | {
      readonly ok: true;
      readonly value: unknown;
      /** The syntax tree, built on first use (only a diagnostic needs positions). */
      readonly tree: () => Node | undefined;
      /** The line map, built on first use. */
      readonly lineMap: () => LineMap;
    }
  | { readonly ok: false; readonly reason: string; readonly location: SourceLocation };

const WORDS: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "a property name was expected",
  ValueExpected: "a value was expected",
  ColonExpected: "':' was expected",
  CommaExpected: "',' was expected",
  CloseBraceExpected: "'}' was expected",
  CloseBracketExpected: "']' was expected",
  EndOfFileExpected: "unexpected text after the end of the JSON value",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfComment: "comments are not allowed in JSON",
  UnexpectedEndOfString: "a string is not closed",
  UnexpectedEndOfNumber: "a number is cut off",
  InvalidUnicode: "invalid \\u escape",
  InvalidEscapeCharacter: "invalid escape sequence",
  InvalidCharacter: "invalid character in a string",
};

/**
 * Deepest object/array nesting read from a lock. A valid lock nests six levels; the limit only
 * keeps the recursive tree parser away from a stack overflow (a hostile or broken file).
 */
export const MAX_LOCK_JSON_DEPTH = 256;

/**
 * Parses `text` as strict JSON (RFC 8259: no comments, no trailing commas). A leading byte
 * order mark is skipped; CRLF line ends are plain whitespace. Nesting deeper than
 * {@link MAX_LOCK_JSON_DEPTH} is reported as a syntax problem (never a stack overflow). The value comes from `JSON.parse`
 * (so keys such as `__proto__` stay data); `jsonc-parser` supplies the error position and the
 * tree used by {@link locateProperty}.
 *
 * @param file carried into the locations.
 */
export function parseJsonText(file: string, text: string): ParsedJson {
  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = text.slice(start);
  let lineMap: LineMap | undefined;
  const lines = (): LineMap => (lineMap ??= createLineMap(file, text));
  // jsonc-parser recurses once per level: refuse absurd nesting before it can overflow the stack.
  const tooDeep = findExcessiveNesting(body);
  if (tooDeep !== undefined) {
    const reason = `nesting deeper than ${MAX_LOCK_JSON_DEPTH} levels is not supported`;
    return { ok: false, reason, location: locationOf(lines(), start + tooDeep, start + tooDeep + 1) };
  }
  try {
    // The fast path: a valid lock needs no tree; it is built only to locate a problem.
    const value: unknown = JSON.parse(body);
    let tree: Node | undefined | null = null;
    const lazyTree = (): Node | undefined => {
      if (tree === null) {
        const errors: ParseError[] = [];
        const parsed = parseTree(body, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
        tree = errors.length === 0 ? parsed : undefined;
      }
      return tree;
    };
    return { ok: true, value, tree: lazyTree, lineMap: lines };
  } catch (error) {
    const errors: ParseError[] = [];
    parseTree(body, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    if (first) {
      const reason = WORDS[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error);
      return { ok: false, reason, location: locationOf(lines(), start + first.offset, start + first.offset + first.length) };
    }
    return { ok: false, reason: (error as Error).message, location: locationOf(lines(), start) };
  }
}

/**
 * The location of the value at `segments` (or, when `onKey`, of the property name holding it),
 * falling back to the nearest existing ancestor and finally to line 1, column 1.
 */
export function locateProperty(parsed: Extract<ParsedJson, { ok: true }>, segments: readonly PropertyKey[], onKey = false): SourceLocation {
  const lineMap = parsed.lineMap();
  const tree = parsed.tree();
  const start = lineMap.text.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (!tree) return locationOf(lineMap, start);
  for (let length = segments.length; length >= 0; length--) {
    const path = segments.slice(0, length).map((s) => (typeof s === "number" ? s : String(s)));
    const node = findNodeAtLocation(tree, path);
    if (!node) continue;
    const target = onKey && length === segments.length && node.parent?.type === "property" ? node.parent.children?.[0] ?? node : node;
    return locationOf(lineMap, start + target.offset, start + target.offset + target.length);
  }
  return locationOf(lineMap, start);
}

/**
 * Offset (into `text`) of the first `{` or `[` that opens a level deeper than
 * {@link MAX_LOCK_JSON_DEPTH}, skipping strings; `undefined` when nothing nests that deep.
 */
export function findExcessiveNesting(text: string): number | undefined {
  return findJsonNestingBeyond(text, MAX_LOCK_JSON_DEPTH);
}
