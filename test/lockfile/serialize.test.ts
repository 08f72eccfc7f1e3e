import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { setOwn } from "../../common/json-value.js";
import { canonicalCopy, canonicalJsonText, serializeCanonicalJson } from "../../common/canonical-json.js";
import { serializeLockfile } from "../../lockfile/serialize-lockfile.js";
import { tempDir } from "../helpers/temp-tree.js";
import { sampleLock } from "./helpers.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TRICKY_KEYS = ["string_decoder", "a", "10", "Z", "string-width", "9"];
const CODE_UNIT_ORDER = ["10", "9", "Z", "a", "string-width", "string_decoder"];

function keysOfText(text: string): string[] {
  return [...text.matchAll(/^ {2}"([^"]+)":/gm)].map((m) => m[1]!);
}

describe("serializeCanonicalJson", () => {
  it("writes keys in code-unit order at every depth, two-space indent, LF and a trailing newline", () => {
    const text = serializeCanonicalJson({ b: 1, "10": 2, a: { z: [], "9": {}, y: [true, null, "x"] } });
    expect(text).toBe(
      '{\n  "10": 2,\n  "a": {\n    "9": {},\n    "y": [\n      true,\n      null,\n      "x"\n    ],\n    "z": []\n  },\n  "b": 1\n}\n',
    );
    expect(text.includes("\r")).toBe(false);
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
  });

  it("orders integer-like keys as strings, unlike JSON.stringify", () => {
    const value: Record<string, number> = {};
    for (const key of TRICKY_KEYS) value[key] = 1;
    expect(keysOfText(JSON.stringify(value, null, 2))).not.toEqual(CODE_UNIT_ORDER); // what the serializer must avoid
    expect(keysOfText(serializeCanonicalJson(value))).toEqual(CODE_UNIT_ORDER);
  });

  it("puts firstKeys first at the root only", () => {
    const text = serializeCanonicalJson({ z: 1, lockfileVersion: 1, a: { lockfileVersion: 2, b: 1 } }, { firstKeys: ["lockfileVersion"] });
    expect(text).toBe('{\n  "lockfileVersion": 1,\n  "a": {\n    "b": 1,\n    "lockfileVersion": 2\n  },\n  "z": 1\n}\n');
  });

  it("keeps __proto__ as data and leaves out undefined members", () => {
    const object = {};
    setOwn(object, "__proto__", { polluted: true });
    setOwn(object, "skip", undefined);
    expect(serializeCanonicalJson(object)).toBe('{\n  "__proto__": {\n    "polluted": true\n  }\n}\n');
  });

  it("escapes strings exactly as JSON.stringify does", () => {
    const text = serializeCanonicalJson({ s: 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 é' });
    expect(JSON.parse(text)).toEqual({ s: 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 é' });
    expect(text).toContain("\\ud800");
  });

  it("refuses values JSON cannot represent, naming the path", () => {
    expect(() => serializeCanonicalJson({ a: [1, Number.NaN] })).toThrow(/a\[1\]/);
    expect(() => serializeCanonicalJson({ a: [undefined] })).toThrow(/undefined at a\[0\]/);
    expect(() => serializeCanonicalJson({ m: new Map() })).toThrow(/Map at m/);
    expect(() => serializeCanonicalJson({ n: 10n })).toThrow(/bigint/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => serializeCanonicalJson(cyclic)).toThrow(/cycle at self/);
  });

  it("writes the same value twice without a cycle error (shared, not cyclic)", () => {
    const shared = { x: 1 };
    expect(serializeCanonicalJson({ a: shared, b: shared })).toBe('{\n  "a": {\n    "x": 1\n  },\n  "b": {\n    "x": 1\n  }\n}\n');
  });
});

describe("serializeCanonicalJson on many values (its fast writer, issue 14 item 4)", () => {
  /** A reference for values whose keys are not integer-like (so property order is insertion order): sort keys, then JSON.stringify. */
  const reference = (value: unknown): string => {
    const sorted = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(sorted);
      if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined).map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
      return v;
    };
    return `${JSON.stringify(sorted(value), null, 2)}\n`;
  };
  it("writes what sorting the keys and JSON.stringify write, for 2,000 generated values", () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const keys = ["a", "B", "b", "é", "z_", "z-", "\u2028x", "key with space", "__proto__x", "Zeta", "\ud83d\ude00", ""];
    const value = (depth: number): unknown => {
      switch (depth > 3 ? next(4) : next(7)) {
        case 0: return next(2) === 0;
        case 1: return [0, -0, 1.5, -1e21, 1e-7, 42][next(6)];
        case 2: return ["", "plain", 'quote " and \\', "line\nbreak", "\u0000\u001f", "ünïcödé \ud83d\ude00"][next(6)];
        case 3: return null;
        case 4: return Array.from({ length: next(4) }, () => value(depth + 1));
        default: {
          const object: Record<string, unknown> = {};
          for (let i = next(5); i > 0; i--) object[keys[next(keys.length)]!] = next(6) === 0 ? undefined : value(depth + 1);
          return object;
        }
      }
    };
    for (let i = 0; i < 2000; i++) {
      const generated = value(0);
      expect(serializeCanonicalJson(generated)).toBe(reference(generated));
    }
  });

  it("writes a sparse array as it always did, and still refuses what JSON cannot hold at any depth", () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(serializeCanonicalJson({ a: [1, , 2] })).toBe('{\n  "a": [\n    1,\n,\n    2\n  ]\n}\n');
    let deep: Record<string, unknown> = { leaf: () => 1 };
    for (let i = 0; i < 600; i++) deep = { d: deep };
    expect(() => serializeCanonicalJson(deep)).toThrow(/function at d\.d\./);
  });
});

describe("canonicalCopy (the native path of serializeCanonicalJson, issue 14 item 1)", () => {
  it("copies a value with its keys inserted in canonical order, firstKeys at the root only", () => {
    const copy = canonicalCopy({ z: 1, lockfileVersion: 1, a: { lockfileVersion: 2, b: [{ y: 1, x: undefined, w: null }] } }, ["lockfileVersion"]);
    expect(JSON.stringify(copy)).toBe('{"lockfileVersion":1,"a":{"b":[{"w":null,"y":1}],"lockfileVersion":2},"z":1}');
    const value = { b: "x", a: [true, 1.5, { d: {}, c: [] }] };
    expect(`${JSON.stringify(canonicalCopy(value), null, 2)}\n`).toBe(serializeCanonicalJson(value));
  });

  it("returns what is already canonical as it is, and copies only from the first difference", () => {
    const sorted = { a: [1, { b: "x", c: null }], d: { e: true } };
    expect(canonicalCopy(sorted)).toBe(sorted);
    const inner = { b: "x", c: null };
    const mixed = { a: inner, d: { f: 1, e: 2 }, g: [inner, { z: 1, y: 2 }] };
    const copy = canonicalCopy(mixed) as typeof mixed;
    expect(copy).not.toBe(mixed);
    expect(copy.a).toBe(inner);
    expect(copy.g).not.toBe(mixed.g);
    expect(copy.g[0]).toBe(inner);
    expect(JSON.stringify(copy)).toBe('{"a":{"b":"x","c":null},"d":{"e":2,"f":1},"g":[{"b":"x","c":null},{"y":2,"z":1}]}');
    // An `undefined` member is left out of a copy, even where the keys are in order.
    const withUndefined = { a: 1, b: undefined, c: 3 };
    expect(JSON.stringify(canonicalCopy(withUndefined))).toBe('{"a":1,"c":3}');
    expect(canonicalCopy(withUndefined)).not.toBe(withUndefined);
    // The input is never changed.
    expect(Object.keys(mixed.d)).toEqual(["f", "e"]);
  });

  it("declines what JSON.stringify of a copy would not write canonically", () => {
    // An array JSON.stringify would write through a toJSON (its own, or a subclass's) is not handed
    // back as it is: the writer then writes its items (helper-72's review).
    const ownToJson = Object.assign([1, 2], { toJSON: () => "hijacked" });
    class Sneaky extends Array {
      toJSON(): unknown {
        return { evil: true };
      }
    }
    const subclass = Sneaky.from([1, 2]);
    for (const array of [ownToJson, subclass]) {
      expect(canonicalCopy({ a: array })).toBeUndefined();
      expect(serializeCanonicalJson({ a: array })).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}\n');
    }
    // Integer-like keys: property order is not insertion order (the writers handle them).
    expect(canonicalCopy({ a: { "10": 1, "9": 2 } })).toBeUndefined();
    expect(canonicalCopy({ "0": 1 })).toBeUndefined();
    // `__proto__` would set the copy's prototype.
    expect(canonicalCopy(JSON.parse('{"__proto__": {"x": 1}}'))).toBeUndefined();
    // eslint-disable-next-line no-sparse-arrays
    for (const bad of [{ n: Infinity }, { a: [1, undefined] }, [1, , 2], { d: new Date(0) }, { f: () => 1 }, { n: 1n }, { s: Symbol("s") }]) {
      expect(canonicalCopy(bad)).toBeUndefined();
    }
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 600; i++) deep = { d: deep };
    expect(canonicalCopy(deep)).toBeUndefined();
    // Keys that only look numeric are copied: a leading zero, a sign, a fraction.
    expect(JSON.stringify(canonicalCopy({ "01": 1, "-1": 2, "1.5": 3, "1e3": 4 }))).toBe('{"-1":2,"01":1,"1.5":3,"1e3":4}');
  });

  it("gives serializeCanonicalJson the same text on declined values (integer-like keys, __proto__)", () => {
    const value = JSON.parse('{"b": {"10": 1, "9": [], "a": {}}, "__proto__": {"x": 1}, "a": 1}') as unknown;
    expect(serializeCanonicalJson(value)).toBe('{\n  "__proto__": {\n    "x": 1\n  },\n  "a": 1,\n  "b": {\n    "10": 1,\n    "9": [],\n    "a": {}\n  }\n}\n');
  });
});

describe("serializeLockfile", () => {
  it("writes lockfileVersion first, then sorted keys, and round-trips", () => {
    const lock = sampleLock();
    const text = serializeLockfile(lock);
    expect(text.startsWith('{\n  "lockfileVersion": 1,\n  "surfaces": {\n    ".": {\n')).toBe(true);
    expect(text.endsWith("}\n")).toBe(true);
    expect(JSON.parse(text)).toEqual(lock);
    // tool keys sorted: "bash" before "echo"; descriptor keys sorted: aliases … visibility
    expect(text.indexOf('"bash"')).toBeLessThan(text.indexOf('"echo"'));
    const echo = text.slice(text.indexOf('"echo"'), text.indexOf('"openui"'));
    const keys = [...echo.matchAll(/^ {14}"([^"]+)":/gm)].map((m) => m[1]);
    expect(keys).toEqual(["aliases", "config", "definition", "description", "inputSchema", "requiredConfig", "tags", "visibility"]);
  });

  it("is independent of the insertion order of keys", () => {
    const lock = sampleLock();
    const reversed = JSON.parse(JSON.stringify(lock), (_key, value: unknown) =>
      value !== null && typeof value === "object" && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value as object).reverse())
        : value,
    );
    expect(serializeLockfile(reversed)).toBe(serializeLockfile(lock));
  });

  it("gives identical bytes under LANG=C and LANG=en_US.UTF-8", async () => {
    const dir = tempDir();
    const script = path.join(dir, "serialize.mjs");
    const entry = path.join(dir, "entry.ts");
    fs.writeFileSync(
      entry,
      [
        `import { serializeLockfile } from ${JSON.stringify(path.join(repoRoot, "lockfile/serialize-lockfile.ts"))};`,
        `const keys = ${JSON.stringify(TRICKY_KEYS)};`,
        "const config = Object.fromEntries(keys.map((k) => [k, k]));",
        "const lock = { lockfileVersion: 1, surfaces: { '.': { capabilities: Object.fromEntries(keys.map((k) => [k, { source: { type: 'local', path: 'plugins/' + k }, integrity: 'x', config, tools: {} }])) } } };",
        "process.stdout.write(JSON.stringify({ text: serializeLockfile(lock), locale: [...keys].sort((a, b) => a.localeCompare(b)) }));",
      ].join("\n"),
    );
    await build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", outfile: script, logLevel: "silent" });
    const run = (lang: string) => {
      const result = spawnSync(process.execPath, [script], { env: { ...process.env, LANG: lang, LC_ALL: lang, LC_COLLATE: lang }, encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { text: string; locale: string[] };
    };
    const c = run("C");
    const us = run("en_US.UTF-8");
    expect(us.text).toBe(c.text);
    const capabilityKeys = [...c.text.matchAll(/^ {8}"([^"]+)": \{$/gm)].map((m) => m[1]);
    expect(capabilityKeys).toEqual(CODE_UNIT_ORDER);
    // The test has teeth: a localeCompare sort gives another order in the same child.
    expect(us.locale).not.toEqual(CODE_UNIT_ORDER);
  });
});

describe("canonicalJsonText (RFC 8785 via canonicalize)", () => {
  it("writes keys in code-unit order at every depth, compactly, whatever the insertion order", () => {
    expect(canonicalJsonText({ b: [1, undefined], a: { "10": 1, "9": 2 } })).toBe('{"a":{"10":1,"9":2},"b":[1,null]}');
    expect(canonicalJsonText({ z: 1, "😀": 2, "\uffff": 3, é: 4, A: 5 })).toBe('{"A":5,"z":1,"é":4,"😀":2,"\uffff":3}');
    expect(canonicalJsonText({ a: { y: 1, x: 2 } })).toBe(canonicalJsonText({ a: { x: 2, y: 1 } }));
  });

  it("matches the key order of serializeCanonicalJson and its string and number spellings", () => {
    const value = { "10": -0, "9": 1e21, b: 0.1, a: "line\n\"q\"\u2028\ud800", "": [true, null, {}] };
    // The pretty text without its layout (no string here holds a space or a raw line end).
    const compacted = serializeCanonicalJson(value).replace(/\n */g, "").replace(/": /g, '":');
    expect(canonicalJsonText(value)).toBe(compacted);
  });

  it("keeps JSON.stringify's lenient rules for values a host passes through the JS API", () => {
    expect(canonicalJsonText({ f: () => 1, u: undefined, n: Number.NaN, i: Number.POSITIVE_INFINITY, d: new Date(0) })).toBe('{"d":"1970-01-01T00:00:00.000Z","i":null,"n":null}');
    expect(canonicalJsonText(undefined)).toBe("null");
    expect(canonicalJsonText([undefined, () => 1])).toBe("[null,null]");
  });
});
