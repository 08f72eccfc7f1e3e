/**
 * Whether a tool's input schema got wider (accepts more inputs), narrower (accepts fewer) or
 * changed in another way between two locks (issue 11 item 3). A structural comparison, not a
 * proof: each difference is a signal (`required: + query` narrows, a raised `maxLength`
 * widens). Only widening signals make `schema-widened`, only narrowing ones `schema-narrowed`;
 * anything else (both, or a changed annotation such as a description) is `schema-changed`.
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../common/json-value.js";
import { canonicalJsonText } from "../common/canonical-json.js";

/** The differences found, in schema order. */
export interface SchemaSignals {
  readonly widened: readonly string[];
  readonly narrowed: readonly string[];
  /** Differences that are neither (annotations, a changed pattern, a different `const`). */
  readonly changed: readonly string[];
}

/** The verdict on one pair of schemas. */
export type SchemaChangeKind = "schema-widened" | "schema-narrowed" | "schema-changed";

type Out = { widened: string[]; narrowed: string[]; changed: string[] };

const LOWER_BOUNDS = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"];
const UPPER_BOUNDS = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"];
const RESTRICTIONS = ["pattern", "format", "multipleOf", "uniqueItems", "not", "const", "propertyNames", "contains", "if", "then", "else", "dependentRequired", "dependentSchemas"];
const HANDLED = new Set(["type", "properties", "required", "additionalProperties", "enum", "items", "anyOf", "oneOf", ...LOWER_BOUNDS, ...UPPER_BOUNDS, ...RESTRICTIONS]);

/** Compares two schemas; `path` prefixes the signals (`properties.query`). */
export function compareSchemas(before: JsonValue | undefined, after: JsonValue | undefined, path = ""): SchemaSignals {
  const out: Out = { widened: [], narrowed: [], changed: [] };
  compare(before, after, path, out);
  return out;
}

/** The change kind for a set of signals (`undefined` when the schemas are equal). */
export function classifySchemaChange(signals: SchemaSignals): SchemaChangeKind | undefined {
  const { widened, narrowed, changed } = signals;
  if (widened.length + narrowed.length + changed.length === 0) return undefined;
  if (changed.length === 0 && narrowed.length === 0) return "schema-widened";
  if (changed.length === 0 && widened.length === 0) return "schema-narrowed";
  return "schema-changed";
}

function canonical(value: JsonValue): string {
  return canonicalJsonText(value);
}

function at(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonical(a) === canonical(b);
}

function compare(before: JsonValue | undefined, after: JsonValue | undefined, path: string, out: Out): void {
  if (same(before, after)) return;
  const where = path === "" ? "(root)" : path;
  if (!isJsonObject(before) || !isJsonObject(after)) {
    // `true` (or absent) accepts everything.
    if (before === undefined || before === true) out.narrowed.push(`${where}: constrained`);
    else if (after === undefined || after === true) out.widened.push(`${where}: constraint removed`);
    else out.changed.push(`${where}: replaced`);
    return;
  }
  compareTypes(before, after, where, out);
  compareProperties(before, after, path, out);
  compareList(before["required"], after["required"], at(path, "required"), out, "narrowed", "widened");
  compareEnum(before["enum"], after["enum"], at(path, "enum"), out);
  if (!same(before["additionalProperties"], after["additionalProperties"])) compare(before["additionalProperties"] ?? true, after["additionalProperties"] ?? true, at(path, "additionalProperties"), out);
  if (!same(before["items"], after["items"])) compare(before["items"] ?? true, after["items"] ?? true, at(path, "items"), out);
  for (const keyword of ["anyOf", "oneOf"]) compareAlternatives(before[keyword], after[keyword], at(path, keyword), out);
  for (const keyword of LOWER_BOUNDS) compareBound(before[keyword], after[keyword], at(path, keyword), out, "lower");
  for (const keyword of UPPER_BOUNDS) compareBound(before[keyword], after[keyword], at(path, keyword), out, "upper");
  for (const keyword of RESTRICTIONS) {
    if (same(before[keyword], after[keyword])) continue;
    if (before[keyword] === undefined) out.narrowed.push(`${at(path, keyword)}: added`);
    else if (after[keyword] === undefined) out.widened.push(`${at(path, keyword)}: removed`);
    else out.changed.push(`${at(path, keyword)}: ${short(before[keyword])} → ${short(after[keyword])}`);
  }
  for (const keyword of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (HANDLED.has(keyword) || same(before[keyword], after[keyword])) continue;
    const state = before[keyword] === undefined ? "added" : after[keyword] === undefined ? "removed" : "changed";
    out.changed.push(`${at(path, keyword)}: ${state}`);
  }
}

function typeSet(schema: JsonObject): Set<string> | undefined {
  const type = schema["type"];
  const expand = (t: string): string[] => (t === "number" ? ["number", "integer"] : [t]);
  if (typeof type === "string") return new Set(expand(type));
  if (Array.isArray(type)) return new Set(type.flatMap((t) => (typeof t === "string" ? expand(t) : [])));
  return undefined;
}

function compareTypes(before: JsonObject, after: JsonObject, where: string, out: Out): void {
  if (same(before["type"], after["type"])) return;
  const a = typeSet(before);
  const b = typeSet(after);
  const detail = `${where}: type ${short(before["type"])} → ${short(after["type"])}`;
  if (a === undefined) out.narrowed.push(detail);
  else if (b === undefined) out.widened.push(detail);
  else if ([...a].every((t) => b.has(t))) out.widened.push(detail);
  else if ([...b].every((t) => a.has(t))) out.narrowed.push(detail);
  else out.changed.push(detail);
}

function compareProperties(before: JsonObject, after: JsonObject, path: string, out: Out): void {
  const a = isJsonObject(before["properties"]) ? before["properties"] : {};
  const b = isJsonObject(after["properties"]) ? after["properties"] : {};
  const closedBefore = before["additionalProperties"] === false;
  const closedAfter = after["additionalProperties"] === false;
  for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])]) {
    const where = at(at(path, "properties"), name);
    // A new key is something more the model may send to a closed object, or a new constraint
    // on a key an open object already accepted; a removed key is the reverse.
    if (!Object.hasOwn(a, name)) (closedBefore ? out.widened : out.narrowed).push(`${where}: added`);
    else if (!Object.hasOwn(b, name)) (closedAfter ? out.narrowed : out.widened).push(`${where}: removed`);
    else compare(a[name], b[name], where, out);
  }
}

function compareList(before: JsonValue | undefined, after: JsonValue | undefined, where: string, out: Out, onAdd: "widened" | "narrowed", onRemove: "widened" | "narrowed"): void {
  if (same(before, after)) return;
  const a = Array.isArray(before) ? before.map((v) => canonical(v)) : [];
  const b = Array.isArray(after) ? after.map((v) => canonical(v)) : [];
  const added = b.filter((v) => !a.includes(v));
  const removed = a.filter((v) => !b.includes(v));
  if (added.length > 0) out[onAdd].push(`${where}: + ${added.join(", ")}`);
  if (removed.length > 0) out[onRemove].push(`${where}: - ${removed.join(", ")}`);
}

function compareEnum(before: JsonValue | undefined, after: JsonValue | undefined, where: string, out: Out): void {
  if (same(before, after)) return;
  // No enum allows every value: adding one narrows, dropping it widens.
  if (before === undefined) return void out.narrowed.push(`${where}: added`);
  if (after === undefined) return void out.widened.push(`${where}: removed`);
  compareList(before, after, where, out, "widened", "narrowed");
}

function compareAlternatives(before: JsonValue | undefined, after: JsonValue | undefined, where: string, out: Out): void {
  if (same(before, after)) return;
  const a = Array.isArray(before) ? before.map((v) => canonical(v)) : [];
  const b = Array.isArray(after) ? after.map((v) => canonical(v)) : [];
  if (a.every((v) => b.includes(v)) && b.length > a.length) out.widened.push(`${where}: alternative added`);
  else if (b.every((v) => a.includes(v)) && a.length > b.length) out.narrowed.push(`${where}: alternative removed`);
  else out.changed.push(`${where}: alternatives changed`);
}

function compareBound(before: JsonValue | undefined, after: JsonValue | undefined, where: string, out: Out, side: "lower" | "upper"): void {
  if (same(before, after)) return;
  if ((before !== undefined && typeof before !== "number") || (after !== undefined && typeof after !== "number")) return void out.changed.push(`${where}: changed`);
  const detail = `${where}: ${before ?? "none"} → ${after ?? "none"}`;
  if (before === undefined) return void out.narrowed.push(detail);
  if (after === undefined) return void out.widened.push(detail);
  const tighter = side === "lower" ? (after as number) > (before as number) : (after as number) < (before as number);
  (tighter ? out.narrowed : out.widened).push(detail);
}

function short(value: JsonValue | undefined): string {
  const text = JSON.stringify(value) ?? "none";
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}
