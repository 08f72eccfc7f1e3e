/**
 * Strict JSON (RFC 8259) parsing with the source location of every value, for `plugin.json`
 * and `mcp.json`.
 *
 * jsonc-parser gives the syntax tree with offsets; comments, trailing commas and empty input
 * are refused (Agent Plugins v1 §5.2 and §7.2.1 say "JSON", not JSONC). A leading byte order
 * mark is accepted and takes no column. Values are rebuilt with {@link setOwn}, so keys such as
 * `__proto__` stay plain data, and duplicate keys keep the last value as `JSON.parse` does while
 * being reported to the caller.
 */
import jsonc from "jsonc-parser";
import type { Node as JsonNode, ParseError } from "jsonc-parser";
import { type SourceLocation } from "../../diagnostics/diagnostic.js";
import { segmentsToPointer } from "../../common/json-pointer.js";
import { createLineMap, locationOf, type LineMap } from "../../common/positions.js";
import { setOwn, type JsonValue } from "../../common/json-value.js";
import type { LocatedValue, ValueLocation } from "../model.js";
import { findJsonNestingBeyond, MAX_JSON_DEPTH } from "../../common/json-nesting.js";
import { jsonSyntaxWords } from "../../common/json-text.js";

/** A key written twice in one object. */
export interface DuplicateKey {
  /** JSON Pointer of the object that holds the key. */
  readonly objectPointer: string;
  readonly key: string;
  /** The later occurrence (the one whose value is kept). */
  readonly location: SourceLocation;
  /** The first occurrence. */
  readonly firstLocation: SourceLocation;
}

/** The first syntax error, in words, with its position. */
export interface JsonSyntaxProblem {
  readonly message: string;
  readonly hint: string | undefined;
  readonly location: SourceLocation;
}

/** Result of {@link parseJsonDocument}: exactly one of `located` and `syntaxError` is set. */
export interface JsonDocument {
  readonly lineMap: LineMap;
  readonly located: LocatedValue | undefined;
  readonly syntaxError: JsonSyntaxProblem | undefined;
  /** Keys written more than once (only when `located` is set), in source order. */
  readonly duplicates: readonly DuplicateKey[];
}

/**
 * Parses `text` (the content of `file`) as strict JSON.
 *
 * @returns the value with a location for every JSON Pointer (key and value spans), or the first
 *   syntax error (later ones are usually consequences of the first). Never throws.
 */
export function parseJsonDocument(file: string, text: string): JsonDocument {
  const lineMap = createLineMap(file, text);
  // jsonc-parser does not skip a BOM; a space of the same length keeps every offset aligned.
  const source = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const depthError = findExcessiveNesting(source);
  if (depthError !== undefined) {
    const problem = { message: `nesting deeper than ${MAX_JSON_DEPTH} levels is not supported`, hint: undefined, location: locationOf(lineMap, depthError, depthError + 1) };
    return { lineMap, located: undefined, syntaxError: problem, duplicates: [] };
  }
  const errors: ParseError[] = [];
  const root = jsonc.parseTree(source, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined || root === undefined) {
    return { lineMap, located: undefined, syntaxError: describeSyntaxError(source, lineMap, first), duplicates: [] };
  }
  const strictProblem = checkWithJsonParse(source, lineMap);
  if (strictProblem) return { lineMap, located: undefined, syntaxError: strictProblem, duplicates: [] };

  const locations = new Map<string, ValueLocation>();
  const duplicates: DuplicateKey[] = [];
  const value = buildValue(root, [], undefined, { lineMap, locations, duplicates });
  return { lineMap, located: { value, locations }, syntaxError: undefined, duplicates };
}

interface BuildContext {
  readonly lineMap: LineMap;
  readonly locations: Map<string, ValueLocation>;
  readonly duplicates: DuplicateKey[];
}

function buildValue(node: JsonNode, segments: readonly (string | number)[], key: SourceLocation | undefined, context: BuildContext): JsonValue {
  const pointer = segmentsToPointer(segments);
  const valueLocation = locationOf(context.lineMap, node.offset, node.offset + node.length);
  context.locations.set(pointer, key ? { value: valueLocation, key } : { value: valueLocation });
  if (node.type === "object") return buildObject(node, segments, pointer, context);
  if (node.type === "array") {
    return (node.children ?? []).map((child, index) => buildValue(child, [...segments, index], undefined, context));
  }
  return node.value as JsonValue;
}

function buildObject(node: JsonNode, segments: readonly (string | number)[], pointer: string, context: BuildContext): JsonValue {
  const out: Record<string, JsonValue> = {};
  const firstKeys = new Map<string, SourceLocation>();
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (!keyNode || !valueNode) continue;
    const name = String(keyNode.value);
    const keyLocation = locationOf(context.lineMap, keyNode.offset, keyNode.offset + keyNode.length);
    const earlier = firstKeys.get(name);
    if (earlier) context.duplicates.push({ objectPointer: pointer, key: name, location: keyLocation, firstLocation: earlier });
    else firstKeys.set(name, keyLocation);
    setOwn(out, name, buildValue(valueNode, [...segments, name], keyLocation, context));
  }
  return out;
}

/** Offset of the first bracket nested deeper than {@link MAX_JSON_DEPTH}, ignoring strings. */
function findExcessiveNesting(text: string): number | undefined {
  return findJsonNestingBeyond(text, MAX_JSON_DEPTH);
}

function describeSyntaxError(source: string, lineMap: LineMap, error: ParseError | undefined): JsonSyntaxProblem {
  if (!error || source.trim() === "") {
    return { message: "the file is empty", hint: "Write a JSON object, starting with '{'.", location: locationOf(lineMap, 0) };
  }
  const code = jsonc.printParseErrorCode(error.error);
  let message = jsonSyntaxWords(error.error);
  let hint: string | undefined;
  const before = source.slice(0, error.offset).trimEnd();
  const next = source[error.offset];
  if ((code === "PropertyNameExpected" || code === "ValueExpected") && before.endsWith(",")) {
    // `,,` is an empty element, not a trailing comma: there is no closing bracket after it.
    if (next === ",") {
      return { message: "two commas in a row (an empty element) are not allowed in JSON", hint: "Remove the extra comma.", location: locationOf(lineMap, error.offset, error.offset + 1) };
    }
    // A comma before the closing bracket, or at the end of the text; a comma followed by
    // anything else (`{ "a": 1, 2 }`) is left to the parser's words below.
    if (next === "}" || next === "]" || next === undefined) {
      message = "trailing commas are not allowed in JSON";
      hint = "Remove the comma before the closing bracket.";
      const comma = before.length - 1;
      return { message, hint, location: locationOf(lineMap, comma, comma + 1) };
    }
  }
  if (code === "InvalidSymbol" && source[error.offset] === "'") hint = "JSON strings use double quotes.";
  if (code === "InvalidCommentToken" || code === "UnexpectedEndOfComment") hint = "Remove the comment; plugin.json and mcp.json are plain JSON.";
  return { message, hint, location: locationOf(lineMap, error.offset, error.offset + Math.max(error.length, 1)) };
}

/** Belt and braces: anything jsonc-parser let through that `JSON.parse` refuses is a syntax error too. */
function checkWithJsonParse(source: string, lineMap: LineMap): JsonSyntaxProblem | undefined {
  try {
    JSON.parse(source);
    return undefined;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(text);
    const offset = position ? Number(position[1]) : 0;
    return { message: text.replace(/^Unexpected/, "unexpected"), hint: undefined, location: locationOf(lineMap, offset) };
  }
}
