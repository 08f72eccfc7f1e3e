/** plugin.json (Agent Plugins v1 §5): one test per diagnostic code, with exact positions. */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { mapManifestSchemaIssues } from "../../compiler/plugin-package/manifest.js";
import { loadPluginPackage, manifestOutcome, pluginNameProblems, suggestPluginName } from "../../compiler/plugin-package/index.js";
import { createMemoryHost } from "./memory-host.js";
import { parseJsonDocument } from "../../compiler/plugin-package/json-document.js";
import { expectDiagnostic, load, MANIFEST, PLUGIN_SCHEMA, ROOT, skill } from "./helpers.js";

const manifest = (...lines: string[]): string => `{\n  "$schema": "${PLUGIN_SCHEMA}",\n${lines.join(",\n")}\n}\n`;

describe("plugin.json", () => {
  it("loads a valid manifest and strips nothing", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "acme.tools"`, `  "version": "spring"`, `  "author": { "email": "ask" }`) });
    expect(pkg.rejected).toBe(false);
    expect(pkg.diagnostics).toEqual([]);
    expect(pkg.name).toBe("acme.tools");
    expect(pkg.version).toBe("spring");
    expect(manifestOutcome(pkg)).toBe("valid");
  });

  it("AL2001: the plugin root must exist and be a directory", () => {
    const missing = loadPluginPackage(createMemoryHost({ "/work/other/plugin.json": MANIFEST }), ROOT);
    expect(missing.rejected).toBe(true);
    expect(missing.mcpStatus).toBe("not-discovered");
    // A root that is not there is the folder it was meant to be (plugins/helo/, not plugins/helo:1:1; README trial of 6 December, C9).
    expect(missing.diagnostics.map((d) => [d.code, d.file, d.line, d.column])).toEqual([["AL2001", `${ROOT}/`, 1, 1]]);
    expect(missing.diagnostics[0]?.hint).toBe("Pass the directory that contains plugin.json.");
    const file = loadPluginPackage(createMemoryHost({ [ROOT]: "not a directory" }), ROOT);
    expect(file.diagnostics.map((d) => [d.message, d.file])).toEqual([[`The plugin root '${ROOT}' is not a directory, so no plugin can be loaded from it.`, ROOT]]);
    // A near-miss folder beside a missing root is named.
    const typo = loadPluginPackage(createMemoryHost({ [`${path.dirname(ROOT)}/hello/plugin.json`]: MANIFEST }), `${path.dirname(ROOT)}/helo`);
    expect(typo.diagnostics.map((d) => [d.code, d.file, d.hint])).toEqual([["AL2001", `${path.dirname(ROOT)}/helo/`, "Did you mean 'hello', the folder beside it? Pass the directory that contains plugin.json."]]);
  });

  it("AL2002: a missing plugin.json rejects the plugin", () => {
    const pkg = loadPluginPackage(createMemoryHost({ [`${ROOT}/skills/alpha/SKILL.md`]: skill("alpha") }), ROOT);
    expect(pkg.rejected).toBe(true);
    expect(pkg.skills).toEqual([]);
    // About the folder: plugins/x/, not plugins/x:1:1 (common/positions.ts folderStart; helper-88).
    const d = expectDiagnostic(pkg, { code: "AL2002", file: "/", line: 1, column: 1 });
    expect(d.file).toBe(`${ROOT}/`);
    expect(d.hint).toContain('"name": "plugin"');
  });

  it("AL2002 in an agent's folder says it is an agent, not a plugin", () => {
    const pkg = loadPluginPackage(createMemoryHost({ [`${ROOT}/agent.md`]: "---\ncapabilities: {}\n---\n" }), ROOT);
    const d = expectDiagnostic(pkg, { code: "AL2002", file: "/", line: 1, column: 1 });
    expect(d.hint).toBe("This folder is an agent (it has agent.md), not a plugin: validate one of its plugins (plugins/<name>/), or run `npx assembly-line compile` on the agent.");
  });

  it("AL2009: plugin.json must be a regular file", () => {
    const pkg = load({ "plugin.json": { directory: true } });
    expect(pkg.rejected).toBe(true);
    expectDiagnostic(pkg, { code: "AL2009", file: "plugin.json", line: 1, column: 1 });
  });

  it("AL2101: the manifest must be an object", () => {
    const pkg = load({ "plugin.json": `[{ "$schema": "${PLUGIN_SCHEMA}", "name": "demo" }]`, "skills/alpha/SKILL.md": skill("alpha") });
    expect(pkg.rejected).toBe(true);
    expect(pkg.skills).toEqual([]);
    expect(pkg.skillsStatus).toBe("not-discovered");
    expectDiagnostic(pkg, { code: "AL2101", file: "plugin.json", line: 1, column: 1 });
  });

  it("AL2102: an unknown top-level field is reported, ignored and stripped, with did-you-mean", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "demo"`, `  "descripton": "x"`) });
    expect(pkg.rejected).toBe(false);
    expect(manifestOutcome(pkg)).toBe("valid-with-warnings");
    const d = expectDiagnostic(pkg, { code: "AL2102", file: "plugin.json", line: 4, column: 3, path: "descripton", severity: "warning" });
    expect(d.hint).toBe("Did you mean 'description'?");
    expect(Object.keys(pkg.manifest!)).toEqual(["$schema", "name"]);
  });

  it("AL2102: inline skills are never honoured", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "demo"`, `  "skills": ["./elsewhere"]`) });
    const d = expectDiagnostic(pkg, { code: "AL2102", file: "plugin.json", line: 4, column: 3, path: "skills" });
    expect(d.hint).toContain("skills/<name>/SKILL.md");
    expect(pkg.skillsStatus).toBe("absent");
  });

  it("AL2103: a missing name or $schema rejects the plugin", () => {
    const noName = load({ "plugin.json": `{\n  "$schema": "${PLUGIN_SCHEMA}"\n}\n` });
    expect(noName.rejected).toBe(true);
    expectDiagnostic(noName, { code: "AL2103", file: "plugin.json", line: 1, column: 1 });
    const noSchema = load({ "plugin.json": `{ "name": "demo", "skills": [] }` });
    expect(noSchema.rejected).toBe(true);
    const d = expectDiagnostic(noSchema, { code: "AL2103", file: "plugin.json", line: 1, column: 1 });
    expect(d.message).toContain("'$schema'");
    expect(d.hint).toContain(PLUGIN_SCHEMA);
    // $schema selects the rules: nothing else is reported.
    expect(noSchema.diagnostics).toHaveLength(1);
    // Except a missing name, which every version requires: `{}` reports both at once, not one per compile.
    const empty = load({ "plugin.json": "{}\n" });
    expect(empty.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["AL2103", "plugin.json is missing the required field '$schema'; the plugin is rejected (Agent Plugins v1 §5.3)."],
      ["AL2103", "plugin.json is missing the required field 'name'; the plugin is rejected (Agent Plugins v1 §5.3)."],
    ]);
    expect(empty.diagnostics[1]!.hint).toMatch(/^Add "name": "/);
    const unsupported = load({ "plugin.json": `{ "$schema": "https://agent-plugins.org/schemas/9.0.0/plugin.schema.json" }` });
    expect(unsupported.diagnostics.map((d) => d.code).sort()).toEqual(["AL2103", "AL2104"]);
    const typo = load({ "plugin.json": `{ "schema": "${PLUGIN_SCHEMA}", "name": "demo" }` });
    expect(typo.diagnostics.map((d) => d.hint)).toEqual([`Did you mean '$schema' instead of 'schema'? Write "$schema": "${PLUGIN_SCHEMA}".`]);
  });

  it("AL2104: unsupported or non-canonical $schema rejects the plugin and names the supported URL", () => {
    for (const schema of ["https://agent-plugins.org/schemas/2.0.0/plugin.schema.json", "http://agent-plugins.org/schemas/1.0.0/plugin.schema.json", `${PLUGIN_SCHEMA}/`]) {
      const pkg = load({ "plugin.json": `{\n  "$schema": "${schema}",\n  "name": "demo"\n}` });
      expect(pkg.rejected).toBe(true);
      const d = expectDiagnostic(pkg, { code: "AL2104", file: "plugin.json", line: 2, column: 14, path: "$schema" });
      expect(d.hint).toContain(PLUGIN_SCHEMA);
    }
    const numeric = load({ "plugin.json": `{ "$schema": 1, "name": "demo" }` });
    expectDiagnostic(numeric, { code: "AL2104", file: "plugin.json", line: 1, column: 14, path: "$schema" });
  });

  it("AL2105: a wrong type rejects the plugin (nested paths included)", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "demo"`, `  "keywords": [\n    "ok",\n    7\n  ]`) });
    expect(pkg.rejected).toBe(true);
    expectDiagnostic(pkg, { code: "AL2105", file: "plugin.json", line: 6, column: 5, path: "keywords[1]" });
    const author = load({ "plugin.json": manifest(`  "name": "demo"`, `  "author": { "name": ["x"] }`) });
    expectDiagnostic(author, { code: "AL2105", file: "plugin.json", line: 4, column: 23, path: "author.name" });
  });

  it("AL2106: the plugin name rules of §5.5, with a suggested name", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "My_Plugin"`) });
    expect(pkg.rejected).toBe(true);
    expect(pkg.name).toBe("My_Plugin");
    const d = expectDiagnostic(pkg, { code: "AL2106", file: "plugin.json", line: 3, column: 11, path: "name" });
    expect(d.message).toContain("uppercase letters ('M', 'P')");
    expect(d.message).toContain("('_')");
    expect(d.hint).toContain("Did you mean 'my-plugin'?");
  });

  it("AL2107: author is closed", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "demo"`, `  "author": {\n    "emial": "a@b.c"\n  }`) });
    expect(pkg.rejected).toBe(true);
    const d = expectDiagnostic(pkg, { code: "AL2107", file: "plugin.json", line: 5, column: 5, path: "author.emial" });
    expect(d.hint).toBe("Did you mean 'email'?");
  });

  it("AL2108: a non-object extensions is reported and ignored", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "demo"`, `  "extensions": ["com.example.client"]`), "skills/alpha/SKILL.md": skill("alpha") });
    expect(pkg.rejected).toBe(false);
    expect(pkg.skills.map((s) => s.name)).toEqual(["alpha"]);
    expectDiagnostic(pkg, { code: "AL2108", file: "plugin.json", line: 4, column: 17, path: "extensions", severity: "warning" });
    expect(Object.hasOwn(pkg.manifest!, "extensions")).toBe(false);
  });

  it("AL2109: a non-object extensions member rejects the plugin (disputed: we reject)", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "demo"`, `  "extensions": {\n    "com.example.client": "enabled"\n  }`) });
    expect(pkg.rejected).toBe(true);
    expectDiagnostic(pkg, { code: "AL2109", file: "plugin.json", line: 5, column: 27, path: 'extensions["com.example.client"]' });
  });

  it("extension namespace contents are never validated", () => {
    const pkg = load({ "plugin.json": manifest(`  "name": "demo"`, `  "extensions": { "com.example.client": { "anything": [1, {"x": null}] } }`) });
    expect(pkg.diagnostics).toEqual([]);
  });

  it("AL2110: any other schema violation is fatal (mapping fallback)", () => {
    const document = parseJsonDocument(`${ROOT}/plugin.json`, manifest(`  "name": "demo"`, `  "keywords": []`));
    const diagnostics = mapManifestSchemaIssues([{ keyword: "minItems", instancePath: "/keywords", params: { limit: 1 }, message: "must NOT have fewer than 1 items" }], document.located!, `${ROOT}/plugin.json`, ROOT);
    expect(diagnostics.map((d) => [d.code, d.line, d.column, d.path, d.severity])).toEqual([["AL2110", 4, 15, "keywords", "error"]]);
  });

  it("every problem of a broken manifest is reported, fatal ones as errors and ignorable ones as warnings", () => {
    const pkg = load({
      "plugin.json": manifest(`  "name": "Bad--Plugin"`, `  "version": 18`, `  "extensions": "x"`, `  "components": {}`),
    });
    expect(pkg.rejected).toBe(true);
    expect(pkg.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["AL2106", "error"],
      ["AL2105", "error"],
      ["AL2108", "warning"],
      ["AL2102", "warning"],
    ]);
  });
});

describe("plugin name rules (§5.5)", () => {
  it.each([
    ["my-plugin", []],
    ["acme.tools", []],
    ["lint3r", []],
    ["a", []],
    ["a".repeat(64), []],
    ["", ["it is empty"]],
    ["a".repeat(65), ["it is 65 characters long (at most 64)"]],
    ["-start", ["it starts with '-' instead of a letter or digit"]],
    ["end.", ["it ends with '.' instead of a letter or digit"]],
    ["has--double", ["it contains '--'"]],
    ["too.many..dots", ["it contains '..'"]],
    ["caf\u00e9", ["it contains characters other than a-z, 0-9, '-' and '.' ('\u00e9')"]],
  ])("%j", (name, problems) => {
    expect(pluginNameProblems(name)).toEqual(problems);
  });

  it("suggests a valid name", () => {
    expect(suggestPluginName("My_Plugin")).toBe("my-plugin");
    expect(suggestPluginName("ünïcödé-plugin")).toBe("unicode-plugin");
    expect(suggestPluginName("--")).toBeUndefined();
    expect(suggestPluginName("ok")).toBeUndefined();
  });

  it("agrees with the official schema pattern", () => {
    const pattern = /^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/u;
    for (const name of ["a", "a-b.c", "a.-b", "a-.b", "-a", "a-", ".a", "a..b", "a--b", "A", "a_b", "ab1", "1", "a b"]) {
      expect(pluginNameProblems(name).length === 0, name).toBe(pattern.test(name) && name.length <= 64);
    }
  });
});

describe("catalog", () => {
  it("every AL2 entry is reachable under its own name in Diagnostics", () => {
    expect(Diagnostics.ManifestUnknownField.code).toBe("AL2102");
    expect(Diagnostics.PluginFileJsonSyntax.code).toBe("AL2007");
  });
});
