/**
 * Conformance (issue 11 item 1, "Must show"): the 23 real MCP tool schemas of the shared corpus
 * (`tool-schemas/`, read in place, never copied) judged by every provider profile. The reviewed
 * snapshot (`__snapshots__/provider-profiles.test.ts.snap`) lists, per target and tool, what the
 * target would refuse, drop, rewrite or leave undocumented, at the exact schema path; a change to
 * a profile's rules shows up as a snapshot diff to review.
 *
 * Reads outside the repository, so it runs in `npm run test:conformance`, not `npm test`.
 * The corpus is `$ASSEMBLYLINE_CORPUS`, else `../shared/corpus` beside the repository.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { checkToolDefinition } from "../../compiler/providers/check-tool.js";
import { PROVIDER_PROFILES } from "../../compiler/providers/index.js";
import { corpusRoot } from "../helpers/temp-tree.js";

const corpus = process.env["ASSEMBLYLINE_CORPUS"] ?? corpusRoot;
const dir = path.join(corpus, "tool-schemas");

/** The corpus schemas: tool name (the part after `__`) → input schema, in file order. */
function schemas(): { file: string; name: string; schema: object }[] {
  if (!fs.existsSync(dir)) throw new Error(`The conformance corpus is not at ${dir}; set ASSEMBLYLINE_CORPUS to the corpus folder.`);
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({ file, name: file.replace(/\.json$/, "").split("__")[1]!, schema: JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as object }));
}

describe("provider profiles on 23 real MCP tool schemas", () => {
  it("reads all 23", () => {
    expect(schemas()).toHaveLength(23);
  });

  for (const profile of PROVIDER_PROFILES) {
    it(`${profile.id}: findings per tool (reviewed snapshot)`, () => {
      const report: Record<string, string[]> = {};
      for (const { file, name, schema } of schemas()) {
        const findings = checkToolDefinition(profile, { name, inputSchema: schema as never });
        report[file] = findings.map((f) => `${f.treatment} ${f.kind} ${f.path.length === 0 ? "(root)" : f.path.join(".")}`);
      }
      expect(report).toMatchSnapshot();
    });
  }
});
