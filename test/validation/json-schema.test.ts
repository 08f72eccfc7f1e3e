import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { checkJsonSchema, MAX_SCHEMA_DEPTH, selectDialect } from "../../compiler/validation/json-schema.js";
import type { JsonObject, JsonValue } from "../../common/json-value.js";
import { locateValue, type LocatedValue, type ValueLocation } from "../../compiler/model.js";
import { repoRoot } from "../helpers/temp-tree.js";

const fallback = { file: "/p/ai.assemblyline/index.ts", line: 1, column: 1 };

/** Wraps a schema as `tools.t.inputSchema` of an entry, giving every pointer a fake distinct line. */
function subjectFor(schema: JsonValue) {
  const value: JsonObject = { tools: { t: { inputSchema: schema } } };
  const locations = new Map<string, ValueLocation>();
  let line = 1;
  const visit = (node: JsonValue, pointer: string): void => {
    locations.set(pointer, { value: { file: fallback.file, line: line, column: 5 }, key: { file: fallback.file, line: line++, column: 3 } });
    if (node !== null && typeof node === "object") {
      for (const [k, v] of Array.isArray(node) ? node.entries() : Object.entries(node)) visit(v as JsonValue, `${pointer}/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`);
    }
  };
  // An iterative build is not needed here: test schemas are shallow except the deep one, which has no locations.
  if (JSON.stringify(schema).length < 20_000) visit(value, "");
  const located: LocatedValue = { value, locations };
  return { role: "inputSchema" as const, located, pointer: "/tools/t/inputSchema", fallback };
}

const check = (schema: JsonValue) => checkJsonSchema(schema, subjectFor(schema));

describe("checkJsonSchema: real-world shapes (own fixtures)", () => {
  // test/fixtures/tool-schemas/: schemas written for this repository in the shapes MCP servers
  // publish (2020-12, draft-07 and no $schema; enum, default, bounds, anyOf/oneOf, const,
  // format, pattern, $defs/$ref). The external corpus's 23 schemas are the conformance suite.
  const dir = path.join(repoRoot, "test", "fixtures", "tool-schemas");
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json"));
  it("has the fixtures", () => expect(files.length).toBeGreaterThanOrEqual(6));
  for (const file of files) {
    it(`accepts ${file}`, () => {
      const schema = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as JsonValue;
      expect(check(schema)).toEqual([]);
    });
  }
});

describe("checkJsonSchema: dialects", () => {
  it("selects the dialect by $schema, 2020-12 when absent", () => {
    expect(selectDialect({})).toBe("2020-12");
    expect(selectDialect({ $schema: "http://json-schema.org/draft-07/schema#" })).toBe("draft-07");
    expect(selectDialect({ $schema: "https://json-schema.org/draft/2020-12/schema" })).toBe("2020-12");
    expect(selectDialect({ $schema: "http://json-schema.org/draft-04/schema#" })).toBeUndefined();
  });
  it("reports an unsupported $schema at the $schema value", () => {
    const [d] = check({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" });
    expect(d).toMatchObject({ code: "AL4018", path: "tools.t.inputSchema.$schema" });
  });
  it("uses draft-07 semantics for draft-07 schemas (items as an array is valid there)", () => {
    expect(check({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { a: { type: "array", items: [{ type: "string" }], minItems: 1, additionalItems: false } } })).toEqual([]);
  });
});

describe("checkJsonSchema: problems", () => {
  it("requires a root of type object", () => {
    expect(check({ type: "string" })[0]).toMatchObject({ code: "AL4017", path: "tools.t.inputSchema.type" });
    expect(check({ properties: {} })[0]).toMatchObject({ code: "AL4017", path: "tools.t.inputSchema" });
    expect(check([])[0]).toMatchObject({ code: "AL4017" });
  });
  it("hints 'Did you mean 'object'?' for a root type that is a misspelt object, and wrapping for another type (helper-64 M6)", () => {
    for (const type of ["objct", "Object", "obejct"]) {
      expect(check({ type, properties: {} })).toMatchObject([{ code: "AL4017", path: "tools.t.inputSchema.type", hint: "Did you mean 'object'?" }]);
    }
    for (const type of ["string", "strng", "arrray", 7]) {
      expect(check({ type })[0]!.hint).toBe('Wrap the value in an object: { type: "object", properties: { … } }.');
    }
  });
  it("reports an unknown keyword at its key, with a did-you-mean hint", () => {
    const diagnostics = check({ type: "object", properties: { message: { type: "string", maxLenght: 3 } } });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({
      code: "AL4020",
      path: "tools.t.inputSchema.properties.message.maxLenght",
      hint: "Did you mean 'maxLength'?",
      column: 3,
    });
  });
  it("reports an invalid type name against the meta-schema, in our words", () => {
    const [d] = check({ type: "object", properties: { a: { type: "strin" } } });
    expect(d).toMatchObject({ code: "AL4019", path: "tools.t.inputSchema.properties.a.type" });
    expect(d!.message).toContain('must be one of "array", "boolean"');
    expect(d!.hint).toBe("Did you mean 'string'?");
  });
  it("suggests the nearest type name inside a type array too, and none for a name far from all", () => {
    const [inArray] = check({ type: "object", properties: { a: { type: ["strng", "null"] } } });
    expect(inArray).toMatchObject({ code: "AL4019", hint: "Did you mean 'string'?" });
    const [far] = check({ type: "object", properties: { a: { type: "text" } } });
    expect(far).toMatchObject({ code: "AL4019" });
    expect(far!.hint).toBeUndefined();
  });
  it("reports invalid patterns, unknown formats, undefined required properties and unresolved refs", () => {
    expect(check({ type: "object", properties: { a: { type: "string", pattern: "((" } } })[0]).toMatchObject({ code: "AL4021", path: "tools.t.inputSchema.properties.a.pattern" });
    expect(check({ type: "object", properties: { a: { type: "string", format: "colour" } } })[0]).toMatchObject({ code: "AL4022", path: "tools.t.inputSchema.properties.a.format" });
    expect(check({ type: "object", properties: { message: { type: "string" } }, required: ["mesage"] })[0]).toMatchObject({ code: "AL4023", path: "tools.t.inputSchema.required[0]" });
    expect(check({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })[0]).toMatchObject({ code: "AL4024" });
  });
  it("reports independent mistakes of one schema in one run, each at its own path (helper-83's E5)", () => {
    const schema = { type: "object", properties: { email: { type: "string", format: "emial" }, code: { type: "string", pattern: "[a-" } }, required: ["emali"] };
    const found = check(schema).map((d) => [d.code, d.path]);
    expect(found).toEqual(
      expect.arrayContaining([
        ["AL4021", "tools.t.inputSchema.properties.code.pattern"],
        ["AL4022", "tools.t.inputSchema.properties.email.format"],
        ["AL4023", "tools.t.inputSchema.required[0]"],
      ]),
    );
    expect(found).toHaveLength(3);
    // A wrong keyword value (a meta-schema error) hides neither.
    const withMeta = check({ type: "object", additionalProperties: "no", properties: { email: { type: "string", format: "emial" } }, required: ["emali"] }).map((d) => d.code);
    expect(withMeta.sort()).toEqual(["AL4019", "AL4022", "AL4023"]);
    // Nor does an unknown keyword.
    expect(check({ type: "object", properties: { a: { type: "string", maxLenght: 3, format: "emial" } }, required: ["b"] }).map((d) => d.code).sort()).toEqual(["AL4020", "AL4022", "AL4023"]);
  });
  it("a wrong keyword value (AL4019) does not keep the defaults from being checked (AL4033) in the same run (helper-88)", () => {
    const found = check({ type: "object", additionalProperties: "no", properties: { limit: { type: "integer", maximum: 50, default: 100 } } }).map((d) => [d.code, d.path]);
    expect(found).toEqual([
      ["AL4019", "tools.t.inputSchema.additionalProperties"],
      ["AL4033", "tools.t.inputSchema.properties.limit.default"],
    ]);
    // A default under the wrong value itself is checked without it (maxLength: "3" is left out).
    expect(check({ type: "object", properties: { s: { type: "string", maxLength: "3", default: 4 } } }).map((d) => d.code)).toEqual(["AL4019", "AL4033"]);
  });
  it("ajv's other compile errors come in the same run as the mistakes it stops at first (AL4022, AL4023, AL4020, AL4021; helper-88)", () => {
    // ajv throws at the unknown format; the unresolved $ref behind it was a second compile's news.
    const afterFormat = check({ type: "object", properties: { a: { type: "string", format: "emial" }, b: { $ref: "#/$defs/missing" } } }).map((d) => d.code);
    expect(afterFormat).toEqual(["AL4022", "AL4024"]);
    const afterRequired = check({ type: "object", properties: { b: { $ref: "#/$defs/missing" } }, required: ["c"] }).map((d) => d.code);
    expect(afterRequired.sort()).toEqual(["AL4023", "AL4024"]);
    const afterKeyword = check({ type: "object", properties: { a: { type: "string", maxLenght: 3 }, b: { $ref: "#/$defs/missing" } } }).map((d) => d.code);
    expect(afterKeyword.sort()).toEqual(["AL4020", "AL4024"]);
    const afterMeta = check({ type: "object", additionalProperties: "no", properties: { b: { $ref: "#/$defs/missing" } } }).map((d) => d.code);
    expect(afterMeta.sort()).toEqual(["AL4019", "AL4024"]);
  });
  it("reports every unresolved $ref of a schema in one run, each at its own $ref value, not at the schema's root", () => {
    const schema = {
      type: "object",
      properties: {
        a: { $ref: "#/$defs/missing" },
        b: { $ref: "#/$defs/gone" },
        c: { $ref: "#nowhere" },
        d: { $ref: "other.json" },
        e: { $ref: "#/$defs/ok" },
        f: { $ref: "#/$defs/missing" },
      },
      // A definition nothing references is never compiled by ajv: its $ref is not judged.
      $defs: { ok: { type: "string" }, unused: { $ref: "#/$defs/absent" } },
    };
    const subject = subjectFor(schema);
    const at = (name: string) => locateValue(subject.located, `/tools/t/inputSchema/properties/${name}/$ref`, fallback).value;
    const found = checkJsonSchema(schema, subject).map((d) => ({ code: d.code, path: d.path, line: d.line, column: d.column, message: d.message }));
    const expected = (name: string, ref: string) => ({ code: "AL4024", path: `tools.t.inputSchema.properties.${name}.$ref`, line: at(name).line, column: at(name).column, message: `The inputSchema has a $ref to '${ref}', which does not resolve.` });
    expect(found).toEqual([expected("a", "#/$defs/missing"), expected("f", "#/$defs/missing"), expected("b", "#/$defs/gone"), expected("c", "#nowhere"), expected("d", "other.json")]);
    // A `#/…` reference resolves in the resource of its nearest $id: the same text is unresolved in one place only.
    const nested = { type: "object", properties: { a: { type: "object", $id: "https://x.example/a", properties: { inner: { $ref: "#/$defs/q" } } }, b: { $ref: "#/$defs/q" } }, $defs: { q: { type: "string" } } };
    expect(check(nested).map((d) => [d.code, d.path])).toEqual([["AL4024", "tools.t.inputSchema.properties.a.properties.inner.$ref"]]);
    // Behind a mistake ajv stops at first (AL4022), located the same way.
    expect(check({ type: "object", properties: { a: { type: "string", format: "emial" }, b: { $ref: "#/$defs/missing" }, c: { $ref: "#x" } } }).map((d) => [d.code, d.path])).toEqual([
      ["AL4022", "tools.t.inputSchema.properties.a.format"],
      ["AL4024", "tools.t.inputSchema.properties.b.$ref"],
      ["AL4024", "tools.t.inputSchema.properties.c.$ref"],
    ]);
  });
  it("names the near format and the near property (helper-83's E8)", () => {
    const diagnostics = check({ type: "object", properties: { email: { type: "string", format: "emial" } }, required: ["emali", "zzz"] });
    expect(diagnostics.find((d) => d.code === "AL4022")!.hint).toBe("Did you mean 'email'?");
    const required = diagnostics.filter((d) => d.code === "AL4023");
    expect(required.map((d) => [d.path, d.hint])).toEqual([
      ["tools.t.inputSchema.required[0]", "Did you mean 'email'?"],
      ["tools.t.inputSchema.required[1]", "Add 'zzz' to 'properties', or fix the spelling in 'required'."],
    ]);
  });
  it("does not report a required name under a misspelt 'properties', nor anything in a schema ajv accepts", () => {
    expect(check({ type: "object", propertes: { a: { type: "string" } }, required: ["a"] }).map((d) => d.code)).toEqual(["AL4020"]);
    // ajv accepts a required name an allOf branch defines, and formats in an unreferenced $defs entry.
    expect(check({ type: "object", required: ["a"], allOf: [{ properties: { a: {} } }] })).toEqual([]);
    expect(check({ type: "object", $defs: { unused: { type: "string", format: "emial" } } })).toEqual([]);
  });
  it("reports a default its own subschema rejects, at the default (helper-83's E3)", () => {
    const [d] = check({ type: "object", properties: { n: { type: "integer", default: "five" } } });
    expect(d).toMatchObject({ code: "AL4033", severity: "error", path: "tools.t.inputSchema.properties.n.default" });
    expect(d!.message).toBe('In the inputSchema, the default "five" does not match its own schema: it must be an integer, but it is a string.');
    expect(d!.hint).toBeDefined();
    const [bound] = check({ type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 50, default: 100 } } });
    expect(bound).toMatchObject({ code: "AL4033", path: "tools.t.inputSchema.properties.limit.default" });
    expect(bound!.message).toContain("the default 100 does not match its own schema: it must be <= 50");
    // Through a $ref, and inside an object default.
    expect(check({ type: "object", $defs: { pos: { type: "integer", minimum: 1 } }, properties: { n: { $ref: "#/$defs/pos", default: 0 } } })[0]).toMatchObject({ code: "AL4033", path: "tools.t.inputSchema.properties.n.default" });
    const [nested] = check({ type: "object", properties: { o: { type: "object", properties: { k: { type: "string" } }, default: { k: 1 } } } });
    expect(nested!.message).toContain("at 'k'");
  });
  it("accepts defaults their subschema accepts", () => {
    expect(check({ type: "object", properties: { n: { type: "integer", minimum: 1, default: 1 }, s: { type: ["string", "null"], default: null }, e: { enum: ["a", "b"], default: "b" }, o: { type: "object", default: {} } }, default: {} })).toEqual([]);
  });
  it("refuses a 2,000-deep schema with a diagnostic instead of overflowing the stack", () => {
    let schema: JsonObject = { type: "object" };
    for (let i = 0; i < 2000; i++) schema = { type: "object", properties: { a: schema } };
    const diagnostics = check(schema);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "AL4016" });
    expect(diagnostics[0]!.message).toContain(String(MAX_SCHEMA_DEPTH));
  });
  it("keeps __proto__ and constructor property names as data", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"}}}') as JsonValue;
    expect(check(schema)).toEqual([]);
  });
});
