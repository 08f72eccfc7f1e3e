/**
 * The precheck (`schema-precheck.ts`, issue 14 item 1) only skips work: every verdict and every
 * diagnostic is the one ajv's meta-schema check and strict compile give. Compared here on
 * hand-written schemas that exercise each strict rule, and on a few thousand generated ones
 * (a fixed seed) built from the keywords the precheck reads plus near misses of each.
 */
import { describe, expect, it } from "vitest";
import { setOwn, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { checkJsonSchema, compileJobOf, selectDialect } from "../../compiler/validation/json-schema.js";
import { acceptedWithoutAjv, judgeSchema, judgeWithAjv, tablesOf } from "../../compiler/validation/schema-judge.js";
import { rulesByKeyword, type AjvRule } from "../../compiler/validation/schema-precheck.js";
import type { SchemaCompiler } from "../../compiler/validation/schema-compiler.js";
import type { SchemaDialect } from "../../contract/ajv.js";
import { seededRandom } from "../helpers/seeded-random.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema";
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

/** The compiler as it was before the precheck: every schema goes through ajv. */
const ajvOnly: SchemaCompiler = { announce() {}, verdict: (dialect, schema) => judgeWithAjv(dialect, schema), close() {} };
/** The compiler as it is: the precheck first. */
const withPrecheck: SchemaCompiler = { announce() {}, verdict: (dialect, schema) => judgeSchema(dialect, schema), close() {} };

const fallback = { file: "/p/ai.assemblyline/index.ts", line: 1, column: 1 };
const subjectOf = (schema: JsonValue) => ({ role: "inputSchema" as const, located: { value: { s: schema }, locations: new Map() }, pointer: "/s", fallback });

/** Schemas that each exercise one strict-mode or meta-schema rule (and some that pass). */
const STRICT_RULES: { readonly name: string; readonly schema: JsonObject; readonly accepted: boolean }[] = [
  { name: "plain object", schema: { type: "object", properties: { q: { type: "string", minLength: 1 } }, required: ["q"], additionalProperties: false }, accepted: true },
  { name: "union type", schema: { type: "object", properties: { q: { type: ["string", "null"] } } }, accepted: true },
  { name: "formats, enums, bounds, nested arrays", schema: { type: "object", properties: { at: { type: "string", format: "date-time" }, n: { type: "integer", minimum: 0, maximum: 9, multipleOf: 3 }, e: { enum: ["a", 1, null] }, l: { type: "array", items: { type: "object", properties: { k: { const: "x" } } }, minItems: 1, uniqueItems: true } } }, accepted: true },
  { name: "anyOf keeps the context type", schema: { type: "object", properties: { v: { type: ["string", "number"], anyOf: [{ type: "string", maxLength: 3 }, { type: "integer" }] } } }, accepted: true },
  { name: "vendor keyword", schema: { type: "object", "x-ui": "form", properties: { q: { type: "string", "x-hint": true } } }, accepted: true },
  { name: "draft-07, https spelling", schema: { $schema: "https://json-schema.org/draft-07/schema", type: "object", properties: { q: { type: "string" } } }, accepted: true },
  { name: "unknown keyword", schema: { type: "object", properties: { q: { type: "string", min: 1 } } }, accepted: false },
  { name: "unknown format", schema: { type: "object", properties: { q: { type: "string", format: "not-a-format" } } }, accepted: false },
  { name: "required not defined (strictRequired)", schema: { type: "object", properties: {}, required: ["missing"] }, accepted: false },
  { name: "required named like an Object member", schema: { type: "object", properties: { a: {} }, required: ["toString"] }, accepted: false },
  { name: "missing type for keyword (strictTypes)", schema: { type: "object", properties: { q: { minimum: 1 } } }, accepted: false },
  { name: "keyword of another type (strictTypes)", schema: { type: "object", properties: { q: { type: "string", minimum: 1 } } }, accepted: false },
  { name: "type not allowed by context (strictTypes)", schema: { type: "object", properties: { q: { type: "string", anyOf: [{ type: "number" }] } } }, accepted: false },
  { name: "integer narrows number", schema: { type: "object", properties: { q: { type: "number", allOf: [{ type: "integer", maximum: 3 }] } } }, accepted: true },
  { name: "bad $ref", schema: { type: "object", properties: { q: { $ref: "#/$defs/nowhere" } } }, accepted: false },
  { name: "good $ref", schema: { type: "object", $defs: { s: { type: "string" } }, properties: { q: { $ref: "#/$defs/s" } } }, accepted: false },
  { name: "wrong dialect keyword (definitions in 2020-12 is known, $defs in draft-07 is not)", schema: { $schema: DRAFT_07, type: "object", $defs: { s: { type: "string" } } }, accepted: false },
  { name: "meta-schema: bad type name", schema: { type: "object", properties: { q: { type: "strin" } } }, accepted: false },
  { name: "meta-schema: negative bound", schema: { type: "object", minProperties: -1 }, accepted: false },
  { name: "meta-schema: enum not a list", schema: { type: "object", properties: { q: { enum: "x" } } }, accepted: false },
  { name: "empty enum (ajv's compile)", schema: { type: "object", properties: { q: { enum: [] } } }, accepted: false },
  { name: "draft-07: duplicate enum values", schema: { $schema: DRAFT_07, type: "object", properties: { q: { enum: ["a", "a"] } } }, accepted: false },
  { name: "meta-schema: \\Z in a pattern", schema: { type: "object", properties: { q: { type: "string", pattern: "a\\Z" } } }, accepted: false },
  { name: "invalid pattern", schema: { type: "object", properties: { q: { type: "string", pattern: "(" } } }, accepted: false },
  { name: "tuple without bounds (strictTuples)", schema: { $schema: DRAFT_07, type: "object", properties: { t: { type: "array", items: [{ type: "string" }] } } }, accepted: false },
  { name: "if without then", schema: { type: "object", if: { properties: { a: { const: 1 } } } }, accepted: false },
  { name: "nested $schema", schema: { type: "object", properties: { q: { $schema: DRAFT_2020, type: "string" } } }, accepted: false },
  { name: "$id", schema: { $id: "https://example.com/s", type: "object" }, accepted: false },
  { name: "2019-09 with a tuple", schema: { $schema: DRAFT_2019, type: "object", properties: { t: { type: "array", items: [{ type: "string" }], minItems: 1, additionalItems: false } } }, accepted: false },
];

describe("schema precheck: same verdicts and diagnostics as ajv alone", () => {
  for (const { name, schema, accepted } of STRICT_RULES) {
    it(name, () => {
      const dialect = selectDialect(schema)!;
      expect(acceptedWithoutAjv(dialect, schema)).toBe(accepted);
      expect(judgeSchema(dialect, schema)).toEqual(judgeWithAjv(dialect, schema));
      expect(checkJsonSchema(schema, subjectOf(schema), withPrecheck)).toEqual(checkJsonSchema(schema, subjectOf(schema), ajvOnly));
    });
  }

  it("never accepts a generated schema ajv refuses (and accepts many it accepts)", () => {
    const random = seededRandom(14);
    let proven = 0;
    let refusedByAjv = 0;
    for (let i = 0; i < 3_000; i++) {
      const dialect = (["draft-07", "2019-09", "2020-12"] as const)[i % 3]!;
      const schema = generateRoot(random, dialect);
      const job = compileJobOf(schema);
      if (!job) continue;
      const byAjv = judgeWithAjv(job.dialect, job.schema);
      if (byAjv.metaErrors !== null || byAjv.compileError !== null) refusedByAjv++;
      if (acceptedWithoutAjv(job.dialect, job.schema)) {
        proven++;
        expect({ schema, verdict: byAjv }).toEqual({ schema, verdict: { metaErrors: null, compileError: null } });
      }
      expect(judgeSchema(job.dialect, job.schema)).toEqual(byAjv);
    }
    // The generator must exercise both sides: schemas the precheck proves, and near misses ajv refuses.
    expect(proven).toBeGreaterThan(600);
    expect(refusedByAjv).toBeGreaterThan(600);
  });
});

type Random = () => number;
/** A schema under construction. */
type Draft = Record<string, JsonValue>;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"];
const NAMES = ["a", "b", "query", "limit", "__proto__", "toString", "x-name", "$id"];

/** A root schema in `dialect`, mostly well formed, with near misses of every rule at a low rate. */
function generateRoot(random: Random, dialect: SchemaDialect): Draft {
  const root = generateObject(random, 0, "object");
  root["type"] = "object";
  const uri = { "draft-07": DRAFT_07, "2019-09": DRAFT_2019, "2020-12": DRAFT_2020 }[dialect];
  if (dialect !== "2020-12" || random() < 0.3) root["$schema"] = uri;
  return root;
}

function generateSchema(random: Random, depth: number, context?: string): JsonValue {
  const r = random();
  if (r < 0.05) return random() < 0.5;
  if (r < 0.08) return pick(random, [null, 3, "string", []]); // not a schema
  return generateObject(random, depth, context);
}

function generateObject(random: Random, depth: number, context?: string): Draft {
  const schema: Draft = {};
  const near = (): boolean => random() < 0.04;
  const type = random() < 0.85 ? (context ?? pick(random, TYPES)) : undefined;
  if (type !== undefined) schema["type"] = near() ? pick(random, ["strin", 7, [], ["string", "string"]]) : random() < 0.15 ? [type, "null"] : type;
  if (random() < 0.3) schema["description"] = near() ? 5 : "words";
  if (random() < 0.1) schema["title"] = "T";
  if (random() < 0.05) schema["default"] = pick(random, [1, "x", null, { a: 1 }]);
  if (random() < 0.05) schema["examples"] = near() ? "x" : ["x"];
  if (random() < 0.05) schema["deprecated"] = near() ? "yes" : true;
  if (random() < 0.03) schema["$comment"] = "c";
  const typeOfKeywords = near() || type === undefined ? pick(random, TYPES) : type;
  switch (typeOfKeywords) {
    case "object": {
      if (depth < 4) {
        const properties: Draft = {};
        for (let i = 0; i < 1 + Math.floor(random() * 3); i++) setOwn(properties, pick(random, NAMES), generateSchema(random, depth + 1)); // own, as JSON.parse makes "__proto__"
        schema["properties"] = properties;
        if (random() < 0.5) {
          const names = Object.keys(properties);
          schema["required"] = near() ? ["missing"] : near() ? "a" : names.slice(0, 1 + Math.floor(random() * names.length));
        }
      }
      if (random() < 0.3) schema["additionalProperties"] = random() < 0.5 ? false : depth < 4 ? generateSchema(random, depth + 1) : true;
      if (random() < 0.1) schema["minProperties"] = near() ? -1 : 1;
      break;
    }
    case "array":
      if (depth < 4 && random() < 0.8) schema["items"] = near() ? [generateSchema(random, depth + 1)] : generateSchema(random, depth + 1);
      if (random() < 0.2) schema["minItems"] = near() ? 1.5 : 1;
      if (random() < 0.2) schema["uniqueItems"] = near() ? "yes" : true;
      break;
    case "string":
      if (random() < 0.3) schema["maxLength"] = near() ? -2 : 10;
      if (random() < 0.2) schema["pattern"] = near() ? pick(random, ["(", "a\\Z", "\\p{Letter}+", "[a-z"]) : "^[a-z]+$";
      if (random() < 0.2) schema["format"] = near() ? pick(random, ["not-a-format", "toString", 5]) : pick(random, ["date-time", "email", "uri", "uuid"]);
      break;
    case "number":
    case "integer":
      if (random() < 0.3) schema["minimum"] = near() ? "0" : 0;
      if (random() < 0.3) schema["maximum"] = 100;
      if (random() < 0.1) schema["multipleOf"] = near() ? 0 : 0.5;
      if (random() < 0.1) schema["exclusiveMinimum"] = near() ? true : -1;
      break;
  }
  if (random() < 0.15) schema["enum"] = near() ? pick(random, [[], "x", ["a", "a"], [{ a: 1 }]]) : ["a", "b", 1, null];
  if (random() < 0.05) schema["const"] = "x";
  if (depth < 3 && random() < 0.12) {
    const list = pick(random, ["anyOf", "oneOf", "allOf"]);
    schema[list] = near() ? [] : [generateSchema(random, depth + 1, random() < 0.7 ? type : undefined), generateSchema(random, depth + 1, random() < 0.7 ? type : undefined)];
  }
  if (depth < 3 && random() < 0.04) schema["not"] = generateSchema(random, depth + 1, type);
  if (random() < 0.03) schema[pick(random, ["min", "nullable", "x-vendor", "$ref", "if", "contains", "$defs", "definitions", "prefixItems"])] = pick(random, [1, "#", { type: "string" }, true]);
  return schema;
}

describe("the precheck's index of ajv's rules", () => {
  /** ajv's `shouldUseRule`, as the precheck asked it of every rule before the index. */
  const usesRule = (schema: JsonObject, rule: AjvRule): boolean =>
    schema[rule.keyword] !== undefined || (rule.definition.implements?.some((keyword) => schema[keyword] !== undefined) ?? false);

  it("finds, from a subschema's keys, exactly the rules ajv applies to it, in every dialect", () => {
    for (const dialect of ["draft-07", "2019-09", "2020-12"] as const) {
      const tables = tablesOf(dialect);
      const index = rulesByKeyword(tables);
      const keywords = Object.keys(tables.keywords);
      let seed = 17;
      const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      for (let i = 0; i < 2000; i++) {
        const written: Record<string, JsonValue> = {};
        const count = 1 + Math.floor(next() * 6);
        for (let k = 0; k < count; k++) written[keywords[Math.floor(next() * keywords.length)]!] = 1;
        const schema: JsonObject = written;
        const found = new Set(Object.keys(schema).flatMap((key) => index.get(key) ?? []));
        const expected = new Set(tables.rules.filter((rule) => usesRule(schema, rule)));
        expect([...found].map((r) => r.keyword).sort(), `${dialect} ${Object.keys(schema).join(",")}`).toEqual([...expected].map((r) => r.keyword).sort());
      }
    }
  });

  it("files a rule under the keywords it implements too, once each", () => {
    const a: AjvRule = { keyword: "a", definition: { implements: ["b", "c", "a"] } };
    const b: AjvRule = { keyword: "b", definition: {} };
    const tables = { ...tablesOf("2020-12"), rules: [a, b] };
    const index = rulesByKeyword(tables);
    expect(index.get("a")).toEqual([a]);
    expect(index.get("b")).toEqual([a, b]);
    expect(index.get("c")).toEqual([a]);
    expect(index.get("d")).toBeUndefined();
    for (const keys of [["a"], ["b"], ["c"], ["d"], ["c", "d"], ["b", "c"]]) {
      const schema: JsonObject = Object.fromEntries(keys.map((key) => [key, 1]));
      const found = new Set(keys.flatMap((key) => index.get(key) ?? []));
      expect([...found].sort((x, y) => x.keyword.localeCompare(y.keyword)), keys.join(",")).toEqual([a, b].filter((rule) => usesRule(schema, rule)));
    }
  });
});
