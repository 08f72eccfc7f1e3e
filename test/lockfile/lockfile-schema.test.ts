import Ajv2020Module from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { LOCKFILE_SCHEMA } from "../../lockfile/lockfile-schema.js";

describe("LOCKFILE_SCHEMA", () => {
  // readLockfile compiles it without re-checking it (validateSchema: false), so check it here.
  it("is a valid 2020-12 schema that compiles in strict mode", () => {
    const ajv = new Ajv2020Module.default({ strict: true });
    expect(ajv.validateSchema(LOCKFILE_SCHEMA), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(LOCKFILE_SCHEMA)).not.toThrow();
  });
});
