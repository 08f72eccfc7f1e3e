/**
 * Issue 13 item 2: `x-…` vendor keywords are annotations, accepted (and locked as written) at
 * any depth in every dialect, by the inline compiler and by the worker thread alike; any other
 * unknown keyword stays AL4020 with a did-you-mean (`min` → `minimum`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import type { JsonObject } from "../../common/json-value.js";
import { checkJsonSchema, compileJobOf } from "../../compiler/validation/json-schema.js";
import { createSchemaCompiler, inlineSchemaCompiler, WORKER_THRESHOLD } from "../../compiler/validation/schema-compiler.js";
import { withoutVendorKeywords } from "../../compiler/validation/vendor-keywords.js";
import { InputValidator } from "../../runtime-min/execution/validate-input.js";
import { writeTree } from "../helpers/temp-tree.js";

const fallback = { file: "/p/ai.assemblyline/index.ts", line: 1, column: 1 };
const subject = (schema: JsonObject) => ({ role: "inputSchema" as const, located: { value: { s: schema }, locations: new Map() }, pointer: "/s", fallback });

const DIALECTS = {
  "draft-07": "http://json-schema.org/draft-07/schema#",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
} as const;

/** A schema with vendor keywords at the root, in a property, in an array item, under $defs/definitions and in anyOf. */
function annotated(dialect: keyof typeof DIALECTS): JsonObject {
  const defs = dialect === "draft-07" ? "definitions" : "$defs";
  return {
    $schema: DIALECTS[dialect],
    type: "object",
    "x-vendor-hint": true,
    "x-ui": { widget: "form", min: 1 },
    properties: {
      url: { type: "string", "x-ui": "link", format: "uri" },
      "x-named-property": { type: "string" },
      tags: { type: "array", items: { type: "string", "x-order": 3 } },
      choice: { anyOf: [{ type: "string", "x-label": "text" }, { $ref: `#/${defs}/n` }] },
    },
    [defs]: { n: { type: "number", "x-unit": "ms" } },
    required: ["url"],
  };
}

describe("x- vendor keywords", () => {
  for (const dialect of Object.keys(DIALECTS) as (keyof typeof DIALECTS)[]) {
    it(`are accepted at any depth in ${dialect}`, () => {
      expect(checkJsonSchema(annotated(dialect), subject(annotated(dialect)))).toEqual([]);
    });
  }

  it("are accepted in a plugin's configSchema too", () => {
    const schema = { type: "object", "x-group": "search", properties: { index: { type: "string", "x-ui": "select" } }, required: ["index"] };
    expect(checkJsonSchema(schema, { ...subject(schema), role: "configSchema" })).toEqual([]);
  });

  it("are removed only where they are keywords (a property named x-… stays), without changing the schema", () => {
    const schema = annotated("2020-12");
    const before = JSON.stringify(schema);
    const stripped = withoutVendorKeywords(schema, "2020-12");
    expect(JSON.stringify(schema)).toBe(before);
    expect(JSON.stringify(stripped)).not.toMatch(/"x-(vendor-hint|ui|order|label|unit)"/);
    expect(Object.keys((stripped["properties"] as JsonObject))).toContain("x-named-property");
    expect(withoutVendorKeywords({ type: "object" }, "2020-12")).toEqual({ type: "object" });
  });

  it("a typo next to them is still refused with a did-you-mean (min → minimum)", () => {
    const schema = { type: "object", "x-ui": "link", properties: { n: { type: "integer", min: 1, "x-unit": "items" } } };
    const diagnostics = checkJsonSchema(schema, subject(schema));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "AL4020", hint: "Did you mean 'minimum'?" });
    expect(diagnostics[0]!.message).toContain("'min'");
  });

  it("a keyword that is not x- and not near one says how to keep it as an annotation", () => {
    const schema = { type: "object", vendorHint: true };
    expect(checkJsonSchema(schema, subject(schema))[0]).toMatchObject({ code: "AL4020", hint: expect.stringContaining("x-vendorHint") });
  });

  it("the worker thread gives the same verdicts as the inline compiler", () => {
    const schemas = [annotated("2020-12"), annotated("draft-07"), { type: "object", "x-a": 1, properties: { q: { type: "string", min: 1 } } }];
    // A $ref in each keeps the precheck from deciding them, so they reach the worker (ajv).
    const padding = Array.from({ length: WORKER_THRESHOLD }, (_, i) => ({ type: "object", "x-i": i, $defs: { n: { type: "integer", "x-n": i } }, properties: { [`p${i}`]: { $ref: "#/$defs/n" } } }));
    const all = [...schemas, ...padding] as JsonObject[];
    const compiler = createSchemaCompiler();
    try {
      compiler.announce(all.map((schema) => compileJobOf(schema)!));
      for (const schema of all) expect(compiler.verdict(compileJobOf(schema)!.dialect, schema)).toEqual(inlineSchemaCompiler.verdict(compileJobOf(schema)!.dialect, schema));
      expect(compiler.verdict("2020-12", annotated("2020-12"))).toEqual({ metaErrors: null, compileError: null });
      expect(compiler.verdict("2020-12", schemas[2]!).compileError).toMatch(/unknown keyword: "min"/);
    } finally {
      compiler.close();
    }
  });

  it("are locked as written by compile, and the runtime validates input against the locked schema", async () => {
    const schema = { type: "object", "x-vendor-hint": true, properties: { url: { type: "string", "x-ui": "link" } }, required: ["url"] };
    const text = JSON.stringify(schema);
    const root = writeTree({
      "agent.md": "---\nname: vendor\ncapabilities:\n  links: {}\n---\nUses vendor keywords.\n",
      "plugins/links/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "links", version: "1.0.0", description: "Links." }),
      "plugins/links/ai.assemblyline/index.ts": `export default { tools: { open_link: { definition: "./ai.assemblyline/open.ts", description: "Open a link.", inputSchema: ${text} } } };\n`,
      "plugins/links/ai.assemblyline/open.ts": `import { defineTool } from "@assemblyline-agents/core";\nexport default defineTool({ description: "Open a link.", inputSchema: ${text}, async execute(input: { url: string }) { return input; } });\n`,
    });
    const result = await compileAgent({ root, package: false, displayRoot: "." });
    expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const lock = JSON.parse(fs.readFileSync(path.join(root, "plugins.lock"), "utf8"));
    const locked = lock.surfaces["."].capabilities.links.tools.open_link.inputSchema;
    expect(locked).toEqual(schema);
    const validator = new InputValidator();
    expect(await validator.validate(locked, { url: "https://example.com" })).toBeUndefined();
    expect((await validator.validate(locked, { url: 3 }))?.message).toContain("`url` must be a string");
  });
});
