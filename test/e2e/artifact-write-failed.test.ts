/**
 * An artifact directory `compile` cannot write is a diagnostic with exit 1, and the lock and
 * whatever was at `--out` stay as they were: `--out` naming a regular file is the wrong
 * file-system shape (AL6302, issue 12); an `--out` the file system refuses (a name longer than
 * it allows) is AL7050.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { runCliJson } from "../helpers/run-cli.js";
import { writeTree } from "../helpers/temp-tree.js";

it("reports --out as a file (AL6302) or one the file system refuses (AL7050); changes neither it nor plugins.lock", () => {
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
  expect(json.diagnostics).toMatchObject([{ code: "AL6302", severity: "error" }]);
  expect(fs.readFileSync(path.join(root, "not-a-dir"), "utf8")).toBe("keep me\n");
  expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lock);

  const tooLong = runCliJson(["compile", root, "--out", path.join(root, "x".repeat(300))]);
  expect(tooLong.status).toBe(1);
  expect(tooLong.json.diagnostics).toMatchObject([{ code: "AL7050", severity: "error", message: expect.stringMatching(/^The artifact could not be written: ENAMETOOLONG/) }]);
  expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lock);
});
