/**
 * Vendor keywords (`x-…`) in the schemas a plugin declares (issue 13 item 2).
 *
 * JSON Schema treats keywords it does not know as annotations (Core 2020-12 §6.5, "Unknown
 * keywords"), and real tool schemas carry vendor ones: OpenAPI-derived and MCP schemas use
 * `x-…` names (`"x-ui": "link"`, `"x-vendor-hint": true`). The compiler checks schemas in ajv's
 * strict mode, which refuses every keyword it does not know; that is how typos such as `min`
 * (for `minimum`) are caught. The rule here: a keyword whose name starts with `x-` is an
 * annotation, accepted at any depth and in every dialect, and locked as written; any other
 * unknown keyword stays an error with a did-you-mean (`json-schema.ts`).
 *
 * ajv is told by never seeing them: the copy it checks and compiles has the vendor keywords of
 * every subschema removed ({@link withoutVendorKeywords}), so strict mode stays on for
 * everything else. The lock and the runtime get the schema as written (the runtime's ajv runs
 * non-strict and ignores annotations).
 */
import { isJsonObject, setOwn, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { pointerToSegments } from "../../common/json-pointer.js";
import type { SchemaDialect } from "../../contract/ajv.js";
import { walkSubschemas } from "./schema-walk.js";

/** True for a keyword name that is a vendor annotation (`x-` prefix, case-sensitive as in OpenAPI). */
export function isVendorKeyword(keyword: string): boolean {
  return keyword.startsWith("x-");
}

/**
 * `schema` without the vendor keywords of any of its subschemas (properties named `x-…` under
 * `properties` are names, not keywords, and stay). Returns `schema` itself when it has none;
 * never changes `schema` (the copy is made only along the paths that change).
 */
export function withoutVendorKeywords<T extends JsonValue>(schema: T, dialect: SchemaDialect): T {
  const pointers: string[] = [];
  walkSubschemas(schema, dialect, (subschema, pointer) => {
    if (Object.keys(subschema).some(isVendorKeyword)) pointers.push(pointer);
  });
  if (pointers.length === 0) return schema;
  let result = schema as JsonValue;
  // Deepest first is not needed: each rewrite copies the path from the root down.
  for (const pointer of pointers) result = rewriteAt(result, pointerToSegments(pointer), stripVendor);
  return result as T;
}

function stripVendor(value: JsonValue): JsonValue {
  if (!isJsonObject(value)) return value;
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) if (!isVendorKeyword(key)) setOwn(copy, key, value[key]);
  return copy;
}

/** A copy of `value` whose node at `segments` is `change(node)`; the rest is shared. */
function rewriteAt(value: JsonValue, segments: readonly string[], change: (node: JsonValue) => JsonValue): JsonValue {
  if (segments.length === 0) return change(value);
  const [head, ...rest] = segments as [string, ...string[]];
  if (Array.isArray(value)) {
    const index = Number(head);
    return value.map((item, i) => (i === index ? rewriteAt(item, rest, change) : item));
  }
  if (isJsonObject(value) && Object.hasOwn(value, head)) {
    const copy: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(copy, key, key === head ? rewriteAt(value[key]!, rest, change) : value[key]);
    return copy;
  }
  return value;
}
