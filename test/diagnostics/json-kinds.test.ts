/**
 * The one word list for JSON kinds (diagnostics/json-kinds.ts), and that the stages which
 * used to spell them their own way (entry descriptors, config files, runtime input) now agree.
 */
import { describe, expect, it } from "vitest";
import { describeKind, describeSchemaType, typeHint } from "../../diagnostics/json-kinds.js";

describe("JSON kind words", () => {
  it("names each kind of value, with JSON's or YAML's words for containers", () => {
    expect([{}, [], "x", 1, 1.5, true, null, undefined].map((value) => describeKind(value))).toEqual(["an object", "an array", "a string", "a number", "a number", "a boolean", "null", "empty"]);
    expect([{}, [], "x"].map((value) => describeKind(value, "yaml"))).toEqual(["a mapping", "a list", "a string"]);
  });

  it("names JSON Schema types as ajv reports them, one or several", () => {
    expect(["object", "array", "integer", "number", "null", "string"].map((type) => describeSchemaType(type))).toEqual(["an object", "an array", "an integer", "a number", "null", "a string"]);
    expect(describeSchemaType("string,null")).toBe("a string or null");
    expect(describeSchemaType("object", "yaml")).toBe("a mapping");
    expect(typeHint("integer")).toBe("Write it as an integer.");
  });
});
