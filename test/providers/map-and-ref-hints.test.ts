/**
 * New-user trial 129, findings 10 and 9: AL4708's hint for a map-typed property said "Add
 * `additionalProperties: false`", which makes the map an always-empty object; Gemini's "Remove
 * '$ref'" left the property without its definition.
 */
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { agentWithTools } from "./helpers.js";

async function hintAt(target: string, inputSchema: unknown, code: string, pathEnd: string): Promise<string | undefined> {
  const result = await compileAgent({ root: agentWithTools({ t: { inputSchema } }), package: false, cache: false, targets: [target] });
  return result.diagnostics.find((d) => d.code === code && String(d.path).endsWith(pathEnd))?.hint;
}

describe("strict modes and a map", () => {
  it("suggest an array of key/value objects for a map, and additionalProperties: false for an object with listed keys", async () => {
    const map = await hintAt("openai-strict", { type: "object", properties: { weights: { type: "object", additionalProperties: { type: "number" } } }, required: ["weights"], additionalProperties: false }, "AL4708", "weights.additionalProperties");
    expect(map).toContain("This object is a map (its keys are not listed)");
    expect(map).toContain('"value": {"type":"number"}');
    const listed = await hintAt("anthropic-strict", { type: "object", properties: { a: { type: "string" } } }, "AL4708", "inputSchema");
    expect(listed).toBe("Add `\"additionalProperties\": false` to this object: strict mode only generates the listed keys.");
  });
});

describe("gemini and keywords Schema does not have", () => {
  it("says to inline a $ref's definition, and to write oneOf as anyOf", async () => {
    const schema = { type: "object", $defs: { p: { type: "string" } }, properties: { who: { $ref: "#/$defs/p" }, x: { oneOf: [{ type: "string" }, { type: "integer" }] } } };
    expect(await hintAt("gemini", schema, "AL4703", "who.$ref")).toBe("Replace the `$ref` with a copy of the definition it names (inline it), then remove `$defs` once nothing refers to it, or add `$schema` so the SDK sends the schema as `parametersJsonSchema` (target `gemini-json-schema`).");
    expect(await hintAt("gemini", schema, "AL4703", "inputSchema.$defs")).toContain("Inline each definition where a `$ref` names it, then remove '$defs'");
    expect(await hintAt("gemini", schema, "AL4703", "x.oneOf")).toContain("Write `oneOf` as `anyOf`");
  });
});
