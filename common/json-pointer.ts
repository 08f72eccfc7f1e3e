/**
 * JSON Pointers (RFC 6901), the keys of every location map in the pipeline and ajv's
 * `instancePath`: `""` is the whole value, `/tools/echo/inputSchema` a nested one, with `~`
 * written `~0` and `/` written `~1` inside a segment.
 */
import { isJsonObject } from "./json-value.js";

/** Escapes one segment: `a/b~c` → `a~1b~0c`. */
export function escapePointerSegment(segment: string): string {
  // Most segments have nothing to escape: returned as they are, without two regex replacements
  // (a compile escapes every member name of every entry; issue 14 item 1).
  if (!segment.includes("~") && !segment.includes("/")) return segment;
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Undoes {@link escapePointerSegment}. */
export function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The pointer of `key` (a property name or array index) inside the value at `pointer`. */
export function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${typeof key === "number" ? key : escapePointerSegment(key)}`;
}

/** Builds a pointer from segments (the inverse of {@link pointerToSegments}). */
export function segmentsToPointer(segments: readonly PropertyKey[]): string {
  return segments.map((s) => `/${escapePointerSegment(String(s))}`).join("");
}

/**
 * Splits a pointer into segments. Numeric segments stay strings: a pointer cannot tell an
 * index from a key, so callers that know the value use {@link pointerToSegmentsIn}.
 */
export function pointerToSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map(unescapePointerSegment);
}

/**
 * Like {@link pointerToSegments}, but walks `value` so array indices become numbers
 * (`/keywords/0` → `["keywords", 0]`, printed `keywords[0]` by `formatPropertyPath`).
 */
export function pointerToSegmentsIn(pointer: string, value: unknown): PropertyKey[] {
  const segments: PropertyKey[] = [];
  let current: unknown = value;
  for (const part of pointerToSegments(pointer)) {
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(part)) {
      segments.push(Number(part));
      current = current[Number(part)];
    } else {
      segments.push(part);
      current = isJsonObject(current) && Object.hasOwn(current, part) ? current[part] : undefined;
    }
  }
  return segments;
}

/** The value at `pointer` inside `root` (own properties only), or `undefined`. */
export function valueAtPointer(root: unknown, pointer: string): unknown {
  let current = root;
  for (const key of pointerToSegments(pointer)) {
    if (Array.isArray(current)) current = current[Number(key)];
    else if (isJsonObject(current) && Object.hasOwn(current, key)) current = current[key];
    else return undefined;
  }
  return current;
}
