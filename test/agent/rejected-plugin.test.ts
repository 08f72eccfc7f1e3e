/**
 * A capability whose plugin package is rejected (AL4028 at the capability in agent.md) carries
 * the package's own errors as related locations, so the reason is read where the capability is:
 * sorted by file, agent.md's diagnostics are printed first (helper-67: the hint pointed at errors
 * printed below it, and did not say where).
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeAgent } from "../../compiler/analyze-agent.js";
import { createNodeHost } from "../../common/host.js";
import { writeTree } from "../helpers/temp-tree.js";

describe("a rejected plugin package", () => {
  it("is AL4028 at the capability, with the package's error (AL2007 at plugin.json) as a related location", () => {
    const root = writeTree({
      "agent.md": "---\nname: a\ncapabilities:\n  hello: {}\n---\n",
      "plugins/hello/plugin.json": '{\n  "name": "hello",,\n  "version": "0.1.0"\n}\n',
    });
    const { diagnostics } = analyzeAgent(createNodeHost(), root);
    const manifest = path.join(root, "plugins", "hello", "plugin.json");
    expect(diagnostics.map((d) => [d.code, d.file])).toEqual([
      ["AL2007", manifest],
      ["AL4028", path.join(root, "agent.md")],
    ]);
    const rejected = diagnostics.find((d) => d.code === "AL4028")!;
    expect(rejected.related).toEqual([{ file: manifest, line: 2, column: 19, message: expect.stringMatching(/^rejected for AL2007: 'plugin\.json' is not valid JSON: two commas in a row/) }]);
    expect(rejected.hint).toBe("Fix the errors reported for its plugin package (the related locations below; each is also reported at its own file).");
  });
});
