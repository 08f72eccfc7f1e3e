/**
 * diagnostics/closest-branch.ts at unit level: which schemas' errors a failed anyOf keeps, from
 * ajv-shaped error data (the words around them are tested with the real validator:
 * test/runtime/validate-input.test.ts, test/config/validate-config.test.ts).
 */
import { describe, expect, it } from "vitest";
import { keepClosestBranches, ordinal } from "../../diagnostics/closest-branch.js";
import type { SchemaError } from "../../diagnostics/schema-error-words.js";

type Error = SchemaError & { readonly schema?: unknown };
const error = (keyword: string, instancePath: string, schemaPath: string, params: Record<string, unknown> = {}, schema?: unknown): Error => ({ keyword, instancePath, schemaPath, params, ...(schema === undefined ? {} : { schema }) });

describe("keepClosestBranches", () => {
  const anyOf = error("anyOf", "/a", "#/properties/a/anyOf", {}, [{}, {}]);

  it("keeps the closest schema's errors and puts the keyword's own error first", () => {
    const missing = error("required", "/a", "#/properties/a/anyOf/0/required", { missingProperty: "x" });
    const deep = error("format", "/a/y", "#/properties/a/anyOf/1/properties/y/format", { format: "email" });
    const { errors, choices } = keepClosestBranches([missing, deep, anyOf]);
    expect(errors).toEqual([anyOf, deep]);
    expect(choices.get(anyOf)).toEqual({ keyword: "anyOf", count: 2, closest: [1] });
  });

  it("attributes the errors of one $ref schema by their place, and gives up when two could own them", () => {
    const viaRef = error("required", "/a", "#/$defs/X/required", { missingProperty: "x" });
    const nullType = error("type", "/a", "#/properties/a/anyOf/1/type", { type: "null" });
    expect(keepClosestBranches([viaRef, nullType, anyOf]).choices.get(anyOf)).toEqual({ keyword: "anyOf", count: 2, closest: [0] });
    const other = error("required", "/a", "#/$defs/Y/required", { missingProperty: "y" });
    const unchanged = keepClosestBranches([viaRef, other, anyOf]);
    expect(unchanged.errors).toEqual([viaRef, other, anyOf]);
    expect(unchanged.choices.size).toBe(0);
  });

  it("stops at a sibling keyword's error of the same schema: it belongs to no branch", () => {
    const sibling = error("minProperties", "/a", "#/properties/a/minProperties", { limit: 2 });
    const first = error("type", "/a", "#/properties/a/anyOf/0/type", { type: "string" });
    const second = error("type", "/a", "#/properties/a/anyOf/1/type", { type: "null" });
    const { errors, choices } = keepClosestBranches([sibling, first, second, anyOf]);
    expect(errors).toEqual([sibling, anyOf]);
    expect(choices.get(anyOf)).toEqual({ keyword: "anyOf", count: 2, closest: [0, 1], types: ["string", "null"] });
  });

  it("changes nothing without the keyword's schemas (ajv without verbose) or for a oneOf that several schemas match", () => {
    const bare = error("anyOf", "/a", "#/properties/a/anyOf");
    const branch = error("type", "/a", "#/properties/a/anyOf/0/type", { type: "string" });
    expect(keepClosestBranches([branch, bare]).errors).toEqual([branch, bare]);
    const several = error("oneOf", "/a", "#/properties/a/oneOf", { passingSchemas: [0, 1] }, [{}, {}]);
    expect(keepClosestBranches([several]).choices.size).toBe(0);
  });
});

describe("ordinal", () => {
  it("counts from 1 with English suffixes", () => {
    expect([0, 1, 2, 3, 10, 11, 12, 20, 21, 100, 110].map(ordinal)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]);
  });
});
