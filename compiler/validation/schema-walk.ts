/**
 * Visits every subschema of a JSON Schema (JSON Schema Core §10 "applicators", plus `$defs` /
 * `definitions`), iteratively, with its JSON Pointer relative to the root schema.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import type { SchemaDialect } from "../../contract/ajv.js";
import { escapePointerSegment } from "../../common/json-pointer.js";

/** Keywords whose value is one subschema. */
const SINGLE = ["additionalProperties", "additionalItems", "contains", "propertyNames", "if", "then", "else", "not", "unevaluatedItems", "unevaluatedProperties", "items", "contentSchema"];
/** Keywords whose value is an array of subschemas. */
const ARRAY = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/** Every keyword whose value may hold subschemas (the three lists and draft-07 `dependencies`). */
const APPLICATORS: ReadonlySet<string> = new Set([...SINGLE, ...ARRAY, ...MAP, "dependencies"]);

/**
 * Calls `visit` for the root and every nested subschema that is an object (boolean schemas
 * have no keywords to check). Order: depth-first, keys in written order.
 * `dependencies` (draft-07) values that are schemas are visited; string arrays are not.
 */
export function walkSubschemas(root: JsonValue, _dialect: SchemaDialect, visit: (schema: JsonObject, pointer: string) => void): void {
  const stack: { schema: JsonValue; pointer: string }[] = [{ schema: root, pointer: "" }];
  while (stack.length > 0) {
    const { schema, pointer } = stack.pop()!;
    if (!isJsonObject(schema)) continue;
    visit(schema, pointer);
    const children: { schema: JsonValue; pointer: string }[] = [];
    for (const key of Object.keys(schema)) {
      // Most keys (`type`, `description`, …) hold no subschema: their pointer is not built.
      if (!APPLICATORS.has(key)) continue;
      const value = schema[key]!;
      const at = `${pointer}/${escapePointerSegment(key)}`;
      if (SINGLE.includes(key) && isJsonObject(value)) children.push({ schema: value, pointer: at });
      if (ARRAY.includes(key) && Array.isArray(value)) value.forEach((item, i) => children.push({ schema: item, pointer: `${at}/${i}` }));
      if ((MAP.includes(key) || key === "dependencies") && isJsonObject(value)) {
        for (const name of Object.keys(value)) children.push({ schema: value[name]!, pointer: `${at}/${escapePointerSegment(name)}` });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}
