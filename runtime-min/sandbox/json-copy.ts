/**
 * Strict JSON copying for values that cross the tool boundary: tool results, `toModelOutput`
 * projections, `ctx.step` results and `ctx.emit` data (seed "Tool implementation": "Return
 * values must be JSON-serializable"; "Durable Steps": "step results must be JSON-serializable").
 *
 * `JSON.stringify` silently drops functions, turns `NaN` into `null` and `Map` into `{}`; this
 * module refuses such values instead, naming where in the value the problem is, so a tool never
 * loses data silently. It runs inside the sandbox child, so it imports nothing.
 */

/** A JSON value as it crosses the bridge. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * The deepest a value crossing the tool boundary may be nested (objects and arrays, the outermost
 * counting as level 1). The host serialises what a tool returns, emits and stores with
 * `JSON.stringify`, which overflows the stack somewhere past a few thousand levels, and that
 * overflow inside a state-store write once ended the run as a false state-store failure
 * (helper-89's review of 6 December, finding 4). {@link copyJson} refuses a deeper value in the
 * sandbox child (the tool's error names where), and the host refuses a bridge message carrying
 * one (`./child-message-check.ts`, {@link nestedDeeperThan}). One rule, in this one place.
 */
export const MAX_JSON_DEPTH = 1000;

/** Thrown by {@link copyJson} for a value JSON cannot represent faithfully. */
export class NotJsonError extends Error {
  /** Where the offending value is, e.g. `result.items[2].callback`. */
  readonly at: string;
  constructor(at: string, problem: string) {
    super(`${at} ${problem}; the value must be JSON-serializable.`);
    this.name = "NotJsonError";
    this.at = at;
  }
}

/**
 * Returns a deep JSON copy of `value` — exactly what `JSON.parse(JSON.stringify(value))` gives
 * for a well-formed value — or throws {@link NotJsonError}.
 *
 * Accepted: `null`, booleans, finite numbers, strings, arrays, plain objects (prototype
 * `Object.prototype` or `null`), and objects with a `toJSON()` method (such as `Date`), whose
 * result is copied in turn. `undefined` inside an object drops the key and inside an array
 * becomes `null` (as JSON does). Refused: `undefined` at the top, BigInt, functions, symbols,
 * non-finite numbers, cycles, nesting deeper than {@link MAX_JSON_DEPTH}, and any other object (Map, Set, RegExp, Error, class instances),
 * whose data JSON would lose.
 *
 * @param label names the value in messages (`"result"`, `"step result"`).
 */
export function copyJson(value: unknown, label: string): Json {
  if (value === undefined) throw new NotJsonError(label, "is undefined");
  return copy(value, label, new Set(), 0);
}

/**
 * True when `value` (parsed JSON) nests objects and arrays deeper than `levels` (the outermost
 * is level 1). Stops at the first path past the bound, so it never recurses more than `levels`
 * deep; cheap for the small values of most messages.
 */
export function nestedDeeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (nestedDeeperThan(value[index], levels - 1)) return true;
    return false;
  }
  for (const key in value) if (nestedDeeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  return false;
}

/** `depth`: how many objects and arrays enclose `value`. */
function copy(value: unknown, at: string, ancestors: Set<object>, depth: number): Json {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new NotJsonError(at, `is ${String(value)}, which JSON cannot represent`);
      return value;
    case "bigint":
      throw new NotJsonError(at, "is a BigInt");
    case "function":
      throw new NotJsonError(at, "is a function");
    case "symbol":
      throw new NotJsonError(at, "is a symbol");
    case "undefined":
      return null;
    default:
      break;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) throw new NotJsonError(at, "refers back to one of its parents (a cycle)");
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    const replaced = (toJSON as () => unknown).call(object);
    ancestors.add(object);
    try {
      // A `toJSON` result replaces its object: same depth.
      return replaced === undefined ? null : copy(replaced, at, ancestors, depth);
    } finally {
      ancestors.delete(object);
    }
  }
  if (depth === MAX_JSON_DEPTH) throw new NotJsonError(at, `is nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
  ancestors.add(object);
  try {
    return Array.isArray(object) ? copyArray(object, at, ancestors, depth + 1) : copyObject(object, at, ancestors, depth + 1);
  } finally {
    ancestors.delete(object);
  }
}

function copyArray(array: readonly unknown[], at: string, ancestors: Set<object>, depth: number): Json[] {
  const out: Json[] = [];
  for (let index = 0; index < array.length; index++) out.push(copy(array[index], `${at}[${index}]`, ancestors, depth));
  return out;
}

function copyObject(object: object, at: string, ancestors: Set<object>, depth: number): { [key: string]: Json } {
  const proto = Object.getPrototypeOf(object);
  if (proto !== Object.prototype && proto !== null) {
    const name = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    throw new NotJsonError(at, `is a ${typeof name === "string" && name !== "" ? name : "non-plain"} object, not a plain object`);
  }
  const out: { [key: string]: Json } = {};
  for (const key of Object.keys(object)) {
    const member = (object as Record<string, unknown>)[key];
    if (member === undefined) continue;
    const copied = copy(member, `${at}${formatKey(key)}`, ancestors, depth);
    // A key Object.prototype also has ("__proto__", or one a polluted prototype gained) is
    // defined as data, so no inherited setter runs and the prototype never changes; any other
    // key is assigned, which is several times cheaper (issue 14 item 2: this copy runs on every
    // call's input in the host and on its result in the sandbox).
    if (key in Object.prototype) Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else out[key] = copied;
  }
  return out;
}

function formatKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
