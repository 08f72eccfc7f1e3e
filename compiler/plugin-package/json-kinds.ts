/**
 * Text helpers of the plugin-package rules (lengths, character lists, phrases, values at a path).
 * The words for JSON kinds are in diagnostics/json-kinds.ts.
 */
import { isJsonObject, type JsonValue } from "../../common/json-value.js";

/** Number of Unicode code points (what "characters" means in both specifications' length limits). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** `'a', 'b'` for at most `limit` distinct characters, JSON-escaped when not printable. */
export function listCharacters(characters: Iterable<string>, limit = 5): string {
  const unique = [...new Set(characters)];
  const shown = unique.slice(0, limit).map((ch) => (/^[\p{L}\p{N}\p{P}\p{S}]$/u.test(ch) ? `'${ch}'` : JSON.stringify(ch)));
  return unique.length > limit ? `${shown.join(", ")}, …` : shown.join(", ");
}

/** Joins phrases as `a`, `a and b`, `a, b and c`. */
export function joinPhrases(phrases: readonly string[]): string {
  if (phrases.length <= 1) return phrases.join("");
  return `${phrases.slice(0, -1).join(", ")} and ${phrases[phrases.length - 1]}`;
}

/** The value at property-path `segments` inside `value` (own properties only), or `undefined`. */
export function valueAtSegments(value: JsonValue, segments: readonly PropertyKey[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const segment of segments) {
    if (Array.isArray(current) && typeof segment === "number") current = current[segment];
    else if (isJsonObject(current) && Object.hasOwn(current, String(segment))) current = current[String(segment)];
    else return undefined;
  }
  return current;
}
