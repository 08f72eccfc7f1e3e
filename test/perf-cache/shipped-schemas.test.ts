/**
 * `official-schemas.ts` loads the shipped Agent Plugins schemas without validating them
 * against the 2020-12 meta-schema on every run (a performance choice); this test is where
 * they are validated instead.
 */
import { describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { readOfficialSchema } from "../../compiler/plugin-package/official-schemas.js";
import { entrySchema } from "../../compiler/validation/entry-shape.js";
import { createAjv } from "../../contract/ajv.js";

describe("shipped Agent Plugins schemas", () => {
  for (const name of ["plugin.schema.json", "mcp.schema.json"] as const) {
    it(`${name} is a valid 2020-12 schema that compiles in strict mode`, () => {
      const ajv = new Ajv2020({ allErrors: true, strict: true });
      const schema = readOfficialSchema(name);
      expect(ajv.validateSchema(schema as object), JSON.stringify(ajv.errors)).toBe(true);
      expect(() => ajv.compile(schema as object)).not.toThrow();
    });
  }

  it("assemblyline-entry.schema.json is a valid 2020-12 schema (entry-shape.ts compiles it without the meta-schema check)", () => {
    const ajv = createAjv("2020-12", { allErrors: true, strict: false, ownProperties: true });
    expect(ajv.validateSchema(entrySchema()), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(entrySchema())).not.toThrow();
  });
});
