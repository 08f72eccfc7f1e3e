/**
 * The validator code cache (`contract/validator-code-cache.ts`, issue 14 item 3): a validator
 * evaluated from the cache gives the very verdicts and messages of an ajv compile, for every
 * dialect and the keywords whose code needs ajv's runtime helpers or ajv-formats; a second
 * validator compiles nothing; a damaged file, code that does not run, a folder others can write
 * and `ASSEMBLY_LINE_CODE_CACHE=0` are never used (and never crash).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ValidatorCodeCache } from "../../contract/validator-code-cache.js";
import { InputValidator } from "../../runtime-min/execution/validate-input.js";
import { tempDir } from "../helpers/temp-tree.js";

/** Schemas and inputs (valid and not) whose validators use what a cached module must `require`. */
const CASES: readonly { readonly schema: Record<string, unknown>; readonly inputs: readonly unknown[] }[] = [
  {
    schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"], additionalProperties: false },
    inputs: [{ message: "hi" }, { message: 3 }, {}, { message: "hi", mesage: "typo" }],
  },
  // ajv-formats' formats (`require("ajv-formats/dist/formats")`), and `maxLength` (ajv's `ucs2length`).
  {
    schema: { type: "object", properties: { url: { type: "string", format: "uri" }, at: { type: "string", format: "date-time" }, name: { type: "string", maxLength: 3 } } },
    inputs: [{ url: "https://example.com", at: "2026-12-05T10:00:00Z", name: "😀😀😀" }, { url: "not a uri", at: "yesterday", name: "😀😀😀😀" }],
  },
  // `uniqueItems` and `const`/`enum` of objects (ajv's `equal`), `$defs`/`$ref`, unicode patterns.
  {
    schema: {
      type: "object",
      $defs: { tag: { type: "string", pattern: "^\\p{L}+$" } },
      properties: { tags: { type: "array", items: { $ref: "#/$defs/tag" }, uniqueItems: true }, mode: { enum: [{ a: 1 }, "plain"] } },
      dependentRequired: { tags: ["mode"] },
    },
    inputs: [{ tags: ["été", "hiver"], mode: "plain" }, { tags: ["a", "a", "1"] }, { mode: { a: 2 } }],
  },
  { schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "array", items: [{ type: "string" }], additionalItems: false }, inputs: [["a"], ["a", "b"], [1]] },
  { schema: { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", properties: { n: { type: "integer", minimum: 1 } }, unevaluatedProperties: false }, inputs: [{ n: 2 }, { n: 0, x: 1 }] },
  { schema: { type: "object", properties: { choice: { oneOf: [{ type: "string" }, { type: "number" }] } } }, inputs: [{ choice: "x" }, { choice: true }] },
];

/** Every message `validator` gives for the cases' inputs, in order. */
async function messages(validator: InputValidator): Promise<(string | undefined)[]> {
  const out: (string | undefined)[] = [];
  for (const { schema, inputs } of CASES) for (const input of inputs) out.push((await validator.validate(schema, input))?.message);
  return out;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the validator code cache", () => {
  it("gives a later validator the same verdicts and messages without compiling, for every dialect and helper", async () => {
    const dir = path.join(tempDir("al-validator-cache-"), "cache");
    const compiled = await messages(new InputValidator({ codeCacheDir: null }));
    expect(compiled.filter((message) => message !== undefined).length).toBeGreaterThan(CASES.length);

    const first = new InputValidator({ codeCacheDir: dir });
    expect(await messages(first)).toEqual(compiled);
    expect(first.codeCacheStats()).toEqual({ hits: 0, misses: CASES.length, writes: CASES.length });
    expect(fs.readdirSync(dir).filter((name) => /^ajv-[0-9a-f]{64}\.bin$/.test(name))).toHaveLength(CASES.length);

    const second = new InputValidator({ codeCacheDir: dir });
    expect(await messages(second)).toEqual(compiled);
    expect(second.codeCacheStats()).toEqual({ hits: CASES.length, misses: 0, writes: 0 });
  });

  it("compiles again, and rewrites the file, when a cached file is damaged or its code does not run", async () => {
    const dir = path.join(tempDir("al-validator-cache-"), "cache");
    const schema = CASES[0]!.schema;
    await new InputValidator({ codeCacheDir: dir }).validate(schema, {});
    const [name] = fs.readdirSync(dir).filter((entry) => entry.startsWith("ajv-"));
    const file = path.join(dir, name!);
    const expected = (await new InputValidator({ codeCacheDir: null }).validate(schema, { message: 3 }))?.message;

    // One byte of the payload changed: the seal no longer matches.
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 0xff;
    fs.writeFileSync(file, bytes);
    const afterDamage = new InputValidator({ codeCacheDir: dir });
    expect((await afterDamage.validate(schema, { message: 3 }))?.message).toBe(expected);
    expect(afterDamage.codeCacheStats()).toEqual({ hits: 0, misses: 1, writes: 1 });

    // Sealed, but code that throws, or exports no function.
    const cache = new ValidatorCodeCache(dir);
    const key = name!.slice("ajv-".length, -".bin".length);
    for (const code of ["throw new Error('broken');", "module.exports = 42;"]) {
      cache.store(key, code);
      const validator = new InputValidator({ codeCacheDir: dir });
      expect((await validator.validate(schema, { message: 3 }))?.message).toBe(expected);
      expect(validator.codeCacheStats()).toEqual({ hits: 0, misses: 1, writes: 1 });
    }
    expect(new InputValidator({ codeCacheDir: dir }).codeCacheStats()).toEqual({ hits: 0, misses: 0, writes: 0 });
    const healed = new InputValidator({ codeCacheDir: dir });
    await healed.validate(schema, {});
    expect(healed.codeCacheStats().hits).toBe(1);
  });

  it("keeps validators of one schema text in two dialects apart", async () => {
    const dir = path.join(tempDir("al-validator-cache-"), "cache");
    // The same bare schema: in 2020-12 `prefixItems` checks the first item and `items: false`
    // refuses the rest; draft-07 knows no `prefixItems`, so `items: false` refuses every item.
    const body = { type: "array", prefixItems: [{ type: "string" }], items: false };
    const draft07 = { $schema: "http://json-schema.org/draft-07/schema#", ...body };
    for (let round = 0; round < 2; round++) {
      const validator = new InputValidator({ codeCacheDir: dir });
      expect(await validator.validate(body, ["a"]), `round ${round}`).toBeUndefined();
      expect(await validator.validate(draft07, ["a"]), `round ${round}`).not.toBeUndefined();
      expect(validator.codeCacheStats(), `round ${round}`).toEqual(round === 0 ? { hits: 0, misses: 2, writes: 2 } : { hits: 2, misses: 0, writes: 0 });
    }
  });

  it("never caches a schema with a __proto__ key, whose standalone code would decide otherwise", async () => {
    const dir = path.join(tempDir("al-validator-cache-"), "cache");
    // As the compiler keeps it from a JSON schema: an own `__proto__` key, data like any other.
    const schema = JSON.parse('{"type":"object","properties":{"v":{"const":{"__proto__":{"a":1}}}},"additionalProperties":false}') as Record<string, unknown>;
    const same = JSON.parse('{"v":{"__proto__":{"a":1}}}') as unknown;
    for (let round = 0; round < 2; round++) {
      const validator = new InputValidator({ codeCacheDir: dir });
      expect(await validator.validate(schema, same), `round ${round}`).toBeUndefined();
      expect((await validator.validate(schema, { v: {} }))?.message, `round ${round}`).toContain("`v` must be");
      expect(validator.codeCacheStats(), `round ${round}`).toEqual({ hits: 0, misses: 0, writes: 0 });
    }
    expect(fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith("ajv-")) : []).toEqual([]);
  });

  it("writes its files readable by this user only", async () => {
    const dir = path.join(tempDir("al-validator-cache-"), "cache");
    await new InputValidator({ codeCacheDir: dir }).validate(CASES[0]!.schema, {});
    const [name] = fs.readdirSync(dir).filter((entry) => entry.startsWith("ajv-"));
    if (process.platform !== "win32") expect(fs.statSync(path.join(dir, name!)).mode & 0o077).toBe(0);
  });

  it("keys a validator by dialect, options and schema text, and gives no key when off or for a __proto__ text", () => {
    expect(new ValidatorCodeCache(null).keyOf("2020-12", {}, "{}")).toBeUndefined();
    const cache = new ValidatorCodeCache(path.join(tempDir("al-validator-cache-"), "cache"));
    expect(cache.keyOf("2020-12", {}, '{"const":{"__proto__":1}}')).toBeUndefined();
    const key = cache.keyOf("2020-12", { allErrors: true }, '{"type":"string"}');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(cache.keyOf("2020-12", { allErrors: true }, '{"type":"string"}')).toBe(key);
    expect(cache.keyOf("draft-07", { allErrors: true }, '{"type":"string"}')).not.toBe(key);
    expect(cache.keyOf("2020-12", { allErrors: false }, '{"type":"string"}')).not.toBe(key);
    expect(cache.keyOf("2020-12", { allErrors: true }, '{"type":"number"}')).not.toBe(key);
  });

  it.runIf(process.platform !== "win32")("never reads or writes a folder others can write, nor any folder when ASSEMBLY_LINE_CODE_CACHE=0", async () => {
    const shared = path.join(tempDir("al-validator-cache-"), "shared");
    fs.mkdirSync(shared, { mode: 0o777 });
    fs.chmodSync(shared, 0o777);
    const planted = new ValidatorCodeCache(shared);
    expect(planted.enabled).toBe(false);
    const inShared = new InputValidator({ codeCacheDir: shared });
    await inShared.validate(CASES[0]!.schema, {});
    expect(inShared.codeCacheStats()).toEqual({ hits: 0, misses: 0, writes: 0 });
    expect(fs.readdirSync(shared)).toEqual([]);

    vi.stubEnv("ASSEMBLY_LINE_CODE_CACHE", "0");
    const own = path.join(tempDir("al-validator-cache-"), "own");
    const off = new InputValidator({ codeCacheDir: own });
    await off.validate(CASES[0]!.schema, {});
    expect(off.codeCacheStats()).toEqual({ hits: 0, misses: 0, writes: 0 });
    expect(fs.existsSync(own)).toBe(false);
  });
});
