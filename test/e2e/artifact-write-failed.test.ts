/**
 * AL7050: `compile` reports an artifact directory it cannot write (here `--out` names a regular
 * file) as a diagnostic with exit 1, and leaves that file and plugins.lock as they were.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { runCliJson } from "../helpers/run-cli.js";
import { writeTree } from "../helpers/temp-tree.js";

it("reports AL7050 when --out is a file, and changes neither that file nor plugins.lock", () => {
  const root = writeTree({
    "agent.md": "---\nname: writer\ncapabilities:\n  notes: {}\n---\nTake notes.\n",
    "plugins/notes/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "notes" }),
    "plugins/notes/ai.assemblyline/index.ts": "export default { tools: {} };\n",
    "not-a-dir": "keep me\n",
  });
  const first = runCliJson(["compile", root]);
  expect(first.json.diagnostics).toEqual([]);
  const lock = fs.readFileSync(path.join(root, "plugins.lock"), "utf8");

  const { status, json } = runCliJson(["compile", root, "--out", path.join(root, "not-a-dir")]);
  expect(status).toBe(1);
  expect(json.ok).toBe(false);
  expect(json.diagnostics).toMatchObject([{ code: "AL7050", severity: "error", message: expect.stringMatching(/^The artifact could not be written: .+\.$/) }]);
  expect(fs.readFileSync(path.join(root, "not-a-dir"), "utf8")).toBe("keep me\n");
  expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lock);
});
