/**
 * Audit findings through the real CLI: a lock nested 20,000 arrays deep is a damaged lock, not
 * a crash; `compile --check` with errors in the inputs reports them and checks nothing (no
 * diff, no fix command); a broken imported JSON inputSchema is reported once, with the field's
 * path; an unknown capability field does not hide the plugin's and the config's errors; spread
 * errors point at the spread; signs over parenthesised numbers are accepted.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { writeFiles, writeTree, type TreeEntry } from "../helpers/temp-tree.js";

const PLUGIN_JSON = (name: string) => JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name, version: "1.0.0" });
const ECHO = `import { defineTool } from "@assemblyline-agents/core";
export default defineTool({ description: "Echo.", inputSchema: { type: "object" }, async execute() { return {}; } });
`;
const ENTRY = (fields: string, head = "") =>
  `${head}export default { tools: { echo: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" }${fields} } } };\n`;

/** An agent `ck` with one local plugin `p` (entry `entry`), plus extra files. */
function agentWith(entry: string, extra: Record<string, TreeEntry> = {}, capability = "p: {}"): string {
  return writeTree({
    "ck/agent.md": `---\nname: ck\ncapabilities:\n  ${capability}\n---\n`,
    "ck/plugins/p/plugin.json": PLUGIN_JSON("p"),
    "ck/plugins/p/ai.assemblyline/echo.ts": ECHO,
    "ck/plugins/p/ai.assemblyline/index.ts": entry,
    ...extra,
  });
}

const deepLock = (depth: number) => `{"lockfileVersion":1,"x":${"[".repeat(depth)}${"]".repeat(depth)}}`;

describe("a plugins.lock nested 20,000 arrays deep", () => {
  it("compile --no-package recomputes it (AL6012) instead of crashing", () => {
    const parent = agentWith(ENTRY(""));
    const root = path.join(parent, "ck");
    fs.writeFileSync(path.join(root, "plugins.lock"), deepLock(20_000));
    const { status, json, stderr } = runCliJson(["compile", root, "--no-package"]);
    expect(stderr).not.toContain("RangeError");
    expect(status).toBe(0);
    expect(json.diagnostics.map((d: any) => d.code)).toEqual(["AL6012"]);
    expect(json.diagnostics[0].message).toContain("nesting deeper than 256 levels");
    const written = JSON.parse(fs.readFileSync(path.join(root, "plugins.lock"), "utf8"));
    expect(Object.keys(written.surfaces["."].capabilities.p.tools)).toEqual(["echo"]);
  });

  it("compile --check fails with AL6005 and leaves the file alone", () => {
    const parent = agentWith(ENTRY(""));
    const root = path.join(parent, "ck");
    fs.writeFileSync(path.join(root, "plugins.lock"), deepLock(20_000));
    const { status, json, stderr } = runCliJson(["compile", root, "--check", "--no-package"]);
    expect(stderr).not.toContain("RangeError");
    expect(status).toBe(1);
    expect(json.diagnostics).toMatchObject([{ code: "AL6005", file: "plugins.lock", line: 1, column: 281 }]);
    expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(deepLock(20_000));
  });
});

describe("compile --check with errors in the inputs", () => {
  it("reports the errors and says the lock was not checked: no diff, no fix command", () => {
    const parent = agentWith(ENTRY(""));
    expect(runCli(["compile", "ck", "--no-package"], { cwd: parent }).status).toBe(0);
    writeFiles(parent, { "ck/plugins/p/ai.assemblyline/index.ts": ENTRY("").replace('"Echo."', "process.env.X") });
    const run = runCli(["compile", "ck", "--check", "--no-package"], { cwd: parent });
    expect(run.status).toBe(1);
    const printed = run.stdout + run.stderr;
    expect(printed).toContain("error AL3201");
    expect(printed).toContain("ck/plugins.lock:1:1 - error AL6013: plugins.lock was not checked: the agent's inputs have 1 error");
    expect(printed).not.toContain("- tools.echo");
    expect(printed).not.toContain('"tools": {}');
    expect(printed).not.toContain("(what compile would write)");
    expect(printed).not.toContain("Fix: ");
    // Only the check's own command, with the agent root as given (new-user trial 115: it named none).
    expect(printed).toMatch(/then run `[^`]*assembly-line(\.cjs)? compile ck --check` again/);
    expect(printed).not.toMatch(/assembly-line(\.cjs)? compile ck(?! --check)/);
    const { json } = runCliJson(["compile", "ck", "--check", "--no-package"], { cwd: parent });
    expect(json.diagnostics.map((d: any) => d.code)).toEqual(["AL6013", "AL3201"]);
  });

  it("an installed version that differs from the lock (AL6008) is not shown as a removed capability", () => {
    const pkg = "node_modules/@x/openui";
    const root = writeTree({
      "agent.md": `---\nname: ck\ncapabilities:\n  openui:\n    package: "@x/openui"\n---\n`,
      [`${pkg}/package.json`]: JSON.stringify({ name: "@x/openui", version: "1.0.0" }),
      [`${pkg}/plugin.json`]: PLUGIN_JSON("openui"),
      [`${pkg}/ai.assemblyline/index.ts`]: ENTRY(""),
      [`${pkg}/ai.assemblyline/echo.ts`]: ECHO,
    });
    const first = runCli(["compile", root, "--no-package"]);
    expect(first.status, first.stderr).toBe(0);
    writeFiles(root, { [`${pkg}/package.json`]: JSON.stringify({ name: "@x/openui", version: "1.0.1" }) });
    const run = runCli(["compile", root, "--check", "--no-package"]);
    expect(run.status).toBe(1);
    const printed = run.stdout + run.stderr;
    expect(printed).toContain("error AL6008");
    expect(printed).toContain("AL6013");
    expect(printed).not.toContain("(what compile would write)");
    expect(printed).not.toMatch(/^\s+- /m);
    expect(printed).not.toContain("Fix: ");
  });

  it("a locked package missing from an agent folder with its own package.json: the install hint runs there (new-user trial 115, B1)", () => {
    const pkg = "bot/node_modules/@x/openui";
    const parent = writeTree({
      "bot/agent.md": `---\nname: ck\ncapabilities:\n  openui:\n    package: "@x/openui"\n---\n`,
      "bot/package.json": JSON.stringify({ name: "bot", private: true, dependencies: { "@x/openui": "1.0.0" } }),
      [`${pkg}/package.json`]: JSON.stringify({ name: "@x/openui", version: "1.0.0" }),
      [`${pkg}/plugin.json`]: PLUGIN_JSON("openui"),
      [`${pkg}/ai.assemblyline/index.ts`]: ENTRY(""),
      [`${pkg}/ai.assemblyline/echo.ts`]: ECHO,
    });
    expect(runCli(["compile", "bot", "--no-package"], { cwd: parent }).status).toBe(0);
    fs.rmSync(path.join(parent, "bot/node_modules"), { recursive: true });
    const { json } = runCliJson(["compile", "bot", "--check", "--no-package"], { cwd: parent });
    expect(json.diagnostics.find((d: { code: string }) => d.code === "AL6009")?.hint).toBe("Run `cd bot && npm install` to install the project's dependencies.");
    // Run in the agent folder itself, the command needs no folder.
    const inside = runCliJson(["compile", "--check", "--no-package"], { cwd: path.join(parent, "bot") });
    expect(inside.json.diagnostics.find((d: { code: string }) => d.code === "AL6009")?.hint).toBe("Run `npm install` to install the project's dependencies.");
  });
});

describe("an imported JSON inputSchema that cannot be read", () => {
  const head = 'import schema from "./schema.json";\n';
  const entry = `${head}export default { tools: { echo: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: schema } } };\n`;

  it("a syntax error is reported once (AL3008) with the field's path, without a false AL4002", () => {
    const parent = agentWith(entry, { "ck/plugins/p/ai.assemblyline/schema.json": '{ "type": "object", }\n' });
    const { status, json } = runCliJson(["compile", path.join(parent, "ck"), "--no-package"]);
    expect(status).toBe(1);
    expect(json.diagnostics).toMatchObject([{ code: "AL3008", file: "plugins/p/ai.assemblyline/schema.json", path: "tools.echo.inputSchema" }]);
    expect(json.diagnostics).toHaveLength(1);
  });

  it("nesting too deep is reported once (AL3007) at the deep bracket, with the field's path", () => {
    const deep = `{ "type": "object", "x": ${"[".repeat(20_000)}${"]".repeat(20_000)} }`;
    const parent = agentWith(entry, { "ck/plugins/p/ai.assemblyline/schema.json": deep });
    const { status, json } = runCliJson(["compile", path.join(parent, "ck"), "--no-package"]);
    expect(status).toBe(1);
    expect(json.diagnostics).toMatchObject([{ code: "AL3007", file: "plugins/p/ai.assemblyline/schema.json", line: 1, column: 281, path: "tools.echo.inputSchema" }]);
    expect(json.diagnostics).toHaveLength(1);
  });
});

describe("every diagnostic of a run is reported together", () => {
  it("an unknown capability field (AL1010) does not hide the plugin's and the config's errors, and nothing is written", () => {
    const entry = ENTRY("").replace('"Echo."', "process.env.X");
    const parent = agentWith(entry, {}, "p:\n    bogus: 1\n    config:\n      a: 1");
    const root = path.join(parent, "ck");
    const { status, json } = runCliJson(["compile", root, "--no-package"]);
    expect(status).toBe(1);
    expect(json.diagnostics.map((d: any) => d.code).sort()).toEqual(["AL1010", "AL3201", "AL5003"]);
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
  });
});

describe("messages of the static evaluator", () => {
  it("a spread of the wrong type is reported at the spread, with the value's declaration as a related location", () => {
    const head = "const arr = [1, 2];\n";
    const parent = agentWith(`${head}export default { tools: { echo: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" },\n  config: { s1: { ...arr } } } } };\n`);
    const { status, json } = runCliJson(["compile", path.join(parent, "ck"), "--no-package"]);
    expect(status).toBe(1);
    expect(json.diagnostics).toMatchObject([
      { code: "AL3206", line: 3, column: 19, endColumn: 25, path: "tools.echo.config.s1", related: [{ file: "plugins/p/ai.assemblyline/index.ts", line: 1, column: 13 }] },
    ]);
  });

  it("signs over parenthesised numbers are accepted: -(5), -(-5), +(5), -((+(5)))", () => {
    const parent = agentWith(ENTRY(", config: { a: -(5), b: -(-5), c: +(5), d: -((+(5))), e: - -5, f: -(0) }"));
    const root = path.join(parent, "ck");
    const run = runCli(["compile", root, "--no-package"]);
    expect(run.status, run.stderr).toBe(0);
    const lock = JSON.parse(fs.readFileSync(path.join(root, "plugins.lock"), "utf8"));
    expect(lock.surfaces["."].capabilities.p.tools.echo.config).toEqual({ a: -5, b: 5, c: 5, d: -5, e: 5, f: 0 });
  });

  it("a sign over anything but a number is still refused", () => {
    const parent = agentWith(ENTRY(', config: { a: -("5") }'));
    const { status, json } = runCliJson(["compile", path.join(parent, "ck"), "--no-package"]);
    expect(status).toBe(1);
    expect(json.diagnostics).toMatchObject([{ code: "AL3201", path: "tools.echo.config.a" }]);
  });
});
