/** Config values against a plugin's configSchema (validateConfigValue), unit level. */
import { describe, expect, it, vi } from "vitest";
import Ajv2020Module from "ajv/dist/2020.js";
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
  it("says so when the invalid value is the configSchema's default, not something agent.md wrote (helper-83's E3)", () => {
    const schema: JsonObject = { type: "object", properties: { index: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 50, default: 100 } }, required: ["index"] };
    const [d] = validate({ index: "docs" }, schema).diagnostics;
    expect(d).toMatchObject({ code: "AL5002", path: "capabilities.search.config" });
    expect(d!.message).toBe("Config of capability 'search': the default 100 that search's configSchema gives 'limit' (agent.md does not set it) is invalid: 'limit' must be <= 50.");
    expect(d!.hint).toContain("set 'limit' under config to override it");
    // A value the agent wrote is still the agent's.
    const [own] = validate({ index: "docs", limit: 70 }, schema).diagnostics;
    expect(own).toMatchObject({ code: "AL5002", path: "capabilities.search.config.limit", message: "Config of capability 'search': 'limit' must be <= 50." });
  });
  it("relates a defaulted value's error to the plugin's default (configSchema.properties.x.default), where the entry says it (helper-88)", () => {
    const schema: JsonObject = { type: "object", properties: { index: { type: "string" }, paging: { type: "object", properties: { limit: { type: "integer", maximum: 50, default: 100 } } } } };
    const asked: string[] = [];
    const locate = (pointer: string) => (asked.push(pointer), { file: "/p/ai.assemblyline/index.ts", line: 7, column: 60 });
    const located = { value: { capabilities: { search: { config: {} } } }, locations: new Map() };
    const [d] = validateConfigValue("search", { index: "docs", paging: {} }, schema, located, "/capabilities/search/config", fallback, new Set(), locate).diagnostics;
    expect(asked).toEqual(["/properties/paging/properties/limit/default"]);
    expect(d!.related).toEqual([{ file: "/p/ai.assemblyline/index.ts", line: 7, column: 60, message: "the default of 'paging.limit': configSchema.properties.paging.properties.limit.default" }]);
    // A value the agent wrote asks nothing of the plugin's entry.
    asked.length = 0;
    expect(validateConfigValue("search", { paging: { limit: 70 } }, schema, located, "/capabilities/search/config", fallback, new Set(), locate).diagnostics[0]!.related).toBeUndefined();
    expect(asked).toEqual([]);
  });
  // Plugin author's trial 129, finding 15 (the tool input's case, diagnostics/closest-branch.ts):
  // each schema of a failed anyOf was a diagnostic of its own.
  it("reports a failed anyOf's closest schema only, and a type no schema has as one diagnostic", () => {
    const schema: JsonObject = {
      type: "object",
      properties: {
        auth: {
          anyOf: [
            { type: "object", properties: { token: { type: "string", minLength: 20 } }, required: ["token"], additionalProperties: false },
            { type: "object", properties: { user: { type: "string" }, password: { type: "string" } }, required: ["user", "password"], additionalProperties: false },
          ],
        },
        region: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
    };
    const closest = validate({ auth: { token: "short" } }, schema).diagnostics;
    expect(closest.map((d) => [d.code, d.path, d.message])).toEqual([["AL5002", "capabilities.search.config.auth.token", "Config of capability 'search': 'auth.token' must be at least 20 characters long."]]);
    const wrongType = validate({ region: 3 }, schema).diagnostics;
    expect(wrongType.map((d) => [d.code, d.path, d.message])).toEqual([["AL5002", "capabilities.search.config.region", "Config of capability 'search': 'region' must be a string or null, but it is a number."]]);
  });

  it("names the enum value a near miss means (helper-83's E8)", () => {
    const schema: JsonObject = { type: "object", properties: { index: { type: "string", enum: ["products", "docs"] } } };
    const [d] = validate({ index: "doc" }, schema).diagnostics;
    expect(d).toMatchObject({ code: "AL5002", hint: "Did you mean 'docs'?" });
    expect(validate({ index: "zebra" }, schema).diagnostics[0]!.hint).toBeUndefined();
  });
  it("validates configSchemas that spell the draft-07 meta-schema with https", () => {
    const schema: JsonObject = { $schema: "https://json-schema.org/draft-07/schema#", type: "object", properties: { depth: { type: "integer" } } };
    expect(validate({ depth: "deep" }, schema).diagnostics.map((d) => d.code)).toEqual(["AL5002"]);
  });

  it("does not share a validator between schemas that differ only in key order: defaults and errors follow each schema's own order", () => {
    // ajv fills defaults and reports errors in the order of the schema's keys; a validator
    // compiled from another plugin's schema with the keys in another order would give this one
    // that plugin's order. Content no other test uses (the cache lives as long as the process).
    const ordered = (names: readonly string[]): JsonObject => ({
      type: "object",
      properties: Object.fromEntries(names.map((name) => [name, { type: "integer", default: 1 }])),
    });
    const first = validate({}, ordered(["keyOrderAlpha", "keyOrderBeta"]));
    const second = validate({}, ordered(["keyOrderBeta", "keyOrderAlpha"]));
    expect(Object.keys(first.withDefaults)).toEqual(["keyOrderAlpha", "keyOrderBeta"]);
    expect(Object.keys(second.withDefaults)).toEqual(["keyOrderBeta", "keyOrderAlpha"]);
    const wrong = { keyOrderAlpha: "x", keyOrderBeta: "y" };
    expect(validate(wrong, ordered(["keyOrderAlpha", "keyOrderBeta"])).diagnostics.map((d) => d.path)).toEqual(["capabilities.search.config.keyOrderAlpha", "capabilities.search.config.keyOrderBeta"]);
    expect(validate(wrong, ordered(["keyOrderBeta", "keyOrderAlpha"])).diagnostics.map((d) => d.path)).toEqual(["capabilities.search.config.keyOrderBeta", "capabilities.search.config.keyOrderAlpha"]);
  });

  it("compiles a configSchema once per content: equal schemas of two plugins share one ajv compile", () => {
    // Every dialect's ajv class inherits `compile` from ajv's core class.
    const core = Object.getPrototypeOf(Ajv2020Module.default.prototype) as { compile: (...args: unknown[]) => unknown };
    const compile = vi.spyOn(core, "compile");
    try {
      // Content no other test uses: validators by content live as long as the process (tests share one).
      const schemaOf = (maximum: number): JsonObject => ({ type: "object", properties: { sharedCompilePageSize: { type: "integer", minimum: 1, maximum } }, additionalProperties: false });
      const first = validate({ sharedCompilePageSize: 900 }, schemaOf(613));
      const second = validate({ sharedCompilePageSize: 900, extra: true }, schemaOf(613));
      expect(compile).toHaveBeenCalledTimes(1);
      expect(first.diagnostics.map((d) => d.code)).toEqual(["AL5002"]);
      expect(second.diagnostics.map((d) => d.code).sort()).toEqual(["AL5002", "AL5005"]);
      // Other content is another compile, with its own verdict.
      expect(validate({ sharedCompilePageSize: 900 }, schemaOf(1000)).diagnostics).toEqual([]);
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });

  it("skips ajv's meta-schema check for a schema the precheck proved valid, and keeps it for any other", () => {
    // ajv's check compiles the dialect's meta-schema into code, about 45 ms a process (issue 14).
    const core = Object.getPrototypeOf(Ajv2020Module.default.prototype) as { validateSchema: (...args: unknown[]) => unknown };
    const metaCheck = vi.spyOn(core, "validateSchema");
    try {
      // Content no other test uses: validators by content live as long as the process.
      const proven: JsonObject = { type: "object", properties: { provenMetaSkip: { type: "integer", minimum: 1 } } };
      expect(validate({ provenMetaSkip: 0 }, proven).diagnostics.map((d) => d.code)).toEqual(["AL5002"]);
      expect(metaCheck).not.toHaveBeenCalled();
      // `minLength: -1` is refused by the meta-schema: not proven, so ajv checks it and no validator is made.
      const refused: JsonObject = { type: "object", properties: { refusedMetaCheck: { type: "string", minLength: -1 } } };
      expect(validate({ refusedMetaCheck: 3 }, refused).diagnostics).toEqual([]);
      expect(metaCheck).toHaveBeenCalled();
    } finally {
      metaCheck.mockRestore();
    }
  });
});
