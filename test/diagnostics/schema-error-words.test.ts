/**
 * The one module that puts ajv errors into our words (issue 8 "each rule once"): one wording
 * per keyword from real ajv errors, the place each error points at, and the same words for the
 * same error in two stages (the runtime's input validation and the lock's shape check). The
 * module must not load ajv (start-up stays lazy): it imports ajv's types only.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { createAjv } from "../../contract/ajv.js";
import { schemaErrorHint, schemaErrorReason, schemaErrorTarget, type SchemaError } from "../../diagnostics/schema-error-words.js";
import { valueAtPointer } from "../../common/json-pointer.js";
import { InputValidator } from "../../runtime-min/execution/validate-input.js";
import { findLockShapeError } from "../../lockfile/lockfile-schema.js";
import { validateProjectConfig } from "../../build/project-config/validate-project-config.js";
import { validateConfigValue } from "../../compiler/config/validate-config.js";

/** The first ajv error of `value` against `schema` (verbose, so `parentSchema` is set). */
function firstError(schema: object, value: unknown): SchemaError {
  const validate = createAjv("2020-12", { allErrors: true, strict: false, verbose: true }).compile(schema);
  expect(validate(value)).toBe(false);
  return validate.errors![0]!;
}

function reason(schema: object, value: unknown): string {
  const error = firstError(schema, value);
  return schemaErrorReason(error, valueAtPointer(value, error.instancePath));
}

describe("schemaErrorReason: one wording per keyword", () => {
  it.each([
    ["type", { type: "integer" }, "3", "must be an integer, but it is a string"],
    ["type (several)", { type: ["string", "null"] }, 3, "must be a string or null, but it is a number"],
    ["enum", { enum: ["a", "b"] }, "c", 'must be one of "a", "b", but it is "c"'],
    ["const", { const: true }, false, "must be true, but it is false"],
    ["minLength 1", { minLength: 1 }, "", "must not be empty"],
    ["minLength 3", { minLength: 3 }, "ab", "must be at least 3 characters long"],
    ["maxLength", { maxLength: 2 }, "abc", "must be at most 2 characters long"],
    ["pattern", { pattern: "^a" }, "b", "must match the pattern ^a"],
    ["pattern with $comment", { pattern: "^a", $comment: "a word starting with 'a'" }, "b", "must be a word starting with 'a'"],
    ["format", { format: "email" }, "nope", "must be a valid email"],
    ["uniqueItems", { uniqueItems: true }, [1, 2, 1], "lists the same item twice (items 0 and 2)"],
    ["required", { required: ["x"] }, {}, "is required"],
    ["additionalProperties", { additionalProperties: false }, { x: 1 }, "is not allowed"],
    ["unevaluatedProperties", { unevaluatedProperties: false }, { x: 1 }, "is not allowed by the schema"],
    ["other keywords keep ajv's sentence", { minimum: 1 }, 0, "must be >= 1"],
  ])("%s", (_label, schema, value, words) => {
    expect(reason(schema, value)).toBe(words);
  });

  it("falls back to naming the keyword when ajv gave no message", () => {
    expect(schemaErrorReason({ keyword: "x-rule", instancePath: "", params: {} }, 1)).toBe("fails the schema's 'x-rule' rule");
  });
});

describe("schemaErrorTarget: where an error points", () => {
  const value = { list: [{ a: 1 }], env: { BAD: "x" } };

  it("a missing property: the object that lacks it, on its key, with the missing name", () => {
    const error = firstError({ properties: { list: { items: { required: ["name"] } } } }, value);
    expect(schemaErrorTarget(error, value)).toEqual({ pointer: "/list/0", onKey: true, path: ["list", 0], property: "name" });
  });

  it("an unexpected property: the property itself, on its key", () => {
    const error = firstError({ properties: { list: { items: { additionalProperties: false } } } }, value);
    expect(schemaErrorTarget(error, value)).toEqual({ pointer: "/list/0/a", onKey: true, path: ["list", 0, "a"], property: "a" });
  });

  it("a refused property name: the key", () => {
    const error = firstError({ properties: { env: { propertyNames: { pattern: "^[a-z]+$" } } } }, value);
    expect(schemaErrorTarget(error, value)).toMatchObject({ pointer: "/env/BAD", onKey: true, property: "BAD" });
  });

  it("any other error: the value", () => {
    const error = firstError({ properties: { list: { items: { properties: { a: { type: "string" } } } } } }, value);
    expect(schemaErrorTarget(error, value)).toEqual({ pointer: "/list/0/a", onKey: false, path: ["list", 0, "a"] });
  });
});

describe("schemaErrorHint", () => {
  it("says how to write the expected type, and suggests the near enum value", () => {
    expect(schemaErrorHint(firstError({ type: "string" }, 1), 1)).toBe('Write it as a string in double quotes, e.g. "text".');
    expect(schemaErrorHint(firstError({ enum: ["visible", "hidden"] }, "visble"), "visble")).toBe("Did you mean 'visible'?");
    expect(schemaErrorHint(firstError({ minLength: 1 }, ""), "")).toBeUndefined();
  });
});

describe("one error, the same words in every stage", () => {
  it("a wrong type reads the same in the runtime's input check and in the lock's shape check", async () => {
    const input = await new InputValidator().validate({ type: "object", properties: { n: { type: "object" } } }, { n: [] });
    const lock = findLockShapeError({ lockfileVersion: 1, surfaces: [] });
    expect(input?.message).toBe("`n` must be an object, but it is an array.");
    expect(lock?.message).toBe("surfaces: must be an object, but it is an array");
  });

  it("a wrong constant reads the same in the runtime and the lock", async () => {
    const input = await new InputValidator().validate({ type: "object", properties: { v: { const: 1 } } }, { v: 2 });
    const lock = findLockShapeError({ lockfileVersion: 2, surfaces: {} });
    expect(input?.message).toBe("`v` must be 1, but it is 2.");
    expect(lock?.message).toBe("lockfileVersion: must be 1, but it is 2");
  });
});

describe("the compiler's stages word it the same way too", () => {
  it("a wrong type in the project configuration and in a capability config", () => {
    const project = validateProjectConfig("/nowhere/assembly-line.config.json", { maxWarnings: "3" }, { pointerPrefix: "" });
    expect(project.diagnostics[0]?.message).toContain(": 'maxWarnings' must be an integer, but it is a string.");
    const config = { depth: "3", tags: ["a", 1] };
    const schema = { type: "object", properties: { depth: { type: "integer" }, tags: { type: "array", items: { type: "string" } } } };
    const fallback = { file: "agent.md", line: 1, column: 1 };
    const checked = validateConfigValue("search", config, schema, { value: config, locations: new Map() }, "", fallback);
    expect(checked.diagnostics.map((d) => d.message)).toEqual([
      "Config of capability 'search': 'depth' must be an integer, but it is a string.",
      "Config of capability 'search': 'tags[1]' must be a string, but it is a number.",
    ]);
  });
});

describe("start-up stays lazy", () => {
  it("imports ajv's types only, so the built module never loads ajv", () => {
    const source = fs.readFileSync(new URL("../../diagnostics/schema-error-words.ts", import.meta.url), "utf8");
    const ajvImports = source.split("\n").filter((line) => /^import .*["']ajv/.test(line));
    expect(ajvImports.length).toBeGreaterThan(0);
    expect(ajvImports.every((line) => line.startsWith("import type "))).toBe(true);
  });
});
