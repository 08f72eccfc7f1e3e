/**
 * The editor engine (editor/engine/): per file, exactly the diagnostics the compiler front end
 * reports for that file; cached per version and invalidated by what the result depends on;
 * quick fixes that leave a clean file.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { analyzeAgent } from "../../compiler/analyze-agent.js";
import { validatePackage } from "../../compiler/validate-package.js";
import { createNodeHost } from "../../common/host.js";
import { sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { createEditorEngine, type CodeFix, type EditorBuffer } from "../../editor/engine/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function writeTree(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-engine-")));
  dirs.push(root);
  for (const [relative, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), text);
  }
  return root;
}

const definition = (name: string, description: string) => `import { defineTool } from "@assemblyline-agents/core";

export const ${name} = () => defineTool({
  description: ${JSON.stringify(description)},
  inputSchema: { type: "object", properties: { message: { type: "string" } } },
  async execute() {
    return "ok";
  },
});
`;

const entry = (tool: string, fields: string) => `import { MAX } from "./limits.js";

export default {
  configSchema: { type: "object", properties: { limit: { type: "integer", maximum: MAX } } },
  tools: {
    ${tool}: {
      definition: "./ai.assemblyline/${tool}.ts",
      factory: "${tool}",
${fields}
    },
  },
};
`;

const GOOD_FIELDS = `      description: "Echoes.",
      inputSchema: { type: "object", properties: { message: { type: "string" } } },`;

function plugin(name: string, tool: string, fields: string, description = "Echoes."): Record<string, string> {
  return {
    [`plugins/${name}/plugin.json`]: JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name, version: "1.0.0", description: "Fixture." }),
    [`plugins/${name}/ai.assemblyline/index.ts`]: entry(tool, fields),
    [`plugins/${name}/ai.assemblyline/limits.ts`]: "export const MAX = 10;\n",
    [`plugins/${name}/ai.assemblyline/${tool}.ts`]: definition(tool, description),
  };
}

const TOOLS: Record<string, string> = { good: "echo", typo: "typed", drift: "drifter", clash: "echo", enum: "enumerated", configured: "configured" };

/** An agent with a clean plugin, a misspelt key, a drift, a name collision, bad enums and bad config. */
function fixtureAgent(): string {
  return writeTree({
    "agent.md": "---\nname: fixture\ncapabilities:\n  good: {}\n  typo: {}\n  drift: {}\n  clash: {}\n  enum: {}\n  configured:\n    config: { limit: 99 }\n---\n\nFixture.\n",
    ...plugin("good", "echo", GOOD_FIELDS),
    ...plugin("typo", "typed", GOOD_FIELDS.replace("description", "descripton")),
    ...plugin("drift", "drifter", GOOD_FIELDS, "Something else."),
    ...plugin("clash", "echo", GOOD_FIELDS),
    ...plugin("enum", "enumerated", GOOD_FIELDS.replace("      description:", '      visibility: "defered",\n      description:')),
    ...plugin("configured", "configured", GOOD_FIELDS),
    "src/ordinary.ts": "export const x = 1;\n",
  });
}

/** What compile's front end reports for `file`, sorted as the engine returns it. */
function frontEnd(root: string, file: string): Diagnostic[] {
  return sortDiagnostics(analyzeAgent(createNodeHost(), root).diagnostics.filter((d) => d.file === file));
}

function applyEdits(text: string, fix: CodeFix, file: string): string {
  const edits = fix.edits.filter((e) => e.file === file).sort((a, b) => b.start - a.start);
  return edits.reduce((out, e) => out.slice(0, e.start) + e.newText + out.slice(e.end), text);
}

describe("editor engine", () => {
  it("reports, per entry, definition and imported module, exactly what the compiler front end reports for that file", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine();
    const files = Object.entries(TOOLS).flatMap(([name, tool]) => ["index.ts", `${tool}.ts`, "limits.ts"].map((f) => path.join(root, "plugins", name, "ai.assemblyline", f)));
    for (const file of files) expect(engine.analyzeFile(file).diagnostics, file).toEqual(frontEnd(root, file));
    const codes = files.flatMap((f) => engine.analyzeFile(f).diagnostics.map((d) => d.code));
    // unknown field, enum value, drift, name collision (the second declaration, in clash's entry)
    expect(codes).toEqual(expect.arrayContaining(["AL4001", "AL4003", "AL4026", "AL4012"]));
    expect(engine.analyzeFile(files[0]!).role).toBe("entry");
    expect(engine.analyzeFile(files[1]!).role).toBe("definition");
    expect(engine.analyzeFile(files[2]!).role).toBe("plugin-module");
    // agent.md too (the language server asks about it): the config error lives there.
    const agentFile = path.join(root, "agent.md");
    expect(engine.analyzeFile(agentFile).role).toBe("agent-file");
    expect(engine.analyzeFile(agentFile).diagnostics).toEqual(frontEnd(root, agentFile));
    expect(engine.analyzeFile(agentFile).diagnostics.length).toBeGreaterThan(0);
  });

  it("costs nothing outside its scope", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine();
    const ordinary = path.join(root, "src/ordinary.ts");
    expect(engine.isCandidate(ordinary)).toBe(false);
    expect(engine.analyzeFile(ordinary)).toEqual({ file: ordinary, role: "none", root: undefined, diagnostics: [], fixes: [] });
    expect(engine.isCandidate(path.join(root, "plugins/good/ai.assemblyline/index.ts"))).toBe(true);
  });

  it("reads buffers before the disk and caches per version", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine();
    const file = path.join(root, "plugins/good/ai.assemblyline/index.ts");
    const text = fs.readFileSync(file, "utf8");
    const buffers = new Map<string, EditorBuffer>([[file, { text, version: "1" }]]);
    const first = engine.analyzeFile(file, buffers);
    expect(first.diagnostics).toEqual([]);
    expect(engine.analyzeFile(file, buffers)).toBe(first);
    buffers.set(file, { text: text.replace('message: { type: "string" }', 'message: { type: "strng" }'), version: "2" });
    const second = engine.analyzeFile(file, buffers);
    expect(second.diagnostics.length).toBeGreaterThan(0);
    expect(engine.analyzeFile(file, buffers)).toBe(second);
  });

  it("invalidates an entry's result when its definition module, an imported const module, plugin.json or agent.md changes", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine();
    const file = path.join(root, "plugins/good/ai.assemblyline/index.ts");
    const definitionFile = path.join(root, "plugins/good/ai.assemblyline/echo.ts");
    expect(engine.analyzeFile(file).diagnostics).toEqual([]);
    // A renamed factory export, in a buffer: the entry's diagnostic appears without touching the entry.
    const buffers = new Map<string, EditorBuffer>([[definitionFile, { text: definition("echoed", "Echoes."), version: "1" }]]);
    expect(engine.analyzeFile(file, buffers).diagnostics.map((d) => d.code)).toEqual(["AL4009"]);
    expect(engine.analyzeFile(file).diagnostics).toEqual([]);
    // An imported const module, on disk.
    const limits = path.join(root, "plugins/good/ai.assemblyline/limits.ts");
    fs.writeFileSync(limits, "export const MAX = Math.max(1, 10);\n");
    expect(engine.analyzeFile(file).diagnostics).toEqual(frontEnd(root, file));
    // The call is reported where it is written, in the imported module.
    expect(engine.analyzeFile(limits).diagnostics.length).toBeGreaterThan(0);
    expect(engine.analyzeFile(limits).diagnostics).toEqual(frontEnd(root, limits));
    fs.writeFileSync(limits, "export const MAX = 10;\n");
    expect(engine.analyzeFile(file).diagnostics).toEqual([]);
    expect(engine.analyzeFile(limits).diagnostics).toEqual([]);
    // plugin.json
    const manifest = path.join(root, "plugins/good/plugin.json");
    const manifestText = fs.readFileSync(manifest, "utf8");
    fs.writeFileSync(manifest, manifestText.replace('"name":"good"', '"name":"Not A Name"'));
    expect(engine.analyzeFile(manifest).diagnostics).toEqual(frontEnd(root, manifest));
    expect(engine.analyzeFile(manifest).diagnostics.length).toBeGreaterThan(0);
    fs.writeFileSync(manifest, manifestText);
    // agent.md: the plugin is no longer selected (checked as `validate` would), then again.
    const agentFile = path.join(root, "agent.md");
    const agentText = fs.readFileSync(agentFile, "utf8");
    fs.writeFileSync(agentFile, agentText.replace("  good: {}\n", ""));
    expect(engine.analyzeFile(file).root).toBe(path.join(root, "plugins/good"));
    fs.writeFileSync(agentFile, agentText);
    expect(engine.analyzeFile(file).root).toBe(root);
    expect(engine.analyzeFile(file).diagnostics).toEqual([]);
  });

  it("with diskRecheckMs, still follows every buffer change at once (open, edit, close)", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine({ diskRecheckMs: 60_000 });
    const file = path.join(root, "plugins/good/ai.assemblyline/index.ts");
    const definitionFile = path.join(root, "plugins/good/ai.assemblyline/echo.ts");
    expect(engine.analyzeFile(file).diagnostics).toEqual([]);
    const buffers = new Map<string, EditorBuffer>([[definitionFile, { text: definition("echoed", "Echoes."), version: "1" }]]);
    expect(engine.analyzeFile(file, buffers).diagnostics.map((d) => d.code)).toEqual(["AL4009"]);
    buffers.set(definitionFile, { text: definition("echo", "Echoes."), version: "2" });
    expect(engine.analyzeFile(file, buffers).diagnostics).toEqual([]);
    buffers.set(definitionFile, { text: definition("echoed", "Echoes."), version: "3" });
    expect(engine.analyzeFile(file, buffers).diagnostics.map((d) => d.code)).toEqual(["AL4009"]);
    // Closed: the file on disk again, although the disk is not asked again for a minute.
    expect(engine.analyzeFile(file).diagnostics).toEqual([]);
  });

  it("reports a collision that appears when another plugin's entry declares the same name", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine();
    const file = path.join(root, "plugins/configured/ai.assemblyline/index.ts");
    expect(engine.analyzeFile(file).diagnostics).toEqual([]);
    const earlier = path.join(root, "plugins/good/ai.assemblyline/index.ts");
    const renamed = fs.readFileSync(earlier, "utf8").replace("    echo: {", "    configured: {");
    const buffers = new Map<string, EditorBuffer>([[earlier, { text: renamed, version: "9" }]]);
    expect(engine.analyzeFile(file, buffers).diagnostics.map((d) => d.code)).toEqual(["AL4012"]);
    fs.writeFileSync(earlier, renamed);
    expect(engine.analyzeFile(file).diagnostics).toEqual(frontEnd(root, file));
  });

  it("with deferCollisionReads, answers first from the opened plugin alone, then reads the other entries and names the answers that change (helper-106)", () => {
    const root = fixtureAgent();
    const clash = path.join(root, "plugins/clash/ai.assemblyline/index.ts");
    const engine = createEditorEngine({ deferCollisionReads: true });
    // The collision with good's `echo` needs good's entry, which no answer has read yet.
    const first = engine.analyzeFile(clash);
    expect(frontEnd(root, clash).map((d) => d.code)).toContain("AL4012");
    expect(first.diagnostics.map((d) => d.code)).not.toContain("AL4012");
    expect(engine.hasDeferredReads()).toBe(true);
    expect(engine.readDeferred()).toEqual([clash]);
    expect(engine.hasDeferredReads()).toBe(false);
    expect(engine.readDeferred()).toEqual([]);
    expect(engine.analyzeFile(clash).diagnostics).toEqual(frontEnd(root, clash));

    // A plugin that shares no name: the first answer is already whole, and reading changes nothing.
    const typo = path.join(root, "plugins/typo/ai.assemblyline/index.ts");
    const fresh = createEditorEngine({ deferCollisionReads: true });
    const answer = fresh.analyzeFile(typo).diagnostics;
    expect(answer).toEqual(frontEnd(root, typo));
    expect(fresh.hasDeferredReads()).toBe(true);
    expect(fresh.readDeferred()).toEqual([]);
    expect(fresh.analyzeFile(typo).diagnostics).toEqual(answer);

    // Without readDeferred, the next request reads them before it answers: one answer at most goes without.
    const next = createEditorEngine({ deferCollisionReads: true });
    expect(next.analyzeFile(clash).diagnostics.map((d) => d.code)).not.toContain("AL4012");
    expect(next.analyzeFile(typo).diagnostics).toEqual(frontEnd(root, typo));
    // That read found clash's first answer changed: the next readDeferred says so (the language server sends it again).
    expect(next.hasDeferredReads()).toBe(true);
    expect(next.readDeferred()).toEqual([clash]);
    expect(next.hasDeferredReads()).toBe(false);
    expect(next.analyzeFile(clash).diagnostics).toEqual(frontEnd(root, clash));
    // Without the option every answer is whole.
    expect(createEditorEngine().analyzeFile(clash).diagnostics).toEqual(frontEnd(root, clash));
  });

  it("checks a plugin no agent selects as `validate` does", () => {
    const dir = writeTree(plugin("alone", "solo", GOOD_FIELDS.replace("description", "descripton")));
    const pluginDir = path.join(dir, "plugins/alone");
    const engine = createEditorEngine();
    const file = path.join(pluginDir, "ai.assemblyline/index.ts");
    const expected = validatePackage(createNodeHost(), pluginDir).diagnostics.filter((d) => d.file === "ai.assemblyline/index.ts");
    expect(expected.length).toBeGreaterThan(0);
    expect(engine.analyzeFile(file).diagnostics.map((d) => ({ ...d, file: path.relative(pluginDir, d.file) }))).toEqual(expected);
  });

  // New-user trial: in an agent that does not select it (yet, or any more), a plugin's
  // plugin.json lost its diagnostics, while its entry was checked as validate would.
  it("checks the plugin.json of a plugin its agent does not select as `validate` does", () => {
    const files = plugin("alone", "solo", GOOD_FIELDS);
    files["plugins/alone/plugin.json"] = JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "Alone Plugin", version: "1.0.0" });
    const root = writeTree({ "agent.md": "---\nname: other\ncapabilities: {}\n---\n\nSelects nothing.\n", ...files });
    const pluginDir = path.join(root, "plugins/alone");
    const file = path.join(pluginDir, "plugin.json");
    const expected = validatePackage(createNodeHost(), pluginDir).diagnostics.filter((d) => d.file === "plugin.json");
    expect(expected.map((d) => d.code)).toContain("AL2106");
    const analysis = createEditorEngine().analyzeFile(file);
    expect(analysis.root).toBe(pluginDir);
    expect(analysis.diagnostics.map((d) => ({ ...d, file: path.relative(pluginDir, d.file) }))).toEqual(expected);
  });

  it("names the folders to watch, and after filesChanged sees a folder that became a plugin and an agent.md written above a plugin", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine({ diskRecheckMs: 60_000 });
    engine.analyzeFile(path.join(root, "plugins/good/ai.assemblyline/index.ts"));
    expect(engine.foldersToWatch()).toEqual([{ folder: root, recursive: true }]);
    // A module whose folder is not a plugin yet: nothing, and the engine remembers where it sits.
    const limits = path.join(root, "plugins/grown/shared/limits.ts");
    fs.mkdirSync(path.dirname(limits), { recursive: true });
    fs.writeFileSync(limits, "export const MAX = Math.max(1, 10);\n");
    expect(engine.analyzeFile(limits).role).toBe("none");
    const grown = plugin("grown", "grown", GOOD_FIELDS);
    grown["plugins/grown/ai.assemblyline/index.ts"] = grown["plugins/grown/ai.assemblyline/index.ts"]!.replace('"./limits.js"', '"../shared/limits.js"');
    for (const [relative, text] of Object.entries(grown)) {
      fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
      fs.writeFileSync(path.join(root, relative), text);
    }
    expect(engine.analyzeFile(limits).role).toBe("none");
    engine.filesChanged([path.join(root, "plugins/grown")]);
    const expected = validatePackage(createNodeHost(), path.join(root, "plugins/grown")).diagnostics.filter((d) => d.file === "shared/limits.ts");
    expect(expected.length).toBeGreaterThan(0);
    expect(engine.analyzeFile(limits).diagnostics.map((d) => ({ ...d, file: path.relative(path.join(root, "plugins/grown"), d.file) }))).toEqual(expected);

    // A plugin no agent selects: the engine watches where an agent.md would select it.
    const dir = writeTree(plugin("alone", "solo", GOOD_FIELDS));
    const entryFile = path.join(dir, "plugins/alone/ai.assemblyline/index.ts");
    expect(engine.analyzeFile(entryFile).root).toBe(path.join(dir, "plugins/alone"));
    expect(engine.foldersToWatch()).toContainEqual({ folder: dir, recursive: false });
    fs.writeFileSync(path.join(dir, "agent.md"), "---\nname: late\ncapabilities:\n  alone: {}\n---\n\nWritten later.\n");
    expect(engine.analyzeFile(entryFile).root).toBe(path.join(dir, "plugins/alone"));
    engine.filesChanged([path.join(dir, "agent.md")]);
    expect(engine.analyzeFile(entryFile).root).toBe(dir);
    expect(engine.foldersToWatch()).toContainEqual({ folder: dir, recursive: true });
  });

  it("fixes a misspelt key and a misspelt enum value, leaving a clean file", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine();
    for (const name of ["typo", "enum"]) {
      const file = path.join(root, `plugins/${name}/ai.assemblyline/index.ts`);
      const fix = engine.analyzeFile(file).fixes.find((f) => f.kind === "did-you-mean");
      expect(fix, name).toBeDefined();
      fs.writeFileSync(file, applyEdits(fs.readFileSync(file, "utf8"), fix!, file));
      expect(frontEnd(root, file), name).toEqual([]);
      expect(engine.analyzeFile(file).diagnostics).toEqual([]);
    }
    expect(fs.readFileSync(path.join(root, "plugins/typo/ai.assemblyline/index.ts"), "utf8")).toContain('      description: "Echoes."');
    expect(fs.readFileSync(path.join(root, "plugins/enum/ai.assemblyline/index.ts"), "utf8")).toContain('visibility: "deferred"');
  });

  it("fixes a misspelt schema type written as a string literal (AL4019, whose message lists the allowed types, not the written one: helper-78)", () => {
    const root = writeTree({ "agent.md": "---\nname: typed\ncapabilities:\n  schematype: {}\n---\n\nFixture.\n", ...plugin("schematype", "echo", GOOD_FIELDS.replace('{ type: "string" }', '{ type: "strin" }')) });
    const engine = createEditorEngine();
    const file = path.join(root, "plugins/schematype/ai.assemblyline/index.ts");
    expect(engine.analyzeFile(file).diagnostics.map((d) => d.code)).toContain("AL4019");
    const fix = engine.analyzeFile(file).fixes.find((f) => f.kind === "did-you-mean");
    expect(fix?.title).toBe("Change 'strin' to 'string'");
    fs.writeFileSync(file, applyEdits(fs.readFileSync(file, "utf8"), fix!, file));
    expect(fs.readFileSync(file, "utf8")).toContain('message: { type: "string" }');
    expect(frontEnd(root, file)).toEqual([]);
  });

  it("fixes a config value close to one of its enum's values in agent.md (AL5002, helper-83's E8)", () => {
    const files = plugin("kb", "echo", GOOD_FIELDS);
    const entryFile = "plugins/kb/ai.assemblyline/index.ts";
    files[entryFile] = files[entryFile]!.replace('properties: { limit: { type: "integer", maximum: MAX } }', 'properties: { index: { type: "string", enum: ["products", "docs"] }, limit: { type: "integer", maximum: MAX } }');
    const root = writeTree({ "agent.md": "---\nname: kb\ncapabilities:\n  kb:\n    config: { index: doc }\n---\n\nFixture.\n", ...files });
    const engine = createEditorEngine();
    const file = path.join(root, "agent.md");
    expect(engine.analyzeFile(file).diagnostics.map((d) => [d.code, d.hint])).toEqual([["AL5002", "Did you mean 'docs'?"]]);
    const fix = engine.analyzeFile(file).fixes.find((f) => f.kind === "did-you-mean");
    expect(fix?.title).toBe("Change 'doc' to 'docs'");
    fs.writeFileSync(file, applyEdits(fs.readFileSync(file, "utf8"), fix!, file));
    expect(fs.readFileSync(file, "utf8")).toContain("config: { index: docs }");
    expect(frontEnd(root, file)).toEqual([]);
  });

  it("relates an AL5002 about a value the configSchema's default supplied to that default in the entry (helper-88)", () => {
    const files = plugin("kb", "echo", GOOD_FIELDS);
    const entryFile = "plugins/kb/ai.assemblyline/index.ts";
    files[entryFile] = files[entryFile]!.replace("maximum: MAX } }", "maximum: MAX, default: 100 } }");
    const root = writeTree({ "agent.md": "---\nname: kb\ncapabilities:\n  kb: {}\n---\n\nFixture.\n", ...files });
    const [d] = createEditorEngine().analyzeFile(path.join(root, "agent.md")).diagnostics;
    const line = files[entryFile]!.split("\n").findIndex((l) => l.includes("default: 100")) + 1;
    expect(d).toMatchObject({ code: "AL5002", path: "capabilities.kb.config" });
    expect(d!.related).toMatchObject([{ file: path.join(root, entryFile), line, message: "the default of 'limit': configSchema.properties.limit.default" }]);
  });

  it("fixes a misspelt format and a misspelt required name in one go (AL4022, AL4023: helper-83's E5, E8)", () => {
    const files = plugin("mail", "echo", GOOD_FIELDS.replace('properties: { message: { type: "string" } } }', 'properties: { message: { type: "string", format: "emial" } }, required: ["mesage"] }'));
    files["plugins/mail/ai.assemblyline/echo.ts"] = files["plugins/mail/ai.assemblyline/echo.ts"]!.replace('properties: { message: { type: "string" } } }', 'properties: { message: { type: "string", format: "email" } }, required: ["message"] }');
    const root = writeTree({ "agent.md": "---\nname: mail\ncapabilities:\n  mail: {}\n---\n\nFixture.\n", ...files });
    const engine = createEditorEngine();
    const file = path.join(root, "plugins/mail/ai.assemblyline/index.ts");
    expect(engine.analyzeFile(file).diagnostics.map((d) => d.code).sort()).toEqual(["AL4022", "AL4023"]);
    const fixes = engine.analyzeFile(file).fixes.filter((f) => f.kind === "did-you-mean");
    expect(fixes.map((f) => f.title).sort()).toEqual(["Change 'emial' to 'email'", "Change 'mesage' to 'message'"]);
    let text = fs.readFileSync(file, "utf8");
    for (const fix of fixes) text = applyEdits(text, fix, file);
    fs.writeFileSync(file, text);
    expect(frontEnd(root, file)).toEqual([]);
  });

  it("fixes a definition path written without './' when the path with it names a file of the plugin (AL4005, helper-78)", () => {
    const files = plugin("dotless", "echo", GOOD_FIELDS);
    const entryFile = "plugins/dotless/ai.assemblyline/index.ts";
    files[entryFile] = files[entryFile]!.replace('definition: "./ai.assemblyline/echo.ts"', 'definition: "ai.assemblyline/echo.ts"');
    const root = writeTree({ "agent.md": "---\nname: dotless\ncapabilities:\n  dotless: {}\n---\n\nFixture.\n", ...files });
    const engine = createEditorEngine();
    const file = path.join(root, entryFile);
    const fix = engine.analyzeFile(file).fixes.find((f) => f.kind === "did-you-mean");
    expect(fix?.title).toBe("Change 'ai.assemblyline/echo.ts' to './ai.assemblyline/echo.ts'");
    fs.writeFileSync(file, applyEdits(fs.readFileSync(file, "utf8"), fix!, file));
    expect(frontEnd(root, file)).toEqual([]);
  });

  it("offers only fixes whose diagnostic meets the asked range", () => {
    const root = fixtureAgent();
    const engine = createEditorEngine();
    const file = path.join(root, "plugins/typo/ai.assemblyline/index.ts");
    const text = fs.readFileSync(file, "utf8");
    const at = text.indexOf("descripton");
    expect(engine.codeFixesAt(file, at + 2, at + 2).map((f) => f.title)).toEqual(["Change 'descripton' to 'description'"]);
    expect(engine.codeFixesAt(file, 0, 0)).toEqual([]);
  });

  it("syncs a drifted description either way", () => {
    for (const kind of ["drift-from-definition", "drift-to-definition"] as const) {
      const root = fixtureAgent();
      const engine = createEditorEngine();
      const file = path.join(root, "plugins/drift/ai.assemblyline/index.ts");
      const fix = engine.analyzeFile(file).fixes.find((f) => f.kind === kind);
      expect(fix, kind).toBeDefined();
      for (const target of new Set(fix!.edits.map((e) => e.file))) fs.writeFileSync(target, applyEdits(fs.readFileSync(target, "utf8"), fix!, target));
      expect(frontEnd(root, file), kind).toEqual([]);
      expect(engine.analyzeFile(file).diagnostics).toEqual([]);
    }
  });

  it("keeps CRLF and BOM spans as compile reports them", () => {
    const base = plugin("demo", "echo", GOOD_FIELDS.replace('message: { type: "string" }', 'message: { type: "strng" }'));
    for (const transform of [(t: string) => t.replace(/\n/g, "\r\n"), (t: string) => `\uFEFF${t}`]) {
      const root = writeTree({ "agent.md": "---\nname: a\ncapabilities:\n  demo: {}\n---\n", ...Object.fromEntries(Object.entries(base).map(([f, t]) => [f, f.endsWith(".ts") ? transform(t) : t])) });
      const file = path.join(root, "plugins/demo/ai.assemblyline/index.ts");
      const engine = createEditorEngine();
      expect(engine.analyzeFile(file).diagnostics.length).toBeGreaterThan(0);
      expect(engine.analyzeFile(file).diagnostics).toEqual(frontEnd(root, file));
    }
  });
});
