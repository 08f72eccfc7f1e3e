/**
 * The one word list for the kinds of JSON values in messages ("must be an object, but it is an
 * array"), used by every stage that puts a type mismatch into words: plugin.json, mcp.json and
 * SKILL.md rules, the entry's descriptors, config files, agent.md and the runtime's input
 * validation (issue 8: "one word list for JSON kinds").
 *
 * Two spellings of the same list: `"json"` (JSON and JavaScript values: `an object`,
 * `an array`) and `"yaml"` for YAML front matter, where the YAML words are what the author
 * wrote (`a mapping`, `a list`).
 */

/** Which words name objects and arrays: JSON's or YAML's. */
export type KindWords = "json" | "yaml";

const CONTAINER_WORDS: Readonly<Record<KindWords, { readonly object: string; readonly array: string }>> = {
  json: { object: "an object", array: "an array" },
  yaml: { object: "a mapping", array: "a list" },
};

/**
 * The kind of a parsed value: `"a string"`, `"a number"`, `"a boolean"`, `"null"`,
 * `"an array"`/`"a list"`, `"an object"`/`"a mapping"`, or `"empty"` for `undefined`.
 */
export function describeKind(value: unknown, words: KindWords = "json"): string {
  if (value === null) return "null";
  if (value === undefined) return "empty";
  if (Array.isArray(value)) return CONTAINER_WORDS[words].array;
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
    case "bigint":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return CONTAINER_WORDS[words].object;
    default:
      return `a ${typeof value}`;
  }
}

/**
 * Words for a JSON Schema `type` (as ajv reports it: one name, or several joined by commas):
 * `"string"` → `"a string"`, `"array"` → `"an array"`, `"integer"` → `"an integer"`,
 * `"string,null"` → `"a string or null"`.
 */
export function describeSchemaType(type: string, words: KindWords = "json"): string {
  if (type.includes(",")) return type.split(",").map((one) => describeSchemaType(one.trim(), words)).join(" or ");
  switch (type) {
    case "array":
      return CONTAINER_WORDS[words].array;
    case "object":
      return CONTAINER_WORDS[words].object;
    case "integer":
      return "an integer";
    case "null":
      return "null";
    default:
      return `a ${type}`;
  }
}

/** How to write a value of JSON Schema `type` (`"string"` → `Write it as a string in double quotes, e.g. "text".`). */
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
