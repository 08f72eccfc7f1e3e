/**
 * The compact location table of evaluated values (`compiler/location-table.ts`, issue 14 item 1):
 * every lookup gives exactly what the map of `{ value, key }` objects that `toLocatedValue` built
 * before gave for the same pointer (numbers, key order, and misses), on generated trees with odd
 * member names, arrays, shared subtrees, points and spans in two files (byte order mark, CRLF,
 * CR, U+2028); and the table survives a structured clone and the analysis cache's packing as it is.
 */
import * as v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { escapePointerSegment } from "../../common/json-pointer.js";
import { lineColumnOf, writeLineColumn } from "../../common/positions.js";
import { findLocation, isLocationTable, locationEntries, type LocationTable } from "../../compiler/location-table.js";
import { locateValue, type ValueLocation } from "../../compiler/model.js";
import { packRecord, unpackRecord } from "../../compiler/static-analysis/analysis-cache.js";
import { spanLocation, toLocatedValue, type Located, type Member, type Span } from "../../compiler/static-analysis/located-tree.js";
import { createTextFile } from "../../compiler/static-analysis/source-store.js";
import { seededRandom } from "../helpers/seeded-random.js";

/** The eager map `toLocatedValue` built before the table (the reference the table must equal). */
function eagerLocations(root: Located): Map<string, ValueLocation> {
  const locations = new Map<string, ValueLocation>();
  const visit = (node: Located, pointer: string, key: Span | undefined): void => {
    locations.set(pointer, key ? { value: spanLocation(node.span), key: spanLocation(key) } : { value: spanLocation(node.span) });
    if (node.kind === "array") node.items.forEach((item, index) => visit(item, `${pointer}/${index}`, undefined));
    if (node.kind === "object") for (const [name, member] of node.members) visit(member.node, `${pointer}/${escapePointerSegment(name)}`, member.key);
  };
  visit(root, "", undefined);
  return locations;
}

const FILES = [
  createTextFile("/agent/plugins/p/ai.assemblyline/index.ts", "1", "\uFEFFexport default {\r\n  tools: {\r\n    a: 1,\r\n  },\r\n};\r\n" + "x".repeat(300)),
  createTextFile("/agent/plugins/p/shared.ts", "1", "export const a = {\r  b: [1,\u2028 2],\n};\n" + "y\n".repeat(150)),
];
const NAMES = ["a", "b", "", "a/b", "~", "~1", "~0x", "__proto__", "0", "01", "1", "10", "tools", "x y", "é", "a~1b"];

function generate(next: () => number, depth: number, shared: Located[]): Located {
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const span = (): Span => {
    const file = pick(FILES);
    const length = file.text.length;
    const start = Math.floor(next() * (length + 4)) - 2; // offsets out of the text are clamped
    const end = next() < 0.2 ? start : start + Math.floor(next() * 40);
    return { file, start, end };
  };
  if (shared.length > 0 && next() < 0.1) return pick(shared);
  const kind = depth >= 4 ? "leaf" : pick(["leaf", "array", "object", "object"] as const);
  let node: Located;
  if (kind === "leaf") node = { kind: "leaf", value: pick([1, "s", null, true]), span: span(), partial: false, height: 1 };
  else if (kind === "array") {
    const items = Array.from({ length: Math.floor(next() * 12) }, () => generate(next, depth + 1, shared));
    node = { kind: "array", items, span: span(), partial: false, height: 1 + Math.max(0, ...items.map((i) => i.height)) };
  } else {
    const members = new Map<string, Member>();
    const count = Math.floor(next() * 5);
    for (let i = 0; i < count; i++) members.set(pick(NAMES), { key: span(), node: generate(next, depth + 1, shared) });
    node = { kind: "object", members, span: span(), partial: false, height: 1 + Math.max(0, ...[...members.values()].map((m) => m.node.height)) };
  }
  shared.push(node);
  return node;
}

/** Pointers to ask: every recorded one, and near misses of each. */
function candidates(map: ReadonlyMap<string, unknown>): string[] {
  const asked = new Set<string>(["", "/", "//", "abc", "/zz", "/~2", "/~", "/-1", "/00", "/+1"]);
  for (const pointer of map.keys()) {
    asked.add(pointer);
    asked.add(`${pointer}/zz`);
    asked.add(`${pointer}/0`);
    asked.add(`${pointer}/01`);
    asked.add(`${pointer}/~2`);
    asked.add(`${pointer}/`);
    asked.add(`${pointer}/a/b`);
    asked.add(pointer.replace(/~1/g, "/"));
    asked.add(pointer.replace(/~0/g, "~"));
  }
  return [...asked];
}

const json = (value: unknown) => JSON.stringify(value) ?? "undefined";

describe("location tables", () => {
  it("give every pointer the location the eager map gave, and miss where it missed (800 generated values)", () => {
    for (let seed = 1; seed <= 800; seed++) {
      const next = seededRandom(seed);
      const root = generate(next, 0, []);
      const reference = eagerLocations(root);
      const located = toLocatedValue(root, 1_000_000);
      const table = located.locations;
      expect(isLocationTable(table)).toBe(true);
      for (const pointer of candidates(reference)) {
        // Compared as JSON too, so that the key order of every location is the map's.
        expect(json(findLocation(table, pointer)), `seed ${seed} pointer ${JSON.stringify(pointer)}`).toBe(json(reference.get(pointer)));
      }
      expect(json(locationEntries(table as LocationTable)), `seed ${seed}`).toBe(json([...reference]));
    }
  });

  it("lead locateValue to the same closest location as the map", () => {
    const fallback = { file: "/f", line: 1, column: 1 };
    for (let seed = 2000; seed < 2300; seed++) {
      const root = generate(seededRandom(seed), 0, []);
      const reference = eagerLocations(root);
      const located = toLocatedValue(root, 1_000_000);
      for (const pointer of candidates(reference)) {
        expect(json(locateValue(located, pointer, fallback))).toBe(json(locateValue({ locations: reference }, pointer, fallback)));
      }
    }
  });

  it("are the same after a structured clone and after the analysis cache's packing", () => {
    const root = generate(seededRandom(7), 0, []);
    const reference = eagerLocations(root);
    const located = toLocatedValue(root, 1_000_000);
    const file = FILES[0]!.path;
    const record = { fingerprint: new Map([["read:" + file, "file:x"]]), result: { file, entry: located, wrapped: false, dependencies: [file], diagnostics: [] } } as unknown as Parameters<typeof packRecord>[0];
    const packed = packRecord(record);
    expect(packed).toBe(record); // nothing to pack: the table is already numbers
    const copy = unpackRecord(v8.deserialize(v8.serialize(packed)) as typeof packed);
    const table = (copy.result as { entry: { locations: LocationTable } }).entry.locations;
    expect(table.numbers).toBeInstanceOf(Int32Array);
    for (const pointer of candidates(reference)) expect(json(findLocation(table, pointer))).toBe(json(reference.get(pointer)));
  });

  it("end a lookup in a damaged table (a zero or negative subtree size, rows past the numbers) instead of looping", () => {
    const row = (size: number): number[] => [size, 0, 1, 1, -1, 0, -1, 0, 0, 0, 0];
    const zero: LocationTable = { names: [null, "a", "b"], files: ["/x.ts"], numbers: Int32Array.from([...row(3), ...row(0), ...row(1)]) };
    expect(findLocation(zero, "/b")).toEqual({ value: { file: "/x.ts", line: 1, column: 1 } });
    expect(findLocation(zero, "/c")).toBeUndefined();
    const negative: LocationTable = { names: [null, "a"], files: ["/x.ts"], numbers: Int32Array.from([...row(-5), ...row(-1)]) };
    expect(findLocation(negative, "/a")).toBeUndefined();
    const short: LocationTable = { names: [null, "a", "b"], files: ["/x.ts"], numbers: Int32Array.from([...row(99), ...row(1)]) };
    expect(findLocation(short, "/zz")).toBeUndefined();
    expect(locationEntries(zero).map(([pointer]) => pointer)).toEqual(["", "/a", "/b"]);
  });

  it("are not built for definition modules (withLocations false)", () => {
    const located = toLocatedValue(generate(seededRandom(3), 0, []), 1_000_000, false);
    expect(located.locations).toEqual(new Map());
  });
});

describe("writeLineColumn", () => {
  it("writes what lineColumnOf returns, clamped offsets, byte order mark and every line end included", () => {
    const texts = ["", "\uFEFF", "\uFEFFa\r\nb", "a\rb\nc\r\n\u2028d\u2029e", "x".repeat(50), "\n\n\r\r\n"];
    for (const text of texts) {
      const map = createTextFile("/t", "1", text).lineMap();
      for (let offset = -3; offset <= text.length + 3; offset++) {
        const out = [0, 0, 0];
        writeLineColumn(map, offset, out, 1);
        const expected = lineColumnOf(map, offset);
        expect([out[1], out[2]], `${JSON.stringify(text)} @ ${offset}`).toEqual([expected.line, expected.column]);
      }
    }
  });
});
