/**
 * Conformance suite (`npm run test:conformance`, not part of `npm test`): the real-world Agent
 * Plugins v1 corpus, read in place from `../shared/corpus/agent-plugins/` (or the folder named
 * by `ASSEMBLY_LINE_CORPUS`): one test per case folder, loading `<case>/plugin` and comparing
 * with `<case>/expected.json`.
 *
 * - manifest: `valid` = not rejected and no warning on plugin.json; `valid-with-warnings` = not
 *   rejected with at least one; `rejected` = rejected (then no component may be discovered).
 * - skills and MCP servers: loaded and skipped names compared as sets; statuses compared.
 * - disputed cases pass when they match the main expectation or an acceptable alternative. Our
 *   choices: `apkit__AP-8.1-EXTENSIONS-MEMBER-OBJECTS` is REJECTED (the alternative; reasoning in
 *   `compiler/plugin-package/manifest.ts`: §8.1 requires member values to be objects and §5.2
 *   makes every schema violation fatal except an unknown top-level field and a non-object
 *   `extensions`); `apkit__AP-7.2.1-COMMAND-SINGLE-TOKEN` skips `shelly` (the main expectation:
 *   §7.2.1 says command MUST be a single executable token, not a shell command string).
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { caseNames, expectationsOf, loadCase, mismatches } from "../helpers/plugin-case.js";
import { corpusRoot } from "./corpus-root.js";

const root = path.join(corpusRoot, "agent-plugins");
const cases = caseNames(root);

describe("Agent Plugins v1 corpus", () => {
  it("has all 84 cases", () => {
    expect(cases).toHaveLength(84);
  });

  for (const name of cases) {
    it(name, () => {
      const { pkg, summary, expected, pluginRoot } = loadCase(root, name);
      const results = expectationsOf(expected).map((expectation) => mismatches(summary, expectation));
      if (results.some((problems) => problems.length === 0)) return;
      const diagnostics = pkg.diagnostics.map((d) => `${d.code} ${d.severity} ${path.relative(pluginRoot, d.file)}:${d.line}:${d.column} ${d.message}`);
      expect({ mismatches: results[0], diagnostics }).toEqual({ mismatches: [], diagnostics });
    });
  }
});
