/**
 * Input validation against the locked inputSchema (issue 4 item 3) for every dialect the
 * compiler accepts: draft-07 and 2019-09 by either spelling of their meta-schema address
 * (http or https, with or without '#'), and 2020-12 by default. No coercion, no stripping.
 */
import { describe, expect, it } from "vitest";
import { InputValidator, SchemaCompileError } from "../../runtime-min/execution/validate-input.js";
import { tempDir } from "../helpers/temp-tree.js";

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

  // Plugin author's trial 129, finding 15: a filter meant for the 2nd schema of an anyOf was told
  // what the 1st requires ("did you mean 'labels'?") beside its real fault, the email format.
  describe("a failed anyOf or oneOf reports the schemas the input comes closest to", () => {
    const labels = { type: "object", properties: { labels: { type: "array", items: { type: "string" } } }, required: ["labels"], additionalProperties: false };
    const assignee = { type: "object", properties: { assignee: { type: "string", format: "email" } }, required: ["assignee"], additionalProperties: false };
    const schema = {
      $defs: { labels },
      type: "object",
      properties: {
        filter: { anyOf: [labels, assignee, { type: "null" }] },
        byRef: { anyOf: [{ $ref: "#/$defs/labels" }, { type: "null" }] },
        twoRefs: { anyOf: [{ $ref: "#/$defs/labels" }, { $ref: "#/$defs/labels" }] },
        count: { oneOf: [{ type: "integer" }, { type: "number" }] },
        nested: { anyOf: [{ type: "object", properties: { id: { anyOf: [{ type: "string", minLength: 3 }, { type: "integer" }] } }, required: ["id"] }, { type: "array" }] },
      },
      additionalProperties: false,
    };
    it.each([
      ["the closest schema's fault, not the others' (the trial's input)", { filter: { assignee: "not-an-email" } }, "`filter` matches none of the 3 schemas its anyOf allows, the closest being the 2nd; `filter.assignee` must be a valid email."],
      ["a fault deeper down is closer than a missing property", { filter: { labels: [1] } }, "`filter` matches none of the 3 schemas its anyOf allows, the closest being the 1st; `filter.labels[0]` must be a string, but it is a number."],
      ["a type no schema has: one clause", { filter: 3 }, "`filter` must be an object or null, but it is a number."],
      ["a tie keeps each closest schema's faults, not the farther null", { filter: {} }, "`filter` matches none of the 3 schemas its anyOf allows, the closest being the 1st and 2nd; `filter.labels` is required; `filter.assignee` is required."],
      ["a $ref beside null (the usual nullable reference)", { byRef: { labels: [2] } }, "`byRef` matches none of the 2 schemas its anyOf allows, the closest being the 1st; `byRef.labels[0]` must be a string, but it is a number."],
      ["an inner anyOf is decided first", { nested: { id: "ab" } }, "`nested` matches none of the 2 schemas its anyOf allows, the closest being the 1st; `nested.id` matches none of the 2 schemas its anyOf allows, the closest being the 1st; `nested.id` must be at least 3 characters long."],
      ["a oneOf that several schemas match", { count: 3 }, "`count` matches the 1st and 2nd of the schemas its oneOf allows, and must match exactly one."],
      ["a oneOf no schema's type fits", { count: "3" }, "`count` must be an integer or a number, but it is a string."],
    ])("%s", async (_label, input, message) => {
      expect((await new InputValidator({ codeCacheDir: null }).validate(schema, input))?.message).toBe(message);
    });

    it("says the same with a validator loaded from the code cache (ajv's standalone code keeps the schemas verbose errors carry)", async () => {
      const dir = tempDir("al-validator-cache-");
      const input = { filter: { assignee: "not-an-email" } };
      const first = new InputValidator({ codeCacheDir: dir });
      const fresh = (await first.validate(schema, input))?.message;
      expect(first.codeCacheStats()).toMatchObject({ writes: 1 });
      const cached = new InputValidator({ codeCacheDir: dir });
      expect((await cached.validate(schema, input))?.message).toBe(fresh);
      expect(cached.codeCacheStats()).toMatchObject({ hits: 1 });
      expect(fresh).toBe("`filter` matches none of the 3 schemas its anyOf allows, the closest being the 2nd; `filter.assignee` must be a valid email.");
    });

    // An input of many array items, each failing an anyOf, took 39 s at 8,000 items while each
    // keyword filtered the whole error list (quadratic): a call's input check must end. 20,000
    // items take about a second now; the quadratic version needed minutes (the test's limit is a
    // hang guard with a wide margin, not a timing figure).
    it("chooses for many failed anyOfs in time linear in the errors (a call's input check ends)", async () => {
      const many = { type: "object", properties: { items: { type: "array", items: { anyOf: [{ type: "object", required: ["a"] }, { type: "object", required: ["b"] }] } } } };
      const message = (await new InputValidator({ codeCacheDir: null }).validate(many, { items: Array.from({ length: 20_000 }, () => ({ c: 1 })) }))?.message;
      expect(message).toMatch(/^`items\[0\]` matches none of the 2 schemas its anyOf allows; `items\[0\]\.a` is required/);
    }, 60_000);

    it("leaves the errors as they are when they cannot be told apart by schema (two $refs)", async () => {
      const message = (await new InputValidator({ codeCacheDir: null }).validate(schema, { twoRefs: {} }))?.message;
      expect(message).toBe("`twoRefs.labels` is required; `twoRefs` matches none of the 2 schemas its anyOf allows.");
    });
  });
});
