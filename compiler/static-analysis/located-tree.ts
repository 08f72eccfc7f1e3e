/**
 * The static evaluator's intermediate result: an immutable tree of values, each with the span
 * that wrote it (and, for object members, the span of the key). Subtrees are shared when a
 * constant is referenced twice; {@link toLocatedValue} flattens the tree into the plain
 * {@link LocatedValue} handed to later stages (its locations a {@link LocationTable}).
 *
 * Module-internal: the tree holds spans into parsed files, never AST nodes.
 */
import type { SourceLocation } from "../../diagnostics/diagnostic.js";
import { locationOf, type LineMap } from "../../common/positions.js";
import { setOwn, type JsonPrimitive, type JsonValue } from "../../common/json-value.js";
import type { LocatedValue, LocationTable, ValueLocation } from "../model.js";
import { LocationTableWriter } from "../location-table.js";

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
 * Flattens a tree into a JSON value and the location of every value and key, as a
 * {@link LocationTable} (rows in the value's preorder; read with `findLocation`, which gives
 * for a JSON Pointer (RFC 6901) the location `spanLocation` gives for its spans). Object keys
 * such as `__proto__` stay data ({@link setOwn}).
 *
 * @param limit the most values the result may hold (shared subtrees count each time they
 *   appear); beyond it a {@link ValueTooLargeError} is thrown.
 * @param withLocations false to skip recording locations (definition modules): `locations` is
 *   then an empty map.
 */
export function toLocatedValue(root: Located, limit: number, withLocations = true): LocatedValue {
  const table = withLocations ? new LocationTableWriter() : undefined;
  let count = 0;
  const visit = (node: Located, name: string | null, key: Span | undefined): JsonValue => {
    if (++count > limit) throw new ValueTooLargeError(limit);
    const row = table?.open(name, node.span.file.lineMap(), node.span.start, node.span.end, key?.file.lineMap(), key?.start ?? 0, key?.end ?? 0);
    let value: JsonValue;
    if (node.kind === "leaf") value = node.value;
    else if (node.kind === "array") value = node.items.map((item) => visit(item, null, undefined));
    else {
      const out: Record<string, JsonValue> = {};
      // `forEach` rather than `for…of`: no iterator result and no entry pair per member.
      node.members.forEach((member, memberName) => {
        const memberValue = visit(member.node, memberName, member.key);
        // Plain assignment is much faster; only `__proto__` would hit the prototype setter.
        if (memberName === "__proto__") setOwn(out, memberName, memberValue);
        else out[memberName] = memberValue;
      });
      value = out;
    }
    if (row !== undefined) table!.close(row);
    return value;
  };
  const value = visit(root, null, undefined);
  return { value, locations: table ? table.finish() : new Map<string, ValueLocation>() };
}

/** A short English name of a value's JSON type ("an array", "a string", "null"). */
export function describeJsonType(node: Located): string {
  if (node.kind === "array") return "an array";
  if (node.kind === "object") return "an object";
  const value = node.value;
  if (value === null) return "null";
  return typeof value === "string" ? "a string" : typeof value === "number" ? "a number" : "a boolean";
}
