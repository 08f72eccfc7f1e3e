/**
 * The defaults check (`schema-defaults.ts`, helper-83's E3): a default its subschema rejects is
 * found, through `$ref`s too, and the proof that skips ajv ({@link certainlyValid}) never calls
 * a value valid that ajv refuses (compared on generated pairs, a fixed seed).
 */
import { describe, expect, it } from "vitest";
import type { ValidateFunction } from "ajv";
import type { JsonObject, JsonValue } from "../../common/json-value.js";
import { certainlyValid, defaultViolations } from "../../compiler/validation/schema-defaults.js";
import { createAjv } from "../../contract/ajv.js";
import { seededRandom } from "../helpers/seeded-random.js";

describe("defaultViolations", () => {
  it("finds the defaults their subschema rejects, in order, and only those", () => {
    const schema: JsonObject = {
      type: "object",
      $defs: { pos: { type: "integer", minimum: 1 } },
      properties: {
        ok: { type: "integer", default: 3 },
        n: { type: "integer", default: "five" },
        r: { $ref: "#/$defs/pos", default: 0 },
        f: { type: "string", format: "email", default: "not an email" },
        "a/b": { type: "string", default: 1 },
      },
    };
    const pointers = ["/properties/ok", "/properties/n", "/properties/r", "/properties/f", "/properties/a~1b"].map((pointer) => ({ pointer, value: (schema["properties"] as JsonObject)[pointer.slice(12).replace("~1", "/")]!["default" as never] as JsonValue }));
    const found = defaultViolations("2020-12", schema, pointers);
    expect(found.map((v) => [v.pointer, v.error.keyword])).toEqual([
      ["/properties/n", "type"],
      ["/properties/r", "minimum"],
      ["/properties/f", "format"],
      ["/properties/a~1b", "type"],
    ]);
    // The same schema again (the instance forgets each schema and its fragments).
    expect(defaultViolations("2020-12", schema, pointers)).toHaveLength(4);
  });
  it("checks a schema with an $id on an instance of its own, twice", () => {
    const schema: JsonObject = { $id: "https://example.com/s", type: "object", properties: { n: { type: "integer", default: "x" } } };
    expect(defaultViolations("2020-12", schema, [{ pointer: "/properties/n", value: "x" }])).toHaveLength(1);
    expect(defaultViolations("2020-12", schema, [{ pointer: "/properties/n", value: "x" }])).toHaveLength(1);
  });
});

describe("certainlyValid", () => {
  const ajv = createAjv("2020-12", { strict: false, allErrors: false });
  /** Validators by schema text: the generator repeats schemas, and each ajv compile costs milliseconds. */
  const compiled = new Map<string, ValidateFunction>();
  const random = seededRandom(84);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const values: JsonValue[] = [0, 1, 2.5, -3, 100, "", "a", "abc", "ab😀", "x-1", true, false, null, [], [1], ["a", "b"], {}, { k: "v" }, { k: 1, extra: true }];
  const keyword = (): JsonObject =>
    pick<() => JsonObject>([
      () => ({ type: pick(["string", "number", "integer", "boolean", "null", "array", "object"]) }),
      () => ({ type: [pick(["string", "integer"]), "null"] }),
      () => ({ enum: [pick(values.slice(0, 13)), pick(values.slice(0, 13))].filter((v, i, all) => all.indexOf(v) === i) }),
      () => ({ const: pick(values.slice(0, 13)) }),
      () => ({ minimum: pick([0, 1, 2.5]) }),
      () => ({ maximum: pick([0, 1, 99]) }),
      () => ({ exclusiveMinimum: pick([0, 1]) }),
      () => ({ exclusiveMaximum: pick([1, 100]) }),
      () => ({ minLength: pick([1, 3]) }),
      () => ({ maxLength: pick([1, 3]) }),
      () => ({ pattern: pick(["^a", "\\d", "^.{3}$"]) }),
      () => ({ minItems: 1 }),
      () => ({ maxItems: 1 }),
      () => ({ items: { type: pick(["string", "integer"]) } }),
      () => ({ properties: { k: { type: pick(["string", "integer"]) } } }),
      () => ({ required: ["k"] }),
      () => ({ additionalProperties: pick([false, { type: "boolean" }]) }),
      () => ({ anyOf: [{ type: pick(["string", "integer"]) }, { type: "null" }] }),
      () => ({ allOf: [{ type: ["string", "number"] }, { minimum: 0 }] as JsonValue[] }),
      () => ({ multipleOf: 2 }),
      () => ({ format: "email" }),
    ])();
  it("never proves a value ajv refuses (2,000 generated pairs), and proves most of those ajv accepts", () => {
    let accepted = 0;
    let proven = 0;
    for (let i = 0; i < 2000; i++) {
      const schema: JsonObject = Object.assign({ description: "d" }, keyword(), random() < 0.5 ? keyword() : {});
      const value = pick(values);
      const text = JSON.stringify(schema);
      const validate = compiled.get(text) ?? compiled.set(text, ajv.compile(schema)).get(text)!;
      const valid = validate(value);
      const claim = certainlyValid(value, schema, 0);
      if (claim && !valid) expect.fail(`proved ${JSON.stringify(value)} valid against ${JSON.stringify(schema)}, which ajv refuses`);
      if (valid) accepted++;
      if (claim) proven++;
    }
    expect(proven).toBeGreaterThan(accepted * 0.8);
  });
});
