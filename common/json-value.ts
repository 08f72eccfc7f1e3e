/**
 * JSON value types shared by every stage (descriptors, config, schemas, lock contents).
 *
 * Objects that come from user input may hold keys such as `__proto__` or `constructor` as
 * plain data: build them with {@link setOwn} (or `Object.defineProperty`), never with
 * assignment or `Object.assign`, which would invoke the `__proto__` setter.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonArray | JsonObject;
export interface JsonArray extends ReadonlyArray<JsonValue> {}
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Defines `key` as an own, enumerable, writable data property of `target`, even when the key
 * is `__proto__` (which plain assignment would treat as the prototype setter).
 */
export function setOwn(target: object, key: string, value: unknown): void {
  // A key that neither the plain, extensible object nor `Object.prototype` holds becomes, by
  // assignment, the same own data property, many times faster than `defineProperty` in a cold
  // process (the lock builder sets every tool with it; issue 14 item 1). Keys `Object.prototype`
  // holds (`__proto__`, an accessor; `toString`, read-only when a host froze the intrinsics) keep
  // `defineProperty`.
  if (Object.getPrototypeOf(target) === Object.prototype && Object.isExtensible(target) && !Object.hasOwn(target, key) && !(key in Object.prototype)) {
    (target as Record<string, unknown>)[key] = value;
    return;
  }
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Own property lookup that never reads the prototype chain (`"toString"` is not a key of `{}`). */
export function getOwn(target: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}

/**
 * Shallow merge `{ ...a, ...b }` that treats every key as data (`__proto__` included), so the
 * result's prototype is never changed by input. Later objects win.
 */
export function mergeObjects(...objects: readonly (JsonObject | undefined)[]): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const object of objects) {
    if (!object) continue;
    for (const key of Object.keys(object)) setOwn(out, key, object[key]);
  }
  return out;
}

/** Deep copy of a JSON value that keeps `__proto__`-like keys as data. */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as unknown as T;
  if (isJsonObject(value)) {
    const out: Record<string, JsonValue> = {};
    for (const key of Object.keys(value)) setOwn(out, key, cloneJson(value[key]!));
    return out as T;
  }
  return value;
}
