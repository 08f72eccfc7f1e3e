/**
 * plugins.lock's settings for the shared reader of JSON with positions (common/json-text.ts):
 * its nesting limit, and the names the lock readers import.
 */
import { parseJsonText as parseJson, type JsonTarget, type ParsedJson } from "../common/json-text.js";
import type { SourceLocation } from "../common/positions.js";

export type { ParsedJson } from "../common/json-text.js";

/**
 * Deepest object/array nesting read from a lock. A valid lock nests six levels; the limit only
 * keeps the recursive tree parser away from a stack overflow (a hostile or broken file).
 */
export const MAX_LOCK_JSON_DEPTH = 256;

/** Parses lock text as strict JSON with positions (common/json-text.ts `parseJsonText`), nesting at most {@link MAX_LOCK_JSON_DEPTH}. */
export function parseJsonText(file: string, text: string): ParsedJson {
  return parseJson(file, text, MAX_LOCK_JSON_DEPTH);
}

/**
 * The location of the value at `segments` (or, when `onKey`, of the property name holding it),
 * falling back to the nearest existing ancestor and finally to line 1, column 1.
 */
export function locateProperty(parsed: Extract<ParsedJson, { ok: true }>, segments: readonly PropertyKey[], onKey = false): SourceLocation {
  const target: JsonTarget = onKey ? "key" : "value";
  return parsed.positions.locate(segments, target);
}
