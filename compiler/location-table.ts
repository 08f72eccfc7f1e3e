/**
 * The compact location record of an evaluated value ({@link LocationTable}, issue 14 item 1):
 * how the static analysis writes it ({@link LocationTableWriter}) and how later stages read it
 * ({@link findLocation}). A {@link ValueLocation} is built only for the pointer asked, equal to
 * the one the map of `{ value, key }` objects kept before held for it (same numbers, same key
 * order), and nothing at all for the values nobody asks about: a compile without problems asks
 * two per tool out of about 80.
 *
 * Pointers are not stored: a row holds the member name of its value (or `null` for an array
 * item) and the size of its subtree, so a lookup walks down from the root one segment at a
 * time, skipping whole subtrees. A segment matches a member when it is the member name as
 * {@link escapePointerSegment} writes it, and an array item when it is its index in decimal:
 * exactly the pointers the map had as keys, so a pointer the map did not hold finds nothing.
 */
import type { SourceLocation } from "../diagnostics/diagnostic.js";
import { escapePointerSegment } from "../common/json-pointer.js";
import { writeLineColumn, type LineMap } from "../common/positions.js";

/** Where a value, and the key that names it, are written. */
export interface ValueLocation {
  /** The value expression (or JSON value / YAML node). */
  readonly value: SourceLocation;
  /** The property name that holds the value, when it is an object member. */
  readonly key?: SourceLocation;
}

/**
 * The locations of an evaluated value in one compact, plain record (issue 14 item 1): instead of
 * a map with a JSON Pointer, a `{ value, key }` and one or two location objects per value
 * (171,000 objects for the benchmark agent's entries), one row of numbers per value, in the
 * value's preorder (a value, then its members or items in order). Built by the static analysis
 * (`static-analysis/located-tree.ts`), read with {@link findLocation}, which
 * builds a {@link ValueLocation} only for the pointer asked; it crosses threads and is stored
 * in the analysis cache as it is (an `Int32Array` and two arrays of strings).
 */
export interface LocationTable {
  /** Per value: the member name that holds it, or `null` for an array item and for the root. */
  readonly names: readonly (string | null)[];
  /** The files the rows refer to (absolute paths, as `SourceLocation.file`). */
  readonly files: readonly string[];
  /**
   * Per value, {@link LOCATION_TABLE_FIELDS} numbers: the number of values in its subtree
   * (itself included), then the value's location and the key's, each as file index, line,
   * column, end line and end column (end line -1 for a point; file index -1 for no key).
   */
  readonly numbers: Int32Array;
}

/** Numbers per value in {@link LocationTable.numbers}: subtree size, then 5 for the value and 5 for the key. */
export const LOCATION_TABLE_FIELDS = 11;
const VALUE = 1;
const KEY = 6;

/** Whether `locations` is a {@link LocationTable} (else a map keyed by pointer). */
export function isLocationTable(locations: ReadonlyMap<string, ValueLocation> | LocationTable): locations is LocationTable {
  return (locations as LocationTable).numbers instanceof Int32Array;
}

/**
 * The location recorded for exactly `pointer` (a JSON Pointer, `""` for the root), from a map
 * or a {@link LocationTable}; `undefined` when none is (see `locateValue` in `model.ts` for the
 * closest recorded one).
 */
export function findLocation(locations: ReadonlyMap<string, ValueLocation> | LocationTable, pointer: string): ValueLocation | undefined {
  if (!isLocationTable(locations)) return locations.get(pointer);
  const row = findRow(locations, pointer);
  return row === undefined ? undefined : rowLocation(locations, row);
}

/**
 * Every pointer of a table with its location, in the table's order (the value's preorder, as
 * the map was filled): for tests, and for whoever needs the whole map.
 */
export function locationEntries(table: LocationTable): [string, ValueLocation][] {
  const entries: [string, ValueLocation][] = [];
  const { names, numbers } = table;
  const rows = names.length;
  // Pointers of the open ancestors, and where each one's subtree ends.
  const pointers: string[] = [];
  const ends: number[] = [];
  const counters: number[] = [];
  for (let row = 0; row < rows; row++) {
    while (ends.length > 0 && row >= ends[ends.length - 1]!) {
      ends.pop();
      pointers.pop();
      counters.pop();
    }
    let pointer = "";
    if (pointers.length > 0) {
      const parent = pointers[pointers.length - 1]!;
      const name = names[row];
      const index = counters[counters.length - 1]!;
      counters[counters.length - 1] = index + 1;
      pointer = `${parent}/${name === null ? index : escapePointerSegment(name!)}`;
    }
    entries.push([pointer, rowLocation(table, row)]);
    pointers.push(pointer);
    ends.push(row + subtreeSize(numbers, row));
    counters.push(0);
  }
  return entries;
}

/** The row of `pointer`, walking down from the root; `undefined` when the table has none. */
function findRow(table: LocationTable, pointer: string): number | undefined {
  const { names, numbers } = table;
  if (names.length === 0) return undefined;
  if (pointer === "") return 0;
  if (pointer.charCodeAt(0) !== 47 /* / */) return undefined;
  let row = 0;
  let from = 1;
  for (;;) {
    const slash = pointer.indexOf("/", from);
    const segment = slash === -1 ? pointer.slice(from) : pointer.slice(from, slash);
    const end = Math.min(row + subtreeSize(numbers, row), names.length);
    // A segment without `~` names a member only as it is (an escaped name with `/` or `~` has a `~`);
    // an array item only by its index written in decimal.
    const plain = segment.indexOf("~") === -1;
    const index = decimalIndex(segment);
    let child = row + 1;
    let item = 0;
    let found = -1;
    while (child < end) {
      const name = names[child];
      if (name === null ? item === index : plain ? name === segment : escapePointerSegment(name!) === segment) {
        found = child;
        break;
      }
      child += subtreeSize(numbers, child);
      item++;
    }
    if (found === -1) return undefined;
    if (slash === -1) return found;
    row = found;
    from = slash + 1;
  }
}

/**
 * The number of rows in the subtree of `row`, at least 1: a table this module wrote always has
 * one, and a damaged one (a zero or negative size, a row past the numbers) must end a lookup
 * rather than loop on the same row.
 */
function subtreeSize(numbers: Int32Array, row: number): number {
  const size = numbers[row * LOCATION_TABLE_FIELDS] ?? 1;
  return size >= 1 ? size : 1;
}

/** The array index `segment` writes (as `String(index)` would: no sign, no leading zero), else -1. */
function decimalIndex(segment: string): number {
  const length = segment.length;
  if (length === 0 || length > 9 || (length > 1 && segment.charCodeAt(0) === 48 /* 0 */)) return -1;
  let index = 0;
  for (let i = 0; i < length; i++) {
    const digit = segment.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    index = index * 10 + digit;
  }
  return index;
}

/** The {@link ValueLocation} of a row, shaped as the map held it (`{ value }` or `{ value, key }`). */
function rowLocation(table: LocationTable, row: number): ValueLocation {
  const at = row * LOCATION_TABLE_FIELDS;
  const value = sourceLocation(table, at + VALUE);
  return table.numbers[at + KEY] === -1 ? { value } : { value, key: sourceLocation(table, at + KEY) };
}

/** A location of five numbers, shaped as `locationOf` builds it (`positions.ts`). */
function sourceLocation(table: LocationTable, at: number): SourceLocation {
  const numbers = table.numbers;
  const file = table.files[numbers[at]!]!;
  const line = numbers[at + 1]!;
  const column = numbers[at + 2]!;
  const endLine = numbers[at + 3]!;
  return endLine === -1 ? { file, line, column } : { file, line, column, endLine, endColumn: numbers[at + 4]! };
}

/**
 * Writes a {@link LocationTable} row by row in the value's preorder: {@link open} a value with
 * the spans of the value and its key (before its members or items), {@link close} it after
 * them. The numbers are those `locationOf` (`positions.ts`) gives for the same spans.
 */
export class LocationTableWriter {
  readonly #names: (string | null)[] = [];
  /** Rows written so far, in a buffer doubled when full. */
  #numbers = new Int32Array(64 * LOCATION_TABLE_FIELDS);
  readonly #files: string[] = [];
  readonly #fileIndex = new Map<string, number>();
  #lastMap: LineMap | undefined;
  #lastIndex = -1;

  /**
   * Starts the row of a value written at `[start, end)` of `map`'s text, held by the member
   * `name` (`null` for an array item or the root), whose key is written at `[keyStart, keyEnd)`
   * of `keyMap`'s text (no `keyMap`: no key). Returns the row, for {@link close}.
   */
  open(name: string | null, map: LineMap, start: number, end: number, keyMap: LineMap | undefined, keyStart: number, keyEnd: number): number {
    const row = this.#names.length;
    this.#names.push(name);
    const at = row * LOCATION_TABLE_FIELDS;
    if (at + LOCATION_TABLE_FIELDS > this.#numbers.length) {
      const grown = new Int32Array(this.#numbers.length * 2);
      grown.set(this.#numbers);
      this.#numbers = grown;
    }
    const numbers = this.#numbers;
    numbers[at] = 1;
    this.#write(map, start, end, at + VALUE);
    if (keyMap) this.#write(keyMap, keyStart, keyEnd, at + KEY);
    else numbers[at + KEY] = -1;
    return row;
  }

  /** Ends the value of `row`: its subtree is every row written since. */
  close(row: number): void {
    this.#numbers[row * LOCATION_TABLE_FIELDS] = this.#names.length - row;
  }

  /** The table written so far. */
  finish(): LocationTable {
    return { names: this.#names, files: this.#files, numbers: this.#numbers.slice(0, this.#names.length * LOCATION_TABLE_FIELDS) };
  }

  #write(map: LineMap, start: number, end: number, at: number): void {
    const numbers = this.#numbers;
    numbers[at] = this.#file(map);
    writeLineColumn(map, start, numbers, at + 1);
    if (end <= start) {
      numbers[at + 3] = -1;
      numbers[at + 4] = 0;
    } else {
      writeLineColumn(map, end, numbers, at + 3);
    }
  }

  #file(map: LineMap): number {
    if (map === this.#lastMap) return this.#lastIndex;
    let index = this.#fileIndex.get(map.file);
    if (index === undefined) {
      index = this.#files.push(map.file) - 1;
      this.#fileIndex.set(map.file, index);
    }
    this.#lastMap = map;
    this.#lastIndex = index;
    return index;
  }
}
