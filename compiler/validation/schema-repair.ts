/**
 * A schema with its located mistakes taken out, so ajv can be asked what else it finds.
 *
 * ajv judges a schema in two steps and stops at the first failure of each: a schema that fails
 * its meta-schema (a wrong keyword value, AL4019) is never compiled, so its defaults are never
 * checked (AL4033); and the strict-mode compile throws at its first error, so an unknown
 * format (AL4022) or an undefined required name (AL4023) hides an unresolved `$ref` (AL4024) or
 * another compile error (AL4025) until the next compile. The checks of `json-schema.ts` locate
 * those first mistakes themselves; {@link withoutMistakes} removes each one from a copy of the
 * schema, and the copy is judged again (helper-88: one compile reports every mistake that can
 * be found). Only a schema that already has mistakes is copied: an accepted schema costs
 * nothing more.
 */
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { pointerToSegments } from "../../common/json-pointer.js";

/**
 * A copy of `schema` without the value at each of `pointers` (JSON Pointers relative to the
 * schema's root): an object member is deleted, an array item spliced out (the items of one
 * array from the last one back, so the indices stay right). `undefined` when a pointer is the
 * root itself, which cannot be taken out. Pointers that name nothing are ignored. Never throws.
 */
export function withoutMistakes(schema: JsonObject, pointers: readonly string[]): JsonObject | undefined {
  if (pointers.some((pointer) => pointer === "")) return undefined;
  const copy = cloneJson(schema);
  // Deepest first and, within one array, the highest index first: a removal never moves a later target.
  const targets = pointers.map(pointerToSegments).sort((a, b) => b.length - a.length || compareLast(b, a));
  for (const segments of targets) remove(copy, segments);
  return copy;
}

/** Orders two paths of one length by their last segment, as numbers when both are indices. */
function compareLast(a: readonly string[], b: readonly string[]): number {
  const x = a[a.length - 1]!;
  const y = b[b.length - 1]!;
  return /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
}

function remove(root: JsonValue, segments: readonly string[]): void {
  let parent: JsonValue | undefined = root;
  for (const segment of segments.slice(0, -1)) {
    if (Array.isArray(parent)) parent = /^(0|[1-9]\d*)$/.test(segment) ? parent[Number(segment)] : undefined;
    else if (isJsonObject(parent)) parent = Object.hasOwn(parent, segment) ? parent[segment] : undefined;
    else return;
  }
  const last = segments[segments.length - 1]!;
  if (Array.isArray(parent)) {
    if (/^(0|[1-9]\d*)$/.test(last) && Number(last) < parent.length) parent.splice(Number(last), 1);
  } else if (isJsonObject(parent) && Object.hasOwn(parent, last)) {
    delete (parent as Record<string, JsonValue>)[last];
  }
}
