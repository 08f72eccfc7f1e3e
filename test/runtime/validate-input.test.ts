/**
 * Input validation against the locked inputSchema (issue 4 item 3) for every dialect the
 * compiler accepts: draft-07 and 2019-09 by either spelling of their meta-schema address
 * (http or https, with or without '#'), and 2020-12 by default. No coercion, no stripping.
 */
import { describe, expect, it } from "vitest";
import { InputValidator, SchemaCompileError } from "../../runtime-min/execution/validate-input.js";

const body = { type: "object", properties: { count: { type: "integer" } }, required: ["count"] };

describe("InputValidator", () => {
  it.each([
    ["draft-07 (http, #)", "http://json-schema.org/draft-07/schema#"],
    ["draft-07 (https, #)", "https://json-schema.org/draft-07/schema#"],
    ["draft-07 (https)", "https://json-schema.org/draft-07/schema"],
    ["2019-09", "https://json-schema.org/draft/2019-09/schema"],
    ["2020-12", "https://json-schema.org/draft/2020-12/schema"],
    ["no $schema (2020-12)", undefined],
  ])("compiles %s and validates without coercion", async (_label, dialect) => {
    const validator = new InputValidator();
    const schema = dialect === undefined ? body : { $schema: dialect, ...body };
    expect(await validator.validate(schema, { count: 3 })).toBeUndefined();
    expect((await validator.validate(schema, { count: "3" }))?.message).toContain("`count` must be an integer");
    expect((await validator.validate(schema, {}))?.message).toContain("`count` is required");
  });

  it("applies the dialect's own rules: draft-07 tuple items, 2020-12 prefixItems", async () => {
    const validator = new InputValidator();
    const tuple07 = { $schema: "https://json-schema.org/draft-07/schema#", type: "array", items: [{ type: "string" }], additionalItems: false };
    expect(await validator.validate(tuple07, ["a"])).toBeUndefined();
    expect(await validator.validate(tuple07, ["a", "b"])).not.toBeUndefined();
    const tuple2020 = { type: "array", prefixItems: [{ type: "string" }], items: false };
    expect(await validator.validate(tuple2020, ["a"])).toBeUndefined();
    expect(await validator.validate(tuple2020, ["a", 1])).not.toBeUndefined();
  });

  it("still refuses a locked schema ajv cannot compile, without the meta-schema check (validateSchema: false)", async () => {
    const validator = new InputValidator();
    await expect(validator.validate({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, { a: 1 })).rejects.toThrow(SchemaCompileError);
  });

  // README trial of 6 December: a tool needing `note` called with `{"text": …}` said only that
  // `note` is required, not which key the input gave instead.
  describe("a missing required property names the key given in its place", () => {
    const note = { type: "object", properties: { note: { type: "string" } }, required: ["note"] };
    const closed = { ...note, additionalProperties: false };
    it.each([
      ["a near miss, extras allowed", note, { notes: "x" }, "`note` is required, but the input has `notes`, which the schema does not list (did you mean 'note'?)."],
      ["the only other key, extras forbidden (its 'is not allowed' folded in)", closed, { text: "x" }, "`note` is required, but the input has `text`, which the schema does not list (did you mean 'note'?)."],
      ["no near miss, extras allowed: the keys, no guess", note, { text: "x", other: 1 }, "`note` is required (the input has `text` and `other`, which the schema does not list)."],
      ["several keys, extras forbidden: each is not allowed", closed, { text: "x", other: 1 }, "`note` is required; `text` is not allowed (the schema accepts no other properties; allowed: note); `other` is not allowed (the schema accepts no other properties; allowed: note)."],
      ["nested, by its path", { type: "object", properties: { item: note }, required: ["item"] }, { item: { nots: "x" } }, "`item.note` is required, but the input has `item.nots`, which the schema does not list (did you mean 'note'?)."],
      ["a key a patternProperties pattern lists is not a candidate", { ...note, patternProperties: { "^x-": {} } }, { "x-note": "x" }, "`note` is required."],
      ["nothing else given", note, {}, "`note` is required."],
    ])("%s", async (_label, schema, input, message) => {
      expect((await new InputValidator().validate(schema, input))?.message).toBe(message);
    });
  });

  // New-user trial of 6 December: `lang` beside `language` got the allowed names but no guess.
  describe("a key the schema does not accept gets the one allowed name it abbreviates", () => {
    const schema = { type: "object", properties: { name: { type: "string" }, language: { type: "string" } }, additionalProperties: false };
    const two = { ...schema, properties: { ...schema.properties, langCode: { type: "string" } } };
    it.each([
      ["an abbreviation of one name", schema, { name: "Ada", lang: "fr" }, "`lang` is not allowed (the schema accepts no other properties; allowed: language, name; did you mean 'language'?)."],
      ["a prefix of two names: no guess", two, { name: "Ada", lang: "fr" }, "`lang` is not allowed (the schema accepts no other properties; allowed: langCode, language, name)."],
      ["too short to guess from", schema, { name: "Ada", la: "fr" }, "`la` is not allowed (the schema accepts no other properties; allowed: language, name)."],
    ])("%s", async (_label, schemaUsed, input, message) => {
      expect((await new InputValidator().validate(schemaUsed, input))?.message).toBe(message);
    });
  });
});
