/**
 * Issue 2 "Must show": bad input never crashes. Every case gets a diagnostic and exit code 1,
 * never 2 (usage or internal failure), and no plugin code runs during compile.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { writeTree, type TreeEntry } from "../helpers/temp-tree.js";

const PLUGIN_JSON = (name: string) => JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name });
const ECHO = `import { defineTool } from "@assemblyline-agents/core";
export default defineTool({ description: "Echo.", inputSchema: { type: "object" }, async execute() { return {}; } });
`;

/** An agent with one local plugin `p` whose entry is `entry` (plus extra files). */
function agentWith(entry: TreeEntry | undefined, extra: Record<string, TreeEntry> = {}): string {
  return writeTree({
    "agent.md": "---\nname: bad\ncapabilities:\n  p: {}\n---\n",
    "plugins/p/plugin.json": PLUGIN_JSON("p"),
    "plugins/p/ai.assemblyline/echo.ts": ECHO,
    ...(entry !== undefined ? { "plugins/p/ai.assemblyline/index.ts": entry } : {}),
    ...extra,
  });
}

const ENTRY = (tools: string) => `export default { tools: { ${tools} } };\n`;
const TOOL = (name: string, extra = "") =>
  `${name}: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" }${extra} }`;

function compileFails(root: string): { codes: string[]; diagnostics: any[] } {
  const lockBefore = fs.existsSync(path.join(root, "plugins.lock"));
  const { status, json } = runCliJson(["compile", root]);
  expect(status).toBe(1);
  expect(json.ok).toBe(false);
  expect(json.diagnostics.length).toBeGreaterThan(0);
  expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(lockBefore);
  return { codes: json.diagnostics.map((d: any) => d.code), diagnostics: json.diagnostics };
}

describe("bad input gets diagnostics and exit code 1", () => {
  it("a syntax error in the entry", () => {
    const { diagnostics } = compileFails(agentWith(`export default { tools: { echo: { definition: "./x.ts", } ;\n`));
    expect(diagnostics[0]).toMatchObject({ file: "plugins/p/ai.assemblyline/index.ts", severity: "error" });
  });

  it("an empty entry, an empty plugin.json and an empty agent.md", () => {
    expect(compileFails(agentWith("")).codes.length).toBeGreaterThan(0);
    expect(compileFails(agentWith(ENTRY(TOOL("echo")), { "plugins/p/plugin.json": "" })).codes).toContain("AL2007");
    const root = agentWith(ENTRY(TOOL("echo")));
    fs.writeFileSync(path.join(root, "agent.md"), "");
    const { status, json } = runCliJson(["compile", root]);
    expect(status).toBe(1);
    expect(json.diagnostics).toMatchObject([{ code: "AL1026", severity: "error", file: "agent.md", line: 1, column: 1 }]);
    // White space and a byte order mark only are just as empty; instructions alone are a warning.
    fs.writeFileSync(path.join(root, "agent.md"), "\uFEFF\n  \r\n");
    expect(runCliJson(["compile", root]).json.diagnostics).toMatchObject([{ code: "AL1026" }]);
    fs.writeFileSync(path.join(root, "agent.md"), "# Instructions only\n");
    const instructions = runCliJson(["compile", root]);
    expect(instructions.status).toBe(0);
    expect(instructions.json.diagnostics.map((d: any) => d.code)).toEqual(["AL1004", "AL1028"]); // the surface selects nothing while plugins/ has one: a warning naming it
  });

  it("a BOM and CRLF line ends: positions as the editor shows them", () => {
    const entry = `\uFEFFexport default {\r\n  tools: {\r\n    echo: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" }, visibilty: "hidden" }\r\n  }\r\n};\r\n`;
    const { diagnostics } = compileFails(agentWith(entry));
    const unknown = diagnostics.find((d) => d.code === "AL4001");
    expect(unknown).toMatchObject({ line: 3, path: "tools.echo.visibilty", hint: "Did you mean 'visibility'?" });
    expect(unknown.column).toBe(entry.split("\r\n")[2]!.indexOf("visibilty") + 1);
  });

  it("a 5 MB entry", () => {
    const filler = `const filler = ${JSON.stringify("x".repeat(5 * 1024 * 1024))};\n`;
    const { codes } = compileFails(agentWith(`${filler}${ENTRY(TOOL("echo", ", description2: filler"))}`));
    expect(codes.length).toBeGreaterThan(0);
  });

  it("a 2,000-deep nested inputSchema", () => {
    let schema = `{ type: "object" }`;
    for (let i = 0; i < 2000; i++) schema = `{ type: "object", properties: { a: ${schema} } }`;
    const entry = `export default { tools: { echo: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: ${schema} } } };\n`;
    expect(compileFails(agentWith(entry)).codes.length).toBeGreaterThan(0);
  });

  it("__proto__ and constructor keys anywhere", () => {
    const entry = ENTRY(`${TOOL("echo")}, "__proto__": { polluted: true }, constructor: { definition: "./ai.assemblyline/echo.ts" }`);
    const { codes, diagnostics } = compileFails(
      agentWith(entry, {
        "agent.md": "---\ncapabilities:\n  p:\n    config:\n      __proto__: { polluted: true }\n---\n",
        "plugins/p/plugin.json": `{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"p","__proto__":{"x":1},"constructor":1}`,
      }),
    );
    expect(codes.length).toBeGreaterThan(0);
    // A field named __proto__ must not pick up a lookup table's prototype as its hint.
    expect(diagnostics.filter((d) => d.hint !== undefined && typeof d.hint !== "string")).toEqual([]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("non-UTF-8 bytes in the entry and in agent.md", () => {
    expect(compileFails(agentWith(Buffer.from([0x65, 0x78, 0xff, 0xfe, 0x0a]))).codes.length).toBeGreaterThan(0);
    const root = agentWith(ENTRY(TOOL("echo")));
    fs.writeFileSync(path.join(root, "agent.md"), Buffer.concat([Buffer.from("---\nname: "), Buffer.from([0xc3, 0x28]), Buffer.from("\n---\n")]));
    expect(compileFails(root).codes).toContain("AL1003");
  });

  it("broken symlinks: a definition and a plugin folder", () => {
    const root = agentWith(ENTRY(TOOL("echo").replace("./ai.assemblyline/echo.ts", "./ai.assemblyline/gone.ts")), {
      "plugins/p/ai.assemblyline/gone.ts": { link: "./nowhere.ts" },
    });
    expect(compileFails(root).codes).toContain("AL4007");
    const broken = writeTree({ "agent.md": "---\ncapabilities:\n  q: {}\n---\n", "plugins/q": { link: "../missing" } });
    expect(compileFails(broken).codes.length).toBeGreaterThan(0);
  });

  it("a symlink out of the plugin is AL6102, and the pretty report shows no line of what it points to (security trial 128)", () => {
    const outside = path.join(writeTree({ "secret.txt": "TOP-SECRET-LINE-1\nTOP-SECRET-LINE-2\n" }), "secret.txt");
    const root = agentWith(ENTRY(TOOL("echo")), { "plugins/p/ai.assemblyline/secret.txt": { link: outside } });
    expect(compileFails(root).codes).toContain("AL6102");
    const pretty = runCli(["compile", root]);
    expect(pretty.stderr).toContain("error AL6102");
    expect(`${pretty.stdout}${pretty.stderr}`).not.toContain("TOP-SECRET");
  });

  it("a directory where a file is expected: agent.md, plugin.json, the entry, a definition", () => {
    expect(compileFails(agentWith(ENTRY(TOOL("echo")), { "plugins/p/plugin.json": { dir: true } as never })).codes.length).toBeGreaterThan(0);
    const dirEntry = agentWith(undefined, { "plugins/p/ai.assemblyline/index.ts": { dir: true } as never });
    expect(compileFails(dirEntry).codes.length).toBeGreaterThan(0);
    const dirDefinition = agentWith(ENTRY(TOOL("echo").replace("echo.ts", "folder.ts")), { "plugins/p/ai.assemblyline/folder.ts": { dir: true } as never });
    expect(compileFails(dirDefinition).codes).toContain("AL4008");
    const dirAgent = writeTree({ "agent.md": { dir: true } as never });
    expect(compileFails(dirAgent).codes).toContain("AL1002");
  });

  it("reports every problem of a run together, not just the first", () => {
    const entry = ENTRY(`${TOOL("echo", ", visibilty: 1")}, ${TOOL(`"bad name"`)}, ${TOOL("read")}`);
    const { codes } = compileFails(agentWith(entry));
    expect(codes).toEqual(expect.arrayContaining(["AL4001", "AL4004", "AL4013"]));
  });
});

describe("no plugin code runs during compile", () => {
  it("neither the entry nor a definition module is evaluated (with packaging)", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  p: {}\n---\n",
      "plugins/p/plugin.json": PLUGIN_JSON("p"),
      "plugins/p/ai.assemblyline/index.ts": `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify("MARKER")} + "-entry", "ran");\nexport default { tools: { ${TOOL("echo")} } };\n`,
      "plugins/p/ai.assemblyline/echo.ts": `import { writeFileSync } from "node:fs";\nimport { defineTool } from "@assemblyline-agents/core";\nwriteFileSync(process.env.MARKER_DIR + "/definition-ran", "ran");\n${ECHO.split("\n").slice(1).join("\n")}`,
    });
    const { status, json } = runCliJson(["compile", root], { cwd: root, env: { MARKER_DIR: root } });
    // Whatever the analysis says about the top-level call, nothing may have run.
    expect([0, 1]).toContain(status);
    expect(json.diagnostics).toBeInstanceOf(Array);
    expect(fs.existsSync(path.join(root, "MARKER-entry"))).toBe(false);
    expect(fs.existsSync(path.join(root, "definition-ran"))).toBe(false);
  });
});
