/**
 * Which of a failed `anyOf`/`oneOf`'s schemas to report (plugin author's trial 129, finding 15):
 * with `allErrors`, ajv reports every schema's errors and then the keyword's own "must match a
 * schema in anyOf", so a value meant for the 2nd schema was told what the 1st requires ("`labels`
 * is required … did you mean 'labels'?") beside its real fault (an `assignee` that is no email).
 * This module keeps the errors of the schema the value comes closest to, as JSON Schema error
 * reporters do (ajv-errors' "best match", Python jsonschema's `best_match`, which also prefers
 * the deepest errors): a schema whose type the value does not have is farther than one missing a
 * property, which is farther than one whose properties fail deeper down.
 *
 * Plain data in, plain data out; only ajv's types are used, like `./schema-error-words.ts`, whose
 * words the caller then puts around what is kept.
 */
import type { SchemaError } from "./schema-error-words.js";

/** What was decided for one failed `anyOf`/`oneOf` error (the key of {@link ClosestBranches.choices}). */
export interface BranchChoice {
  /** `anyOf` or `oneOf`. */
  readonly keyword: "anyOf" | "oneOf";
  /** How many schemas the keyword lists. */
  readonly count: number;
  /** The 0-based indices of the closest schemas, whose errors are kept (all of them on a tie). */
  readonly closest: readonly number[];
  /**
   * Set when the value's type fits none of the schemas and that is each one's only fault: the
   * types they accept, in order, without repeats. Their errors are then all dropped: one clause
   * ("must be an object or null, but it is a number") says it.
   */
  readonly types?: readonly string[];
}

/** The errors to report, in ajv's order but each keyword's own error before its kept schemas' errors. */
export interface ClosestBranches<E extends SchemaError> {
  readonly errors: readonly E[];
  readonly choices: ReadonlyMap<E, BranchChoice>;
}

/** Weights of {@link distance}: a wrong type at the keyword's value, another fault there, one deeper down. */
const WRONG_TYPE = 100;
const AT_VALUE = 10;
const DEEPER = 1;

/**
 * Keeps, for every failed `anyOf`/`oneOf` whose errors can be told apart by schema (see
 * {@link groupByBranch}), only the errors of its closest schemas ({@link distance}), innermost
 * keyword first, so an outer choice weighs what is left of an inner one. A keyword whose errors
 * cannot be attributed to its schemas (a `$ref` whose errors carry the referenced schema's path,
 * where the order does not tell them apart), and a `oneOf` that failed because several schemas
 * matched, are left as ajv reported them, without a choice.
 *
 * Needs ajv's `allErrors` and `verbose` (for the keyword's list of schemas): without `schema` on
 * the error, nothing changes.
 */
export function keepClosestBranches<E extends SchemaError & { readonly schema?: unknown }>(errors: readonly E[]): ClosestBranches<E> {
  // Linear in the errors: each keyword looks only at the run of errors right before it, and the
  // kept list is made once at the end (a tool input of 8,000 array items, each failing an anyOf,
  // took 39 s when each keyword filtered the whole list).
  const position = new Map<E, number>(errors.map((error, index) => [error, index]));
  const removed = new Set<E>();
  /** A keyword whose clause goes right before another kept error (its first kept member). */
  const anchor = new Map<E, E>();
  const choices = new Map<E, BranchChoice>();
  const keywords = errors
    .filter((error) => (error.keyword === "anyOf" || (error.keyword === "oneOf" && error.params["passingSchemas"] == null)) && Array.isArray(error.schema) && error.schemaPath !== undefined)
    .sort((a, b) => b.schemaPath!.length - a.schemaPath!.length);
  /** Where an error is said: its own place, or just before its anchor's (outer keywords before inner ones). */
  const said = (error: E): number => {
    let at = position.get(error)!;
    let depth = 0;
    for (let next = anchor.get(error); next !== undefined; next = anchor.get(next)) {
      at = position.get(next)!;
      depth++;
    }
    return at - depth / (errors.length + 1);
  };
  for (const keyword of keywords) {
    if (removed.has(keyword)) continue;
    const count = (keyword.schema as readonly unknown[]).length;
    const groups = groupByBranch(errors, position.get(keyword)!, removed, count);
    if (groups === undefined) continue;
    const distances = groups.map((group) => group.reduce((sum, error) => sum + distance(error, keyword, choices), 0));
    const nearest = Math.min(...distances);
    const closest = distances.flatMap((d, index) => (d === nearest ? [index] : []));
    const onlyWrongType = groups.every((group) => group.length === 1 && group[0]!.keyword === "type" && group[0]!.instancePath === keyword.instancePath);
    const keptMembers: E[] = [];
    groups.forEach((group, index) => {
      for (const error of group) {
        if (onlyWrongType || !closest.includes(index)) removed.add(error);
        else keptMembers.push(error);
      }
    });
    // The keyword's own clause first: it introduces the errors of the schemas kept.
    let first: E | undefined;
    for (const member of keptMembers) if (first === undefined || said(member) < said(first)) first = member;
    if (first !== undefined) anchor.set(keyword, first);
    const keywordName = keyword.keyword as "anyOf" | "oneOf";
    if (onlyWrongType) {
      const types = [...new Set(groups.flatMap((group) => String(group[0]!.params["type"]).split(",")))];
      choices.set(keyword, { keyword: keywordName, count, closest, types });
    } else {
      choices.set(keyword, { keyword: keywordName, count, closest });
    }
  }
  const kept = errors.filter((error) => !removed.has(error));
  const order = new Map(kept.map((error) => [error, said(error)]));
  return { errors: kept.sort((a, b) => order.get(a)! - order.get(b)!), choices };
}

/**
 * How far the value is from one schema, by that schema's errors: a wrong type at the keyword's
 * value weighs {@link WRONG_TYPE}, any other fault at it (a missing or unexpected property, an
 * enum) {@link AT_VALUE}, a fault deeper down {@link DEEPER}; an inner `anyOf`/`oneOf` already
 * decided weighs nothing itself (its kept schemas' errors are counted).
 */
function distance(error: SchemaError, keyword: SchemaError, choices: ReadonlyMap<SchemaError, BranchChoice>): number {
  if (choices.has(error)) return 0;
  if (error.instancePath !== keyword.instancePath) return DEEPER;
  return error.keyword === "type" ? WRONG_TYPE : AT_VALUE;
}

/**
 * The errors of each of `keyword`'s `count` schemas, by index, or `undefined` when they cannot all
 * be told apart. ajv reports a keyword's schemas' errors in order, right before the keyword's own
 * error, each with a `schemaPath` under the keyword's (`#/…/anyOf/1/required`) — except the errors
 * inside a `$ref`, which carry the referenced schema's path. So: the run of errors right before
 * the keyword about its value or what is inside it (stopping at a sibling keyword of the same
 * schema, such as its `type`); errors with the keyword's path go to their schema; the others are
 * attributed only when exactly one schema has none of its own and they stand together where its
 * errors would be (an `anyOf` of a `$ref` and `{ "type": "null" }`, the usual nullable
 * reference).
 */
function groupByBranch<E extends SchemaError>(errors: readonly E[], end: number, removed: ReadonlySet<E>, count: number): E[][] | undefined {
  const keyword = errors[end]!;
  const prefix = `${keyword.schemaPath!}/`;
  const parent = keyword.schemaPath!.slice(0, keyword.schemaPath!.lastIndexOf("/") + 1);
  const block: E[] = [];
  for (let index = end - 1; index >= 0; index--) {
    const previous = errors[index]!;
    if (removed.has(previous)) continue;
    const inside = previous.instancePath === keyword.instancePath || previous.instancePath.startsWith(`${keyword.instancePath}/`);
    const sibling = previous.schemaPath !== undefined && previous.schemaPath.startsWith(parent) && !previous.schemaPath.startsWith(prefix);
    if (!inside || sibling) break;
    block.push(previous);
  }
  block.reverse();
  const indexOf = (error: E): number | undefined => {
    if (error.schemaPath === undefined || !error.schemaPath.startsWith(prefix)) return undefined;
    const index = Number(error.schemaPath.slice(prefix.length).split("/", 1)[0]);
    return Number.isInteger(index) && index >= 0 && index < count ? index : undefined;
  };
  const groups: E[][] = Array.from({ length: count }, () => []);
  /** Where each attributed schema's errors start and end in the block. */
  const firstAt: number[] = Array.from({ length: count }, () => Infinity);
  const lastAt: number[] = Array.from({ length: count }, () => -Infinity);
  const unattributed: number[] = [];
  block.forEach((error, at) => {
    const index = indexOf(error);
    if (index === undefined) {
      unattributed.push(at);
      return;
    }
    groups[index]!.push(error);
    firstAt[index] = Math.min(firstAt[index]!, at);
    lastAt[index] = Math.max(lastAt[index]!, at);
  });
  if (unattributed.length > 0) {
    const missing = groups.flatMap((group, index) => (group.length === 0 ? [index] : []));
    if (missing.length !== 1) return undefined;
    const [first, last] = [unattributed[0]!, unattributed.at(-1)!];
    if (last - first + 1 !== unattributed.length) return undefined;
    // Where the missing schema's errors would stand: after every earlier schema's, before every later one's.
    const m = missing[0]!;
    if (lastAt.slice(0, m).some((at) => at > first)) return undefined;
    if (firstAt.slice(m + 1).some((at) => at < last)) return undefined;
    groups[m] = unattributed.map((at) => block[at]!);
  }
  return groups.every((group) => group.length > 0) ? groups : undefined;
}

/** `1st`, `2nd`, `3rd`, `4th`, … of a 0-based index. */
export function ordinal(index: number): string {
  const n = index + 1;
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th";
  return `${n}${suffix}`;
}
