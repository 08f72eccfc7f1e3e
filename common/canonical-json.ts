/**
 * Canonical JSON text: the same value always gives the same bytes, on every machine and locale.
 *
 * Why not `JSON.stringify(value, null, 2)`: it writes keys in property order, and property order
 * puts integer-like keys (`"9"`, `"10"`) before all others in ascending numeric order, whatever
 * order they were inserted in. Why not `json-stable-stringify` with a `cmp`: its comparator sees
 * no depth, so "`lockfileVersion` first, at the root only" cannot be said with it, and the rest
 * is the few lines below. Strings and numbers are still written by `JSON.stringify`, so escaping
 * is exactly the standard one.
 */
import canonicalizeModule from "canonicalize";
import { byCodeUnits } from "./compare.js";
import { formatPropertyPath } from "./property-path.js";

// `canonicalize` is CommonJS (`module.exports = serialize`) but its types declare an ES default
// export, which NodeNext reads as `module.exports.default`; the import is the function itself.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** Options of {@link serializeCanonicalJson}. */
export interface CanonicalJsonOptions {
  /**
   * Keys written first, in this order, in the ROOT object only (when present); every other key,
   * at every depth, follows in code-unit order.
   */
  readonly firstKeys?: readonly string[];
}

/**
 * Serializes a JSON value canonically: object keys in UTF-16 code-unit order at every depth
 * (never `localeCompare`, so `LANG` cannot change it), except `options.firstKeys` at the root;
 * two-space indent; `\n` line ends; a trailing newline; no byte order mark. Arrays keep their
 * order. Empty objects and arrays are written `{}` and `[]`.
 *
 * Object members whose value is `undefined` are left out (optional fields); keys such as
 * `__proto__` are ordinary data.
 *
 * @throws TypeError (naming the property path) for a value JSON cannot represent: `undefined`
 *   inside an array, a non-finite number, a bigint, a function or symbol, an object that is not
 *   a plain object or array (`Date`, `Map`, class instances), or a cycle. Such a value is a bug
 *   in the caller, never user input.
 * @example serializeCanonicalJson({ b: 1, "10": 2, a: { z: [], "9": {} } })
 *   // '{\n  "10": 2,\n  "a": {\n    "9": {},\n    "z": []\n  },\n  "b": 1\n}\n'
 */
export function serializeCanonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  const firstKeys = options.firstKeys ?? [];
  // Fastest: a copy with its keys inserted in canonical order, written by `JSON.stringify`
  // (native; the lock of a 2,000-tool agent is 2.5 MB, written on every compile). Where property
  // order could differ from insertion order (integer-like keys), or for anything else it does
  // not copy, the fast writer gives the same text for every value JSON can represent; anything
  // else (and a cycle, seen as too deep a value) is written again by the checking writer, which throws.
  const copy = canonicalCopy(value, firstKeys);
  if (copy !== undefined) return `${JSON.stringify(copy, null, 2)}\n`;
  const fast = writeFast(value, "", 0, firstKeys);
  return `${fast === NOT_JSON ? write(value, "", [], new Set(), firstKeys) : fast}\n`;
}

/**
 * An integer-like key (an array index, which V8 orders before all other keys whatever the
 * insertion order), conservatively: any run of up to ten digits without a leading zero.
 */
const INDEX_LIKE = /^(?:0|[1-9]\d{0,9})$/;

/**
 * A JSON value whose objects hold their keys inserted in the order
 * {@link serializeCanonicalJson} writes them (`firstKeys` at the root, then UTF-16 code-unit
 * order; `undefined` members left out), so that `JSON.stringify(copy, null, 2)` writes exactly
 * the canonical text: `value` itself where it already is such a value (an object or array is
 * copied only from its first difference, so the result may share parts with `value`).
 * `undefined` (never a JSON value) when that cannot be promised, and the caller writes the value
 * itself: an object with an integer-like key (property order is then not insertion order) or a
 * `__proto__` key (an assignment would set the prototype), anything {@link writeFast} refuses
 * (a non-finite number, `undefined` in an array, a sparse array, an array with a `toJSON` or
 * another prototype, a non-plain object, a function, symbol or bigint), or a value deeper than `FAST_DEPTH` (or cyclic).
 *
 * Exported for its test (`test/lockfile/serialize.test.ts`); callers use {@link serializeCanonicalJson}.
 */
export function canonicalCopy(value: unknown, firstKeys: readonly string[] = NO_KEYS, depth = 0): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : undefined;
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (depth > FAST_DEPTH) return undefined;
  if (Array.isArray(value)) {
    // JSON.stringify would call an array's `toJSON` (its own, or a subclass's): such an array is
    // never handed back as it is (helper-72's review); the caller writes the value itself.
    if (Object.getPrototypeOf(value) !== Array.prototype || Object.prototype.hasOwnProperty.call(value, "toJSON")) return undefined;
    // The array itself when every item is its own copy (copy on write: most of a lock's values
    // are already canonical, and each copy is garbage the next moment).
    let out: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) return undefined;
      const item = value[index] as unknown;
      if (item === undefined) return undefined;
      const copied = canonicalCopy(item, NO_KEYS, depth + 1);
      if (copied === undefined) return undefined;
      if (out === undefined && copied !== item) out = value.slice(0, index);
      if (out !== undefined) out[index] = copied;
    }
    return out ?? value;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const record = value as Record<string, unknown>;
  const own = Object.keys(record);
  // The object itself when its keys are already in canonical order, none is `undefined`, and
  // every member is its own copy; otherwise a copy, started at the first difference.
  const inOrder = firstKeys.length === 0 && inCodeUnitOrder(own);
  const keys = inOrder ? own : firstKeys.length === 0 ? sortedInPlace(own) : canonicalKeyOrder(own, firstKeys);
  let out: Record<string, unknown> | undefined = inOrder ? undefined : {};
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const member = record[key];
    if (member === undefined) {
      out ??= prefixOf(record, keys, index);
      continue;
    }
    if (key === "__proto__" || INDEX_LIKE.test(key)) return undefined;
    const copied = canonicalCopy(member, NO_KEYS, depth + 1);
    if (copied === undefined) return undefined;
    if (out === undefined && copied !== member) out = prefixOf(record, keys, index);
    if (out !== undefined) out[key] = copied;
  }
  return out ?? record;
}

/** True when `keys` are in UTF-16 code-unit order (distinct keys: strictly ascending). */
function inCodeUnitOrder(keys: readonly string[]): boolean {
  for (let index = 1; index < keys.length; index++) if (keys[index - 1]! > keys[index]!) return false;
  return true;
}

/** A new object with the first `count` members of `record` in the order of `keys` (all defined and already canonical). */
function prefixOf(record: Record<string, unknown>, keys: readonly string[], count: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) out[keys[index]!] = record[keys[index]!];
  return out;
}

/**
 * `keys` sorted in place in UTF-16 code-unit order (what the default `sort()` does), by
 * insertion for the few keys an object of the lock has: the default sort allocates a work
 * array per call, about a third of what serializing a lock allocated.
 */
function sortedInPlace(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let index = 1; index < keys.length; index++) {
    const key = keys[index]!;
    let at = index - 1;
    for (; at >= 0 && keys[at]! > key; at--) keys[at + 1] = keys[at]!;
    keys[at + 1] = key;
  }
  return keys;
}

/** What {@link writeFast} returns for a value it does not write. */
const NOT_JSON = Symbol("not JSON");

/** Deeper than this, {@link writeFast} gives up (a cycle, or a value no lock or manifest holds). */
const FAST_DEPTH = 512;

/**
 * The text {@link write} gives for a JSON value, without its bookkeeping (property path, ancestor
 * set, a closure per member): the lock and the manifest of a large agent are megabytes, written
 * on every compile. `NOT_JSON` for anything {@link write} would reject (or write from a sparse array).
 */
function writeFast(value: unknown, indent: string, depth: number, firstKeys: readonly string[]): string | typeof NOT_JSON {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : NOT_JSON;
    case "object":
      break;
    default:
      return NOT_JSON;
  }
  if (value === null) return "null";
  if (depth > FAST_DEPTH) return NOT_JSON;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    let text = "[\n";
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) return NOT_JSON;
      const item = value[index] as unknown;
      if (item === undefined) return NOT_JSON;
      const written = writeFast(item, inner, depth + 1, NO_KEYS);
      if (written === NOT_JSON) return NOT_JSON;
      text += index === 0 ? inner + written : `,\n${inner}${written}`;
    }
    return `${text}\n${indent}]`;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_JSON;
  const record = value as Record<string, unknown>;
  const present = Object.keys(record).filter((key) => record[key] !== undefined);
  // Default `sort()` compares UTF-16 code units, as `byCodeUnits` does.
  const keys = firstKeys.length === 0 ? present.sort() : canonicalKeyOrder(present, firstKeys);
  if (keys.length === 0) return "{}";
  let text = "{\n";
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const written = writeFast(record[key], inner, depth + 1, NO_KEYS);
    if (written === NOT_JSON) return NOT_JSON;
    text += `${index === 0 ? "" : ",\n"}${inner}${JSON.stringify(key)}: ${written}`;
  }
  return `${text}\n${indent}}`;
}

/**
 * The compact canonical text of a value, for comparing contents rather than writing files: the
 * JSON Canonicalization Scheme (RFC 8785, by the `canonicalize` package: keys in UTF-16
 * code-unit order at every depth, no whitespace, `JSON.stringify`'s escaping and numbers), after
 * one pass through `JSON.stringify`'s lenient rules (`undefined` members and functions are
 * skipped, `undefined` array items and non-finite numbers become `null`, `toJSON` is applied),
 * because it also sees values a host passes through the JS API. Two values with the same
 * content give the same text whatever their key order (locked contracts, a retried call's input).
 * The keys are in the same order as {@link serializeCanonicalJson} writes them (no `firstKeys`).
 *
 * @example canonicalJsonText({ b: [1, undefined], a: { "10": 1, "9": 2 } })
 *   // '{"a":{"10":1,"9":2},"b":[1,null]}'
 */
export function canonicalJsonText(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? "null" : (canonicalize(JSON.parse(text)) ?? "null");
}

/** The order in which keys of one object are written (see {@link serializeCanonicalJson}). */
export function canonicalKeyOrder(keys: readonly string[], firstKeys: readonly string[] = []): string[] {
  if (firstKeys.length === 0) return [...keys].sort(byCodeUnits);
  const first = firstKeys.filter((key) => keys.includes(key));
  const rest = keys.filter((key) => !firstKeys.includes(key)).sort(byCodeUnits);
  return [...first, ...rest];
}

function write(value: unknown, indent: string, path: PropertyKey[], ancestors: Set<object>, firstKeys: readonly string[]): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw notJson(path, String(value));
    return JSON.stringify(value);
  }
  if (typeof value !== "object") throw notJson(path, typeof value);
  if (ancestors.has(value)) throw notJson(path, "a cycle");
  ancestors.add(value);
  try {
    return Array.isArray(value) ? writeArray(value, indent, path, ancestors) : writeObject(value, indent, path, ancestors, firstKeys);
  } finally {
    ancestors.delete(value);
  }
}

function writeArray(items: readonly unknown[], indent: string, path: PropertyKey[], ancestors: Set<object>): string {
  if (items.length === 0) return "[]";
  const inner = `${indent}  `;
  // `path` is one stack for the whole walk (pushed and popped here), copied only for an error.
  const lines = items.map((item, index) => {
    path.push(index);
    try {
      if (item === undefined) throw notJson(path, "undefined");
      return inner + write(item, inner, path, ancestors, NO_KEYS);
    } finally {
      path.pop();
    }
  });
  return `[\n${lines.join(",\n")}\n${indent}]`;
}

function writeObject(object: object, indent: string, path: PropertyKey[], ancestors: Set<object>, firstKeys: readonly string[]): string {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) throw notJson(path, `an instance of ${object.constructor?.name ?? "a class"}`);
  const record = object as Record<string, unknown>;
  const keys = canonicalKeyOrder(Object.keys(record).filter((key) => record[key] !== undefined), firstKeys);
  if (keys.length === 0) return "{}";
  const inner = `${indent}  `;
  const members = keys.map((key) => {
    path.push(key);
    try {
      return `${inner}${JSON.stringify(key)}: ${write(record[key], inner, path, ancestors, NO_KEYS)}`;
    } finally {
      path.pop();
    }
  });
  return `{\n${members.join(",\n")}\n${indent}}`;
}

const NO_KEYS: readonly string[] = [];

function notJson(path: readonly PropertyKey[], what: string): TypeError {
  const where = path.length === 0 ? "the root" : formatPropertyPath(path);
  return new TypeError(`Cannot write ${what} at ${where} as canonical JSON.`);
}
