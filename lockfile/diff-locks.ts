/**
 * What changed between two locks, as property paths grouped by surface and capability
 * (issue 3 item 5: `tools.echo.description: "a" → "b"`).
 */
import { formatPropertyPath } from "../common/property-path.js";
import { isJsonObject, type JsonValue } from "../common/json-value.js";
import { canonicalKeyOrder } from "../common/canonical-json.js";

/** One difference at one property path. */
export interface LockChange {
  /** `changed`: both sides have a value; `added`: only the expected lock; `removed`: only the committed lock. */
  readonly kind: "changed" | "added" | "removed";
  /** Path from the lock's root. */
  readonly segments: readonly PropertyKey[];
  /** Path relative to the group's scope, formatted (`tools.echo.description`). */
  readonly path: string;
  /** The committed value (absent when `added`). */
  readonly before?: JsonValue;
  /** The value `compile` would write (absent when `removed`). */
  readonly after?: JsonValue;
}

/**
 * Changes under one scope: the whole lock (`scope: []`), one surface
 * (`["surfaces", "."]`), or one capability (`["surfaces", ".", "capabilities", "example"]`).
 * A capability or tool that was added or removed is one change in its parent's group.
 */
export interface LockChangeGroup {
  readonly scope: readonly string[];
  /** `surfaces["."].capabilities.example`, or `plugins.lock` for the root scope. */
  readonly title: string;
  readonly surface?: string;
  readonly capability?: string;
  readonly changes: readonly LockChange[];
}

/**
 * Compares the committed lock (`before`, any parsed JSON) with the expected one (`after`).
 * Objects are compared key by key (in canonical order); arrays element by element when their
 * lengths agree, else as a whole; anything else by value. Equal inputs give `[]`.
 *
 * @returns groups in canonical order of their scopes' first change; never throws.
 */
export function diffLocks(before: unknown, after: unknown): LockChangeGroup[] {
  const changes: { kind: LockChange["kind"]; segments: PropertyKey[]; before?: JsonValue; after?: JsonValue }[] = [];
  diffValues(before as JsonValue, after as JsonValue, [], changes);
  const groups = new Map<string, { scope: string[]; changes: LockChange[] }>();
  for (const change of changes) {
    const scope = scopeOf(change.segments);
    const id = JSON.stringify(scope);
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { scope, changes: [] }));
    group.changes.push({ ...change, path: formatPropertyPath(change.segments.slice(scope.length)) });
  }
  return [...groups.values()].map(({ scope, changes: list }) => ({
    scope,
    title: scope.length === 0 ? "plugins.lock" : formatPropertyPath(scope),
    ...(scope.length >= 2 ? { surface: scope[1] } : {}),
    ...(scope.length >= 4 ? { capability: scope[3] } : {}),
    changes: list,
  }));
}

function scopeOf(segments: readonly PropertyKey[]): string[] {
  const isSurfaces = segments[0] === "surfaces";
  if (isSurfaces && segments[2] === "capabilities" && segments.length >= 5) return segments.slice(0, 4).map(String);
  if (isSurfaces && segments.length >= 3) return segments.slice(0, 2).map(String);
  return [];
}

type RawChange = { kind: LockChange["kind"]; segments: PropertyKey[]; before?: JsonValue; after?: JsonValue };

function diffValues(before: JsonValue | undefined, after: JsonValue | undefined, segments: PropertyKey[], out: RawChange[]): void {
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    out.push({ kind: "added", segments, after: after! });
    return;
  }
  if (after === undefined) {
    out.push({ kind: "removed", segments, before });
    return;
  }
  if (isJsonObject(before) && isJsonObject(after)) {
    const keys = canonicalKeyOrder([...new Set([...Object.keys(before), ...Object.keys(after)])], segments.length === 0 ? ["lockfileVersion"] : []);
    for (const key of keys) diffValues(ownValue(before, key), ownValue(after, key), [...segments, key], out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, index) => diffValues(item, after[index], [...segments, index], out));
    return;
  }
  // Here at least one side is a primitive, or the two differ in kind or array length.
  if (before !== after) out.push({ kind: "changed", segments, before, after });
}

function ownValue(object: { readonly [key: string]: JsonValue }, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
