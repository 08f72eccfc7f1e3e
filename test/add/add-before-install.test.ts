/**
 * `add` checks agent.md before the package manager runs (helper-73's report, defect 5): a front
 * matter that the edit would refuse — duplicate keys, tab indentation (AL1006, as compile reports them), a
 * `capabilities` that is not a mapping (AL6205), a key that already selects another package
 * (AL6206) — fails with nothing installed, so package.json, the lockfile and node_modules are
 * left as they were.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { addPlugin } from "../../cli/add/add-plugin.js";
import type { CommandRunner } from "../../cli/add/install-package.js";
import { writeTree } from "../helpers/temp-tree.js";

/** A plugin folder that is an npm package named `pkg`, with plugin.json name `hello`. */
const pluginFolder = (pkg = "h74-hello-pkg"): string =>
  writeTree({
    "package.json": JSON.stringify({ name: pkg, version: "1.0.0" }),
    "plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "hello" }),
  });

/** Runs `add` with a package manager that only notes that it ran. */
async function addWith(agentMd: string, spec: string, as?: string) {
  const root = writeTree({ "agent.md": agentMd });
  let ran = false;
  const run: CommandRunner = () => ((ran = true), { status: 1, stdout: "", stderr: "not really installed" });
  const result = await addPlugin({ spec, root, run, ...(as === undefined ? {} : { as }) });
  return { result, ran, files: fs.readdirSync(root).sort(), agentMd: fs.readFileSync(path.join(root, "agent.md"), "utf8") };
}

describe("add refuses what agent.md would refuse before installing anything", () => {
  const cases: [string, string, string | undefined, string][] = [
    ["duplicate keys", "---\nname: a\ncapabilities:\n  hello: {}\ncapabilities:\n  hello: {}\n---\nbody\n", "greet", "AL1006"],
    ["tab indentation", "---\nname: a\ncapabilities:\n\thello: {}\n---\n", undefined, "AL1006"],
    ["capabilities: []", "---\nname: a\ncapabilities: []\n---\n", "greet", "AL6205"],
    ["a key that selects another package", "---\ncapabilities:\n  greet:\n    package: other-pkg\n---\n", "greet", "AL6206"],
    ["capabilities.<key> that is not a mapping", "---\ncapabilities:\n  greet: yes\n---\n", "greet", "AL6205"],
  ];
  for (const [name, agentMd, as, code] of cases) {
    it(`${name}: ${code}, and the package manager never ran`, async () => {
      const added = await addWith(agentMd, pluginFolder(), as);
      expect(added.result.ok).toBe(false);
      expect(added.result.diagnostics.map((d) => d.code)).toEqual([code]);
      expect(added.result.diagnostics[0]!.file).toBe("agent.md");
      expect(added.ran).toBe(false);
      expect(added.result.command).toBeUndefined();
      expect(added.files).toEqual(["agent.md"]);
      expect(added.agentMd).toBe(agentMd);
    });
  }

  it("knows a registry package's name before the install: AL6206 for --as a key that selects another", async () => {
    const added = await addWith("---\ncapabilities:\n  greet:\n    package: \"@acme/other\"\n---\n", "@acme/hello@1.0.0", "greet");
    expect(added.result.diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([["AL6206", 4, "capabilities.greet already selects '@acme/other'; it is not replaced with '@acme/hello'."]]);
    expect(added.ran).toBe(false);
  });

  it("installs when the front matter takes the entry: the same package already selected, or a key still unknown", async () => {
    expect((await addWith("---\ncapabilities:\n  greet:\n    package: h74-hello-pkg\n---\n", pluginFolder(), "greet")).ran).toBe(true);
    expect((await addWith("---\ncapabilities:\n  greet:\n    package: other-pkg\n---\n", "@acme/hello")).ran).toBe(true);
  });
});

it("says an agent.md link that leads to no file is a broken link (AL1002), as compile does, before installing", async () => {
  const root = writeTree({ "README.md": "x" });
  fs.symlinkSync("nowhere.md", path.join(root, "agent.md"));
  let ran = false;
  const result = await addPlugin({ spec: pluginFolder(), root, run: () => ((ran = true), { status: 1, stdout: "", stderr: "" }) });
  expect(result.diagnostics.map((d) => [d.code, d.message])).toEqual([["AL1002", "agent.md could not be read: it is a symbolic link to 'nowhere.md', which does not exist."]]);
  expect(ran).toBe(false);
});
