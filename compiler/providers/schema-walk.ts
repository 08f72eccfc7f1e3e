/**
 * Walks a JSON Schema the way a provider reads it: every subschema once, with the property
 * path that leads to it (`["properties", "query", "anyOf", 1]`) and how many object schemas
 * enclose it. Plain data in, callbacks out; nothing is resolved or fetched (`$ref` is a
 * keyword like any other here, followed only by {@link refCycles}).
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { pointerToSegments, unescapePointerSegment } from "../../common/json-pointer.js";

/** Path segments from the schema root (object keys and array indices). */
export type SchemaPath = readonly (string | number)[];

/** One subschema and where it sits. */
export interface SchemaNode {
  readonly schema: JsonObject;
  readonly path: SchemaPath;
  /** Object schemas from the root down to this node, this one included when it is an object (root object = 1). */
  readonly objectDepth: number;
  /** The keyword that holds this subschema (`properties`, `items`, `anyOf`, …); `undefined` for the root. */
  readonly via: string | undefined;
}

/** Keywords whose value is one subschema. */
const SINGLE = new Set(["additionalProperties", "items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems"]);
/** Keywords whose value is an array of subschemas. */
const LIST = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"]);

/** True when a schema describes an object (its `type` names `object`, or it has `properties` and no `type`). */
export function isObjectSchema(schema: JsonObject): boolean {
  const type = schema["type"];
  if (type === "object") return true;
  if (Array.isArray(type) && type.includes("object")) return true;
  return type === undefined && Object.hasOwn(schema, "properties");
}

/**
 * Calls `visit` for the root and every nested subschema, parents before children, in the
 * schema's own key order. Boolean subschemas (`true`/`false`) are not visited.
 */
export function walkSchema(root: JsonObject, visit: (node: SchemaNode) => void): void {
  const step = (schema: JsonObject, path: SchemaPath, parentDepth: number, via: string | undefined): void => {
    const objectDepth = parentDepth + (isObjectSchema(schema) ? 1 : 0);
    visit({ schema, path, objectDepth, via });
    for (const keyword of Object.keys(schema)) {
      const value = schema[keyword]!;
      if (SINGLE.has(keyword)) {
        if (isJsonObject(value)) step(value, [...path, keyword], objectDepth, keyword);
        // The draft-07 tuple form `items: [...]`.
        else if (keyword === "items" && Array.isArray(value)) value.forEach((item, i) => isJsonObject(item) && step(item, [...path, keyword, i], objectDepth, keyword));
      } else if (LIST.has(keyword) && Array.isArray(value)) {
        value.forEach((item, i) => isJsonObject(item) && step(item, [...path, keyword, i], objectDepth, keyword));
      } else if (MAP.has(keyword) && isJsonObject(value)) {
        for (const name of Object.keys(value)) {
          const child = value[name]!;
          if (isJsonObject(child)) step(child, [...path, keyword, name], objectDepth, keyword);
        }
      }
    }
  };
  step(root, [], 0, undefined);
}

/**
 * Local `$ref`s that close a cycle (`#`, or `#/$defs/node` reached again from inside
 * `#/$defs/node`): the paths of those `$ref` keywords. External references (not starting
 * with `#`) are never followed.
 */
export function refCycles(root: JsonObject): SchemaPath[] {
  const cycles: SchemaPath[] = [];
  const resolve = (ref: string): JsonValue | undefined => {
    if (ref === "#") return root;
    if (!ref.startsWith("#/")) return undefined;
    let current: JsonValue | undefined = root;
    for (const raw of ref.slice(2).split("/")) {
      const key = unescapePointerSegment(raw);
      if (isJsonObject(current) && Object.hasOwn(current, key)) current = current[key];
      else if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
      else return undefined;
    }
    return current;
  };
  // A reference is recursive when its target contains, directly or through further local
  // references, a reference back to the same target.
  const reaches = (schema: JsonObject, target: string, seen: Set<string>): boolean => {
    let found = false;
    walkSchema(schema, ({ schema: node }) => {
      if (found) return;
      const ref = node["$ref"];
      if (typeof ref !== "string" || !ref.startsWith("#")) return;
      if (ref === target) {
        found = true;
        return;
      }
      if (seen.has(ref)) return;
      seen.add(ref);
      const next = resolve(ref);
      if (isJsonObject(next) && reaches(next, target, seen)) found = true;
    });
    return found;
  };
  walkSchema(root, ({ schema, path }) => {
    const ref = schema["$ref"];
    if (typeof ref !== "string" || !ref.startsWith("#")) return;
    const target = resolve(ref);
    if (!isJsonObject(target)) return;
    if (isAncestorPath(ref, path) || reaches(target, ref, new Set([ref]))) cycles.push([...path, "$ref"]);
  });
  return cycles;
}

/** True when the pointer `ref` names an ancestor of (or the same node as) `path`. */
function isAncestorPath(ref: string, path: SchemaPath): boolean {
  if (ref === "#") return true;
  const segments = pointerToSegments(ref.slice(1));
  if (segments.length > path.length) return false;
  return segments.every((segment, i) => String(path[i]) === segment);
}
