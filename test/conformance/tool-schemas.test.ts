/**
 * Conformance suite (`npm run test:conformance`): the corpus's 23 real MCP tool `inputSchema`s
 * (`<corpus>/tool-schemas/`, read in place) are accepted by `checkJsonSchema` without a
 * finding, as a tool's inputSchema.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { checkJsonSchema } from "../../compiler/validation/json-schema.js";
import type { JsonValue } from "../../common/json-value.js";
import { corpusRoot } from "./corpus-root.js";

const fallback = { file: "/p/ai.assemblyline/index.ts", line: 1, column: 1 };

describe("checkJsonSchema: the real-world corpus", () => {
  const dir = path.join(corpusRoot, "tool-schemas");
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json"));
  it("has the corpus's 23 schemas", () => expect(files).toHaveLength(23));
  for (const file of files) {
    it(`accepts ${file}`, () => {
      const schema = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as JsonValue;
      const located = { value: { tools: { t: { inputSchema: schema } } }, locations: new Map() };
      expect(checkJsonSchema(schema, { role: "inputSchema", located, pointer: "/tools/t/inputSchema", fallback })).toEqual([]);
    });
  }
});
