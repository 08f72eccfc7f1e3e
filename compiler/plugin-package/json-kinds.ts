/** Words for the kind of a parsed value, as messages say it ("but it is a number"). */
import { isJsonObject, type JsonValue } from "../../common/json-value.js";

/** `"a string"`, `"a number"`, `"a boolean"`, `"null"`, `"an array"`, `"an object"` (or `"empty"` for undefined). */
export function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "empty";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
    case "bigint":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

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

/** Words for a JSON Schema `type` name: `"string"` → `"a string"`, `"array"` → `"an array"`. */
export function describeSchemaType(type: string): string {
  switch (type) {
    case "array":
    case "object":
    case "integer":
      return `an ${type}`;
    case "null":
      return "null";
    default:
      return `a ${type}`;
  }
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

/** How to write a value of JSON Schema `type` (`"string"` → `Write it as a string in double quotes.`). */
export function typeHint(type: string): string {
  switch (type) {
    case "string":
      return 'Write it as a string in double quotes, e.g. "text".';
    case "array":
      return 'Write it as an array, e.g. ["a", "b"].';
    case "object":
      return 'Write it as an object, e.g. { "key": "value" }.';
    default:
      return `Write it as ${describeSchemaType(type)}.`;
  }
}
