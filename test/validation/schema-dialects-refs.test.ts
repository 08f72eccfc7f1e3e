/**
 * Audit findings on JSON Schema checks: https spellings of meta-schema URIs, recursive and
 * cyclic `$ref`s, meta-schema and strict-tuple errors in words, and "did you mean" on enum
 * values of the entry (visibility).
 */
import { describe, expect, it } from "vitest";
import { checkJsonSchema } from "../../compiler/validation/json-schema.js";
import { inlineSchemaCompiler } from "../../compiler/validation/schema-compiler.js";
import { checkEntryShape } from "../../compiler/validation/entry-shape.js";
import type { JsonObject, JsonValue } from "../../common/json-value.js";
import type { LocatedValue } from "../../compiler/model.js";

const fallback = { file: "/p/ai.assemblyline/index.ts", line: 1, column: 1 };

function check(schema: JsonValue) {
  const located: LocatedValue = { value: { tools: { t: { inputSchema: schema } } }, locations: new Map() };
  return checkJsonSchema(schema, { role: "inputSchema", located, pointer: "/tools/t/inputSchema", fallback });
}

describe("checkJsonSchema: $schema spellings", () => {
  for (const uri of [
    "https://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2020-12/schema#",
    "https://json-schema.org/draft/2019-09/schema#",
  ]) {
    it(`accepts ${uri} as its dialect`, () => {
      expect(check({ $schema: uri, type: "object", properties: { a: { type: "string" } } })).toEqual([]);
    });
  }
  it("still applies draft-07 rules under the https spelling", () => {
    const [d] = check({ $schema: "https://json-schema.org/draft-07/schema#", type: "object", properties: { a: { type: "strin" } } });
    expect(d).toMatchObject({ code: "AL4019", path: "tools.t.inputSchema.properties.a.type" });
  });
  it("never throws from the judge, whatever $schema says", () => {
    for (const $schema of ["http://json-schema.org/draft-04/schema#", "https://example.com/mine", ""]) {
      expect(() => inlineSchemaCompiler.verdict("2020-12", { $schema, type: "object" })).not.toThrow();
      expect(check({ $schema, type: "object" })[0]).toMatchObject({ code: "AL4018", path: "tools.t.inputSchema.$schema" });
    }
  });
});

describe("checkJsonSchema: $ref", () => {
  it("turns an ajv exception about an unknown meta-schema into a verdict", () => {
    expect(inlineSchemaCompiler.verdict("2020-12", { $schema: "https://example.com/mine", type: "object" })).toEqual({
      metaErrors: null,
      compileError: 'no schema with key or ref "https://example.com/mine"',
    });
  });
  it("accepts a recursive schema ($ref to '#'), again and again on the shared instance", () => {
    const recursive = { type: "object", properties: { next: { $ref: "#" }, value: { type: "string" } } };
    expect(check(recursive)).toEqual([]);
    expect(check({ type: "object", properties: { child: { $ref: "#" } }, required: ["child"] })).toEqual([]);
    expect(check({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })[0]).toMatchObject({ code: "AL4024" });
    expect(check(recursive)).toEqual([]);
  });
  it("reports a $ref that points at itself as a cycle, in words, at its property path", () => {
    const diagnostics = check({ type: "object", properties: { x: { $ref: "#/properties/x" } } });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "AL4031", path: "tools.t.inputSchema.properties.x.$ref" });
    expect(diagnostics[0]!.message).toContain("'properties.x'");
    expect(diagnostics[0]!.message).toContain("#/properties/x → #/properties/x");
    expect(diagnostics[0]!.message).not.toContain("call stack");
  });
  it("reports a two-step cycle once", () => {
    const diagnostics = check({ type: "object", properties: { a: { $ref: "#/$defs/b" } }, $defs: { b: { $ref: "#/properties/a" } } });
    expect(diagnostics.map((d) => d.code)).toEqual(["AL4031"]);
    expect(diagnostics[0]!.message).toContain("#/properties/a → #/$defs/b → #/properties/a");
  });
  it("starts a chain at the subschema the walk hands over, escaped names and the root included", () => {
    const escaped = check({ type: "object", properties: { "a/b~c": { $ref: "#/properties/a~1b~0c" } } });
    expect(escaped.map((d) => d.code)).toEqual(["AL4031"]);
    expect(escaped[0]!.message).toContain("#/properties/a~1b~0c → #/properties/a~1b~0c");
    const items = check({ type: "object", properties: { l: { type: "array", prefixItems: [{ $ref: "#/properties/l/prefixItems/0" }] } } });
    expect(items.map((d) => d.code)).toEqual(["AL4031"]);
    expect(check({ type: "object", properties: { a: { $ref: "#/properties/missing" }, b: { $ref: "#anchor" } } }).map((d) => d.code)).not.toContain("AL4031");
  });
  it("does not call a chain that ends in a schema a cycle", () => {
    expect(check({ type: "object", properties: { a: { $ref: "#/$defs/b" } }, $defs: { b: { $ref: "#/$defs/c" }, c: { type: "string" } } })).toEqual([]);
  });
});

describe("checkJsonSchema: messages in words", () => {
  it("says 'an object or a boolean' and hints prefixItems for an items array under 2020-12", () => {
    const diagnostics = check({ type: "object", properties: { a: { type: "array", items: [{ type: "string" }] } } });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "AL4019", path: "tools.t.inputSchema.properties.a.items" });
    expect(diagnostics[0]!.message).toContain("must be an object or a boolean");
    expect(diagnostics[0]!.message).not.toContain("object,boolean");
    expect(diagnostics[0]!.hint).toContain("prefixItems");
  });
  it("hints to drop the quotes of a boolean or a number written as a string (helper-78: additionalProperties: \"false\")", () => {
    const [quotedBoolean] = check({ type: "object", properties: { a: { type: "string" } }, additionalProperties: "false" });
    expect(quotedBoolean).toMatchObject({ code: "AL4019", path: "tools.t.inputSchema.additionalProperties", hint: 'Write false without quotes: a boolean, not the string "false".' });
    const [quotedNumber] = check({ type: "object", properties: { a: { type: "string", maxLength: "10" } } });
    expect(quotedNumber).toMatchObject({ code: "AL4019", hint: 'Write 10 without quotes: a number, not the string "10".' });
    // One wrong value does not hide the misspelt keywords elsewhere in the schema.
    const all = check({ type: "object", properties: { text: { type: "string", maxLenght: 10 } }, requird: ["text"], additionalProperties: "false" });
    expect(all.map((d) => [d.code, d.path]).sort()).toEqual([
      ["AL4019", "tools.t.inputSchema.additionalProperties"],
      ["AL4020", "tools.t.inputSchema.properties.text.maxLenght"],
      ["AL4020", "tools.t.inputSchema.requird"],
    ]);
    // A string that is no boolean or number gets no such hint.
    expect(check({ type: "object", additionalProperties: "no" })[0]!.hint).toBeUndefined();
  });

  it("explains an open draft-07 tuple instead of echoing ajv's strict-mode text", () => {
    const [d] = check({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { a: { type: "array", items: [{ type: "string" }] } } });
    expect(d).toMatchObject({ code: "AL4025", path: "tools.t.inputSchema.properties.a" });
    expect(d!.message).not.toContain("1-tuple");
    expect(d!.message).toContain("tuple of 1");
    expect(d!.hint).toContain("minItems: 1");
    expect(d!.hint).toContain("additionalItems: false");
  });
  it("explains an open 2020-12 prefixItems tuple", () => {
    const [d] = check({ type: "object", properties: { a: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] } } });
    expect(d).toMatchObject({ code: "AL4025" });
    expect(d!.message).toContain("'prefixItems' describes a tuple of 2");
    expect(d!.hint).toContain("items: false");
  });
});

describe("checkEntryShape: enum values", () => {
  it("suggests 'hidden' for visibility 'hiden'", () => {
    const value: JsonObject = { tools: { t: { definition: "./t.ts", description: "T.", inputSchema: { type: "object" }, visibility: "hiden" } } };
    const diagnostics = checkEntryShape({ value, locations: new Map() }, fallback);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "AL4003", path: "tools.t.visibility", hint: "Did you mean 'hidden'?" });
  });
  it("does not read a field from Object.prototype", () => {
    const value = JSON.parse('{"tools":{"t":{"definition":"./t.ts","description":"T.","inputSchema":{"type":"object"},"constructor":1}}}') as JsonObject;
    const codes = checkEntryShape({ value, locations: new Map() }, fallback).map((d) => d.code);
    expect(codes).toEqual(["AL4001"]);
  });
});
