/**
 * helper-78 D7, end to end with the real CLI: a local plugin whose plugin.json `name` differs
 * from its folder and capability key compiled silently. It is warning AL1029 at the name in
 * plugin.json, with the capability key in agent.md as the related location; the lock is still
 * written (nothing fails), and a plugin whose name matches gets no such warning.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCliJson } from "../helpers/run-cli.js";
import { writeStarterAgent } from "../helpers/starter-agent.js";
import { tempDir } from "../helpers/temp-tree.js";

describe("a local plugin's plugin.json name", () => {
  it("that differs from its folder and capability key is warning AL1029 naming both; a matching one is not", () => {
    const root = path.join(tempDir("al-plugin-name-"), "agent");
    writeStarterAgent(root);
    const matching = runCliJson(["compile", root, "--no-package"]);
    expect(matching.json.diagnostics.map((d: { code: string }) => d.code)).not.toContain("AL1029");

    const manifest = path.join(root, "plugins", "hello", "plugin.json");
    fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replace('"name": "hello"', '"name": "other"'));
    const { status, json } = runCliJson(["compile", root, "--no-package"]);
    expect(status).toBe(0);
    expect(json.ok).toBe(true);
    const line = fs.readFileSync(manifest, "utf8").split("\n").findIndex((l) => l.includes('"name"')) + 1;
    const keyLine = fs.readFileSync(path.join(root, "agent.md"), "utf8").split("\n").findIndex((l) => l.trim() === "hello: {}") + 1;
    expect(json.diagnostics).toEqual([
      {
        code: "AL1029",
        severity: "warning",
        message: "plugins/hello/plugin.json names the plugin 'other', but its folder and capability key are 'hello'.",
        file: "plugins/hello/plugin.json",
        line,
        column: 11,
        endLine: line,
        endColumn: 18,
        path: "name",
        hint: 'Make them one name: set "name": "hello" in plugin.json, or rename the folder to plugins/other/ and the capability key to \'other\'.',
        related: [{ file: "agent.md", line: keyLine, column: 3, message: "The capability key 'hello' selects plugins/hello/ here" }],
      },
    ]);
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(true);
  });
});
