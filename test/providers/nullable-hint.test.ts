/**
 * New-user trial 129, findings 2, 3 and 14: openai-strict's AL4707 hint said
 * `"type": ["string", "null"]` for every optional property: wrong for a `oneOf` union and a
 * `$ref` (applying it gave AL4025), incomplete for an enum (null stayed out of the enum, the
 * compile was clean, and every null failed invalid_input at run time: now AL4039), and "make it
 * nullable" for a property that already was.
 */
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { nullableHint } from "../../compiler/providers/check-tool.js";
import type { JsonValue } from "../../common/json-value.js";
import { agentWithTools } from "./helpers.js";

const ABSENT = "the model then sends null when it has no value, and the tool treats null as absent.";

describe("AL4707's hint fits the property", () => {
  it.each([
    ["a typed property", { type: "integer" }, "Add 'p' to `required` and make it nullable (`\"type\": [\"integer\", \"null\"]`): "],
    ["a type array", { type: ["string", "number"] }, "Add 'p' to `required` and make it nullable (`\"type\": [\"string\", \"number\", \"null\"]`): "],
    ["an enum", { type: "string", enum: ["a", "b"] }, "Add 'p' to `required` and make it nullable (`\"type\": [\"string\", \"null\"]` and add `null` to its `enum` (a type that allows null is not enough: the enum refuses it)): "],
    ["a nullable type whose enum refuses null", { type: ["string", "null"], enum: ["a"] }, "Add 'p' to `required` and add `null` to its `enum` (a type that allows null is not enough: the enum refuses it): "],
    ["an enum without a type", { enum: ["a", "b"] }, "Add 'p' to `required` and make it nullable (add `null` to its `enum`): "],
    ["a oneOf", { oneOf: [{ type: "object" }, { type: "object" }] }, "Add 'p' to `required` and make it nullable (write its `oneOf` as `anyOf`, which strict mode supports, and add `{ \"type\": \"null\" }` to it): "],
    ["an anyOf", { anyOf: [{ type: "object" }, { type: "string" }] }, "Add 'p' to `required` and make it nullable (add `{ \"type\": \"null\" }` to its `anyOf`): "],
    ["a $ref", { $ref: "#/$defs/person" }, "Add 'p' to `required` and make it nullable (`\"anyOf\": [{ \"$ref\": \"#/$defs/person\" }, { \"type\": \"null\" }]`): "],
    ["a const", { const: "x" }, "Add 'p' to `required` and make it nullable (`\"anyOf\": [<its schema>, { \"type\": \"null\" }]`): "],
    ["a typed const", { type: "string", const: "x" }, "Add 'p' to `required` and make it nullable (`\"type\": [\"string\", \"null\"]` and write its `const` as `\"enum\": [\"x\", null]` (a type that allows null is not enough: the const refuses it)): "],
    ["a nullable type whose const refuses null", { type: ["integer", "null"], const: 3 }, "Add 'p' to `required` and write its `const` as `\"enum\": [3, null]` (a type that allows null is not enough: the const refuses it): "],
    ["a nullable type with a null const", { type: ["string", "null"], const: null }, "Add 'p' to `required`: it is already nullable, so "],
    ["an already nullable type and enum", { type: ["string", "null"], enum: ["a", null] }, "Add 'p' to `required`: it is already nullable, so "],
    ["an anyOf with a null member", { anyOf: [{ $ref: "#/$defs/x" }, { type: "null" }] }, "Add 'p' to `required`: it is already nullable, so "],
  ])("%s", (_, schema, start) => {
    expect(nullableHint("p", schema as JsonValue)).toBe(start + ABSENT);
  });

  it("through the compile, for the trial's shapes", async () => {
    const root = agentWithTools({
      search: {
        inputSchema: {
          type: "object",
          $defs: { person: { type: "object", properties: { email: { type: "string" } }, required: ["email"], additionalProperties: false } },
          properties: {
            filter: { oneOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false }, { type: "object", properties: { b: { type: "string" } }, required: ["b"], additionalProperties: false }] },
            owner: { $ref: "#/$defs/person" },
            sort: { type: "string", enum: ["relevance", "created"] },
            visibility: { type: ["string", "null"], enum: ["team", null] },
          },
          required: [],
          additionalProperties: false,
        },
      },
    });
    const result = await compileAgent({ root, package: false, cache: false, targets: ["openai-strict"] });
    const hints = Object.fromEntries(result.diagnostics.filter((d) => d.code === "AL4707").map((d) => [String(d.path).split(".").pop(), d.hint]));
    expect(hints["filter"]).toContain("write its `oneOf` as `anyOf`");
    expect(hints["owner"]).toContain('"anyOf": [{ "$ref": "#/$defs/person" }, { "type": "null" }]');
    expect(hints["sort"]).toContain("add `null` to its `enum`");
    expect(hints["visibility"]).toContain("it is already nullable");
    expect(Object.values(hints).join("\n")).not.toContain('["string", "null"]`): ');
  });
});

describe("AL4039: a nullable type whose enum refuses null", () => {
  it("warns at the enum, whatever the target, and not when the enum lists null", async () => {
    const root = agentWithTools({
      search: { inputSchema: { type: "object", properties: { sort: { type: ["string", "null"], enum: ["relevance", "created"] }, ok: { type: ["string", "null"], enum: ["a", null] } }, required: ["sort", "ok"] } },
    });
    const result = await compileAgent({ root, package: false, cache: false });
    expect(result.ok).toBe(true);
    expect(result.diagnostics.filter((d) => d.code === "AL4039").map((d) => [d.severity, d.path, d.message])).toEqual([
      ["warning", "tools.search.inputSchema.properties.sort.enum", "The inputSchema allows null by its `type`, but its `enum` does not list null, so every null is refused."],
    ]);
  });
  it("warns at a const that is not null beside a nullable type, and at an enum or const beside OpenAPI's `nullable: true`", async () => {
    // Each of these refuses null at run time (checked with `call`: invalid_input "`b` must be \"x\", but it is null").
    const root = agentWithTools({
      search: {
        inputSchema: {
          type: "object",
          properties: {
            fixed: { type: ["string", "null"], const: "x" },
            fine: { type: ["string", "null"], const: null },
            openapi: { type: "string", nullable: true, enum: ["p", "q"] },
            openapiConst: { type: "integer", nullable: true, const: 3 },
            openapiFine: { type: "string", nullable: true, enum: ["p", null] },
            plain: { type: "string", nullable: true },
            notNullable: { type: "string", const: "y" },
          },
          required: ["fixed"],
        },
      },
    });
    const result = await compileAgent({ root, package: false, cache: false });
    expect(result.ok).toBe(true);
    expect(result.diagnostics.filter((d) => d.code === "AL4039").map((d) => [d.severity, d.path, d.message, d.hint])).toEqual([
      ["warning", "tools.search.inputSchema.properties.fixed.const", 'The inputSchema allows null by its `type`, but its `const` is "x", so every null is refused.', 'Write `"enum": ["x", null]` instead of the `const` (null then passes too), or remove "null" from the `type`.'],
      ["warning", "tools.search.inputSchema.properties.openapi.enum", "The inputSchema allows null by `nullable: true`, but its `enum` does not list null, so every null is refused.", "Add `null` to the `enum`, or remove `nullable: true`."],
      ["warning", "tools.search.inputSchema.properties.openapiConst.const", "The inputSchema allows null by `nullable: true`, but its `const` is 3, so every null is refused.", 'Write `"enum": [3, null]` instead of the `const` (null then passes too), or remove `nullable: true`.'],
    ]);
  });
});
