/**
 * The static evaluator's intermediate result: an immutable tree of values, each with the span
 * that wrote it (and, for object members, the span of the key). Subtrees are shared when a
 * constant is referenced twice; {@link toLocatedValue} flattens the tree into the plain
 * {@link LocatedValue} handed to later stages (values keyed by JSON Pointer).
 *
 * Module-internal: the tree holds spans into parsed files, never AST nodes.
 */
import type { SourceLocation } from "../../diagnostics/diagnostic.js";
import { locationOf, type LineMap } from "../../common/positions.js";
import { setOwn, type JsonPrimitive, type JsonValue } from "../../common/json-value.js";
import type { LocatedValue, ValueLocation } from "../model.js";
import { escapePointerSegment } from "../../common/json-pointer.js";

/** A file whose text positions can be turned into locations (the line map is built lazily). */
export interface Locatable {
  lineMap(): LineMap;
}

/** `[start, end)` offsets into the text of `file` exactly as read (BOM included). */
export interface Span {
  readonly file: Locatable;
  readonly start: number;
  readonly end: number;
}

/** One object member: where its key is written and its value. */
export interface Member {
  readonly key: Span;
  readonly node: Located;
}

/**
 * An evaluated value. `partial` is true when a part of it could not be evaluated (and was
 * omitted); `height` is the nesting depth below and including this node (a leaf is 1).
 */
export type Located =
  | { readonly kind: "leaf"; readonly value: JsonPrimitive; readonly span: Span; readonly partial: boolean; readonly height: 1 }
  | { readonly kind: "array"; readonly items: readonly Located[]; readonly span: Span; readonly partial: boolean; readonly height: number }
  | { readonly kind: "object"; readonly members: ReadonlyMap<string, Member>; readonly span: Span; readonly partial: boolean; readonly height: number };

/** The location of a span, in the conventions of `positions.ts`. */
export function spanLocation(span: Span): SourceLocation {
  return locationOf(span.file.lineMap(), span.start, span.end);
}

/** Raised by {@link toLocatedValue} when flattening would exceed its size budget. */
export class ValueTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`value has more than ${limit} parts`);
  }
}

/**
 * Flattens a tree into a JSON value and the location of every value and key, keyed by JSON
 * Pointer (RFC 6901). Object keys such as `__proto__` stay data ({@link setOwn}).
 *
 * @param limit the most values the result may hold (shared subtrees count each time they
 *   appear); beyond it a {@link ValueTooLargeError} is thrown.
 * @param withLocations false to skip building the location map (definition modules).
 */
export function toLocatedValue(root: Located, limit: number, withLocations = true): LocatedValue {
  const locations = new Map<string, ValueLocation>();
  let count = 0;
  const visit = (node: Located, pointer: string, key: Span | undefined): JsonValue => {
    if (++count > limit) throw new ValueTooLargeError(limit);
    if (withLocations) {
      locations.set(pointer, key ? { value: spanLocation(node.span), key: spanLocation(key) } : { value: spanLocation(node.span) });
    }
    if (node.kind === "leaf") return node.value;
    if (node.kind === "array") return node.items.map((item, index) => visit(item, withLocations ? `${pointer}/${index}` : "", undefined));
    const out: Record<string, JsonValue> = {};
    for (const [name, member] of node.members) {
      const value = visit(member.node, withLocations ? `${pointer}/${escapePointerSegment(name)}` : "", member.key);
      // Plain assignment is much faster; only `__proto__` would hit the prototype setter.
      if (name === "__proto__") setOwn(out, name, value);
      else out[name] = value;
    }
    return out;
  };
  const value = visit(root, "", undefined);
  return { value, locations };
}

/** A short English name of a value's JSON type ("an array", "a string", "null"). */
export function describeJsonType(node: Located): string {
  if (node.kind === "array") return "an array";
  if (node.kind === "object") return "an object";
  const value = node.value;
  if (value === null) return "null";
  return typeof value === "string" ? "a string" : typeof value === "number" ? "a number" : "a boolean";
}
