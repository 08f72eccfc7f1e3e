/** Config values against a plugin's configSchema (validateConfigValue), unit level. */
import { describe, expect, it } from "vitest";
import { validateConfigValue } from "../../compiler/config/validate-config.js";
import type { JsonObject } from "../../common/json-value.js";

const fallback = { file: "/agent/agent.md", line: 1, column: 1 };

function validate(config: JsonObject, schema: JsonObject) {
  return validateConfigValue("search", config, schema, { value: { capabilities: { search: { config } } }, locations: new Map() }, "/capabilities/search/config", fallback);
}

describe("validateConfigValue", () => {
  const prototypeNames: JsonObject = { type: "object", properties: { index: { type: "string" }, valueOf: { type: "string" } }, required: ["toString"] };

  it("does not read Object.prototype members as config keys", () => {
    const { diagnostics } = validate({ index: "products" }, prototypeNames);
    expect(diagnostics.map((d) => d.code)).toEqual(["AL5004"]);
    expect(diagnostics[0]!.message).toContain("toString");
    expect(diagnostics.some((d) => d.message.includes("valueOf"))).toBe(false);
  });
  it("accepts the same names when the agent writes them", () => {
    expect(validate({ index: "products", toString: "x", valueOf: "y" }, prototypeNames).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });
  it("validates recursive configSchemas ($ref to '#')", () => {
    const schema: JsonObject = { type: "object", properties: { name: { type: "string" }, child: { $ref: "#" } } };
    expect(validate({ name: "a", child: { name: "b" } }, schema).diagnostics).toEqual([]);
    expect(validate({ name: "a", child: { name: 3 } }, schema).diagnostics.map((d) => d.code)).toEqual(["AL5002"]);
  });
  it("validates configSchemas that spell the draft-07 meta-schema with https", () => {
    const schema: JsonObject = { $schema: "https://json-schema.org/draft-07/schema#", type: "object", properties: { depth: { type: "integer" } } };
    expect(validate({ depth: "deep" }, schema).diagnostics.map((d) => d.code)).toEqual(["AL5002"]);
  });
});
