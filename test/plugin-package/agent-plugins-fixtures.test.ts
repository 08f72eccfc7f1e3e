/**
 * The project's own Agent Plugins v1 cases (`test/fixtures/agent-plugins/`, written for this
 * repository): one folder per rule the external corpus exercises (manifest §5, components
 * §7, containment §4.1, placeholders §9.2, per-entry isolation §7.2.2), each with `plugin/`, an
 * optional `outside/`, and `expected.json` saying what the loader must make of it:
 * `manifest` (`valid` | `valid-with-warnings` | `rejected`), loaded and skipped skills and
 * MCP servers, and `codes`, the exact set of diagnostic codes the loader reports. `rule` names
 * the spec section the case stands for.
 *
 * The external corpus itself is the separate conformance suite (`npm run test:conformance`).
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { caseNames, loadCase, mismatches, type CaseFile } from "../helpers/plugin-case.js";
import { repoRoot } from "../helpers/temp-tree.js";

const fixtures = path.join(repoRoot, "test", "fixtures", "agent-plugins");
const cases = caseNames(fixtures);

describe("Agent Plugins v1 rules (own fixtures)", () => {
  it("has a case per rule", () => {
    expect(cases.length).toBeGreaterThanOrEqual(80);
  });

  for (const name of cases) {
    it(name, () => {
      const { pkg, summary, expected, pluginRoot } = loadCase(fixtures, name);
      const codes = [...new Set(pkg.diagnostics.map((d) => d.code))].sort();
      const shown = pkg.diagnostics.map((d) => `${d.code} ${d.severity} ${path.relative(pluginRoot, d.file)}:${d.line}:${d.column} ${d.path ?? ""} ${d.message}`);
      const want = expected as CaseFile & { readonly codes: readonly string[] };
      expect({ mismatches: mismatches(summary, expected), codes, diagnostics: shown }).toEqual({ mismatches: [], codes: [...want.codes].sort(), diagnostics: shown });
    });
  }
});
