import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgent } from "../../compiler/agent/load-agent.js";
import { resolveCapabilities } from "../../compiler/agent/resolve-capabilities.js";
import { createNodeHost } from "../../common/host.js";
import { writeTree } from "../helpers/temp-tree.js";

const host = createNodeHost();
const codes = (ds: readonly { code: string }[]) => ds.map((d) => d.code);

describe("loadAgent", () => {
  it("reads surfaces and capability requests with their agent.md positions", () => {
    const root = writeTree({
      "agent.md": "---\nname: support-agent\ncapabilities:\n  example: {}\n  private-search:\n    config: { index: products }\n---\nYou help.\n",
      "subagents/researcher/agent.md": "---\nname: researcher\ncapabilities:\n  notes:\n---\n",
      "subagents/researcher/subagents/deep/agent.md": "---\nname: deep\n---\n",
    });
    const agent = loadAgent(host, root);
    expect(agent.diagnostics).toEqual([]);
    expect(agent.surfaces.map((s) => [s.id, s.parent, s.name])).toEqual([
      [".", null, "support-agent"],
      ["subagents/researcher", ".", "researcher"],
      ["subagents/researcher/subagents/deep", "subagents/researcher", "deep"],
    ]);
    const [example, search] = agent.surfaces[0]!.capabilities;
    expect(example).toMatchObject({ key: "example", package: undefined, config: {}, location: { line: 4, column: 3 } });
    expect(search).toMatchObject({ key: "private-search", config: { index: "products" }, configPointer: "/capabilities/private-search/config" });
    expect(agent.surfaces[1]!.capabilities.map((c) => c.key)).toEqual(["notes"]);
  });

  it("counts lines and columns as an editor does with a BOM and CRLF", () => {
    const root = writeTree({ "agent.md": "\uFEFF---\r\ncapabilities:\r\n  example:\r\n    packag: x\r\n---\r\n" });
    const [d] = loadAgent(host, root).diagnostics;
    expect(d).toMatchObject({ code: "AL1010", line: 4, column: 5, path: "capabilities.example.packag", hint: "Did you mean 'package'? If 'packag' is one of the plugin's options, put it under 'config:'." });
  });

  it("reports a missing agent.md, a missing or unterminated front matter, and YAML errors with positions", () => {
    expect(codes(loadAgent(host, writeTree({ "README.md": "x" })).diagnostics)).toEqual(["AL1001"]);
    expect(codes(loadAgent(host, writeTree({ "agent.md": "# Just instructions\n" })).diagnostics)).toEqual(["AL1004"]);
    expect(codes(loadAgent(host, writeTree({ "agent.md": "" })).diagnostics)).toEqual(["AL1026"]);
    // The span is the opening `---`, not its line end (helper-75 K9: line 2 was underlined too).
    expect(loadAgent(host, writeTree({ "agent.md": "---\nname: x\n" })).diagnostics[0]).toMatchObject({ code: "AL1005", line: 1, column: 1, endLine: 1, endColumn: 4 });
    expect(loadAgent(host, writeTree({ "agent.md": "\uFEFF---  \r\nname: x\n" })).diagnostics[0]).toMatchObject({ code: "AL1005", line: 1, column: 1, endLine: 1, endColumn: 4 });
    const yaml = loadAgent(host, writeTree({ "agent.md": "---\nname: x\ncapabilities:\n  a: {}\n  a: {}\n---\n" })).diagnostics;
    expect(yaml[0]).toMatchObject({ code: "AL1006", line: 5, column: 3 });
    // One mistake, one error: an unclosed flow mapping made the parser report three at one spot (new-user trial M5).
    const unclosed = loadAgent(host, writeTree({ "agent.md": "---\nname: my-agent\ncapabilities:\n  hello: {\n    greeting: hi\n   bad: 1\n---\n" })).diagnostics;
    expect(codes(unclosed)).toEqual(["AL1006"]);
    expect(unclosed[0]!.message).toMatch(/more errors? after this one, which may follow from it\)$/);
    expect(codes(loadAgent(host, writeTree({ "agent.md": "---\n- a\n- b\n---\n" })).diagnostics)).toEqual(["AL1007"]);
  });

  it("says what to do about the YAML mistakes agent.md authors make, with their own key, and points at the mistake itself (helper-67, helper-69)", () => {
    const first = (agentMd: string) => loadAgent(host, writeTree({ "agent.md": agentMd })).diagnostics[0]!;
    // `hello: {` never closed: the parser reports it at the end of the front matter; the error is at the `{`.
    const unclosed = first("---\nname: a\ncapabilities:\n  hello: {\n---\n");
    expect(unclosed).toMatchObject({ code: "AL1006", line: 4, column: 10 });
    expect(unclosed.hint).toBe("The '{' here is never closed: close it with '}' on the same line, write {} for an empty entry (hello: {}), or drop the braces and put its fields on the lines below, indented.");
    // An unclosed `[` is not told to become `[]` (a capability is a mapping).
    expect(first("---\nname: a\ncapabilities: [\n---\n").hint).toBe("The '[' here is never closed: close the list with ']' on the same line, or drop the brackets and write each item on a line of its own below, after '- '.");
    // An unclosed quote: at the quote, with the key it belongs to.
    const quote = first("---\nname: a\ncapabilities:\n  s:\n    config:\n      index: 'abc\n---\n");
    expect(quote).toMatchObject({ line: 6, column: 14 });
    expect(quote.hint).toBe("Close the quote on the same line (index: '…'), or write a text of several lines as a block: index: | and the text on the lines below, indented.");
    expect(first("---\nname: a\ncapabilities:\n\thello: {}\n---\n").hint).toBe("Indent with spaces: YAML does not allow tabs for indentation.");
    expect(first("---\nname: a\nname: b\n---\n").hint).toBe("'name' is written twice in this mapping: remove or rename one of them.");
    expect(first("---\nname: a\ndescription: Answers: briefly\n---\n").hint).toBe('A value that holds ": " must be quoted: description: "Answers: briefly".');
    // A key out of line: at the key, not at the start of its line.
    const misaligned = first("---\nname: a\ncapabilities:\n  hello: {}\n   other: {}\n---\n");
    expect(misaligned).toMatchObject({ line: 5, column: 4 });
    expect(misaligned.hint).toContain("Line up the keys of one mapping");
  });

  it("finds the bracket or quote left open past comments and escapes, and gives no quoting hint where no ': ' is (helper-72)", () => {
    const first = (frontMatter: string) => loadAgent(host, writeTree({ "agent.md": `---\n${frontMatter}\n---\nBody.\n` })).diagnostics[0]!;
    // A comment holding a bracket, after the one left open.
    expect(first("name: a\ncapabilities:\n  example: {\n  # old: {}\n")).toMatchObject({ code: "AL1006", line: 4, column: 12 });
    expect(first("name: a\ntags: [a, b\n# [todo]\n")).toMatchObject({ code: "AL1006", line: 3, column: 7 });
    // Escapes inside the open quote, and an apostrophe in plain text before it.
    expect(first('name: a\ndescription: "Say \\"hi\\" to\n')).toMatchObject({ code: "AL1006", line: 3, column: 14 });
    expect(first("name: it's\ndescription: 'It''s fine\n")).toMatchObject({ code: "AL1006", line: 3, column: 14 });
    // A stray list item: at its dash, with a hint about lists.
    const stray = first("name: a\ncapabilities:\n  example: {}\n - other\n");
    expect(stray).toMatchObject({ code: "AL1006", line: 5, column: 2 });
    expect(stray.hint).toBe("This '- ' item is not in line with a list: write a list's items under their key, each '- ' at the same indentation, or remove the stray '- '.");
    // A stray item above the keys: the parser blamed the key below it, which is in line (helper-75 C7).
    const above = first("name: a\ncapabilities:\n  # The local plugin.\n  - hello\n  hello:\n    config:\n      language: fr\n");
    expect(above).toMatchObject({ code: "AL1006", line: 5, column: 3, endLine: 5, endColumn: 10, message: "The front matter is not valid YAML: '- hello' is a list item among the keys of a mapping" });
    expect(above.hint).toBe("Remove the stray '- hello' line: a block is either a list of '- ' items or a mapping of keys, and 'hello' is a key of this one already, on the line below.");
    const other = first("name: a\ncapabilities:\n  - search\n\n  hello: {}\n");
    expect(other).toMatchObject({ line: 4, column: 3 });
    expect(other.hint).toBe("A block is either a list of '- ' items or a mapping of keys, not both: remove the stray '- ', or write the item as a key with its value (search: {}).");
    // A key that really is out of line, below an item of a list at its own indentation, keeps the parser's words.
    expect(first("name: a\ncapabilities:\n  - a\n  - b\n  hello: {}\n")).toMatchObject({ line: 6, column: 3 });
    // A key indented under one that has a value: quoting that value would not help.
    expect(first("name: a\ndescription: x\n  more: y\n").hint).toBe(
      "'description' has a value on its own line (description: x), so the keys below it cannot be indented under it: line them up with 'description', or remove the value to give 'description' those keys.",
    );
    // The quoted value of the hint leaves a trailing comment out.
    expect(first("name: a\ndescription: Note: this # c\n").hint).toBe('A value that holds ": " must be quoted: description: "Note: this".');
  });

  it("says how to write capabilities: given as a list, with the list's own names (helper-69)", () => {
    const listed = loadAgent(host, writeTree({ "agent.md": "---\nname: a\ncapabilities:\n  - hello\n  - search\n---\n" })).diagnostics;
    expect(listed.map((d) => d.code)).toEqual(["AL1008"]);
    // The span ends with '- search', not at the start of the closing '---' line (helper-75 K9).
    expect(listed[0]).toMatchObject({ line: 4, column: 3, endLine: 5, endColumn: 11 });
    expect(listed[0]!.hint).toBe("Write each capability as a key with its entry, one per line under capabilities: (hello: {}, search: {}), not as a list item.");
    const text = loadAgent(host, writeTree({ "agent.md": "---\nname: a\ncapabilities: hello\n---\n" })).diagnostics;
    expect(text[0]!.hint).toBe("Write each capability as a key with its entry, one per line under capabilities:, e.g. hello: {}.");
  });

  it("reports bad capability entries and keys, and non-JSON YAML values", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  Bad_Key: {}\n  listy: [1]\n  ok:\n    config: !!binary aGVsbG8=\n  num:\n    config: { n: .inf }\n---\n",
    });
    const diagnostics = loadAgent(host, root).diagnostics;
    expect(diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([
      ["AL1018", 6, "capabilities.ok.config"],
      ["AL1018", 8, "capabilities.num.config.n"],
      ["AL1011", 3, "capabilities.Bad_Key"],
      ["AL1009", 4, "capabilities.listy"],
    ]);
  });

  it("refuses YAML a JSON value cannot hold: a non-string key (AL1019) and an alias (AL1020)", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  search:\n    config:\n      1: one\n      base: &base { limit: 5 }\n      copy: *base\n---\n",
    });
    const diagnostics = loadAgent(host, root).diagnostics;
    expect(diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([
      ["AL1019", 5, "capabilities.search.config"],
      ["AL1020", 7, "capabilities.search.config.copy"],
    ]);
    expect(diagnostics[0]!.message).toBe("Mapping key 1 is not a string.");
  });

  it("warns (AL1021) about a file in subagents/ and still loads the real subagent", () => {
    const root = writeTree({
      "agent.md": "---\nname: x\n---\n",
      "subagents/notes.md": "# not a subagent",
      "subagents/researcher/agent.md": "---\nname: researcher\n---\n",
    });
    const agent = loadAgent(host, root);
    expect(agent.surfaces.map((s) => s.id)).toEqual([".", "subagents/researcher"]);
    expect(agent.diagnostics).toMatchObject([{ code: "AL1021", severity: "warning", file: `${root}/subagents/notes.md`, message: "subagents/notes.md is not a directory, so it is not a subagent and is ignored." }]);
  });

  it("warns that an MD-first root's tools/ folder is never discovered", () => {
    const root = writeTree({ "agent.md": "---\nname: x\n---\n", "tools/echo.ts": "export {}" });
    expect(loadAgent(host, root).diagnostics).toMatchObject([{ code: "AL1015", severity: "warning", file: `${root}/tools/` }]);
  });

  it("keeps __proto__ and constructor keys in config as data", () => {
    const root = writeTree({ "agent.md": "---\ncapabilities:\n  x:\n    config:\n      __proto__: { polluted: true }\n      constructor: 1\n---\n" });
    const [surface] = loadAgent(host, root).surfaces;
    const config = surface!.capabilities[0]!.config;
    expect(Object.getPrototypeOf(config)).toBe(Object.prototype);
    expect(Object.keys(config)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});

describe("resolveCapabilities", () => {
  it("resolves plugins/<key>/ first, then the package field, then the lock pin", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  local: {}\n  published:\n    package: \"@scope/published\"\n  pinned: {}\n  missing: {}\n---\n",
      "plugins/local/plugin.json": "{}",
      "plugins/unused/plugin.json": "{}",
      // No plugin.json: not a plugin package, so no AL1017 suggesting to select it (new-user trial 112).
      "plugins/notes-draft/README.md": "scratch",
      "node_modules/@scope/published/package.json": '{"name":"@scope/published","version":"1.2.3"}',
      "node_modules/pinned-pkg/package.json": '{"name":"pinned-pkg","version":"2.0.0"}',
    });
    const agent = loadAgent(host, root);
    const pins = new Map([[".", new Map([["pinned", { name: "pinned-pkg", version: "2.0.0" }]])]]);
    const result = resolveCapabilities(host, agent, { pins });
    expect(result.capabilities.map((c) => [c.request.key, c.source])).toEqual([
      ["local", { type: "local", dir: `${root}/plugins/local` }],
      ["published", { type: "npm", name: "@scope/published", version: "1.2.3", dir: `${root}/node_modules/@scope/published` }],
      ["pinned", { type: "npm", name: "pinned-pkg", version: "2.0.0", dir: `${root}/node_modules/pinned-pkg` }],
    ]);
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([
      ["AL1012", "error"],
      ["AL1017", "info"],
    ]);
    expect(result.diagnostics[1]!.message).toBe("plugins/unused/ is not selected in agent.md, so it is not part of this surface.");
    expect(result.diagnostics[0]!.hint).toContain("npx assembly-line add missing");
  });

  it("reports a named package that is not installed (AL1013) with the install command", () => {
    const root = writeTree({ "agent.md": "---\ncapabilities:\n  search:\n    package: \"@acme/search\"\n---\n" });
    const result = resolveCapabilities(host, loadAgent(host, root));
    expect(result.capabilities).toEqual([]);
    expect(result.diagnostics).toMatchObject([
      { code: "AL1013", severity: "error", line: 3, column: 3, message: "Package '@acme/search' of capability 'search' is not installed.", hint: "Run 'npm install' (or 'npx assembly-line add @acme/search') in the agent root." },
    ]);
  });

  it("refuses a package name npm would refuse (AL1022), by npm's naming rules", () => {
    for (const name of ["Acme-Search", "@acme", "node_modules", "a b"]) {
      const root = writeTree({ "agent.md": `---\ncapabilities:\n  search:\n    package: ${JSON.stringify(name)}\n---\n` });
      const result = resolveCapabilities(host, loadAgent(host, root));
      expect(result.diagnostics, name).toMatchObject([{ code: "AL1022", message: `'${name}' is not a valid npm package name.` }]);
    }
  });

  it("refuses an installed package without a readable version (AL1023)", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  search:\n    package: \"@acme/search\"\n---\n",
      "node_modules/@acme/search/package.json": '{"name":"@acme/search"}',
    });
    const result = resolveCapabilities(host, loadAgent(host, root));
    expect(result.capabilities).toEqual([]);
    expect(result.diagnostics).toMatchObject([
      { code: "AL1023", file: `${root}/node_modules/@acme/search/package.json`, message: "The installed package '@acme/search' has no readable package.json with a version." },
    ]);
  });

  it("suggests a local plugin folder for a mistyped key", () => {
    const root = writeTree({ "agent.md": "---\ncapabilities:\n  greetr: {}\n---\n", "plugins/greeter/plugin.json": "{}" });
    const [unresolved] = resolveCapabilities(host, loadAgent(host, root)).diagnostics;
    expect(unresolved).toMatchObject({ code: "AL1012", line: 3, column: 3, hint: "Did you mean 'greeter'? plugins/greeter/ is a local plugin of this surface." });
  });

  it("does not suggest a folder the surface already selects (new-user trial of 6 December: the quick fix made a duplicate key)", () => {
    const root = writeTree({ "agent.md": "---\ncapabilities:\n  hello: {}\n  helo: {}\n---\n", "plugins/hello/plugin.json": "{}" });
    const [unresolved] = resolveCapabilities(host, loadAgent(host, root)).diagnostics.filter((d) => d.code === "AL1012");
    expect(unresolved).toMatchObject({
      line: 4,
      hint: "'hello' (plugins/hello/) is selected already: remove this line if it repeats it, or create plugins/helo/ with a plugin.json.",
    });
  });

  it("names a subagent's own plugins folder, and says so when only the root agent has the plugin (new-user review)", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  hello: {}\n---\n",
      "plugins/hello/plugin.json": "{}",
      "subagents/helper/agent.md": "---\ncapabilities:\n  hello: {}\n  other: {}\n---\n",
    });
    const diagnostics = resolveCapabilities(host, loadAgent(host, root)).diagnostics.filter((d) => d.code === "AL1012");
    expect(diagnostics).toMatchObject([
      {
        file: `${root}/subagents/helper/agent.md`,
        message: "Capability 'hello' does not resolve: there is no subagents/helper/plugins/hello/ folder, no 'package' field and no published package pinned in plugins.lock.",
        hint: "plugins/hello/ is a local plugin of the root agent, and a subagent sees only the plugins in its own folder: move or copy it to subagents/helper/plugins/hello/, or publish it and select it with 'package' in each agent.md that needs it.",
      },
      { message: expect.stringContaining("there is no subagents/helper/plugins/other/ folder"), hint: expect.stringContaining("create subagents/helper/plugins/other/ with a plugin.json") },
    ]);
  });

  it("refuses an installed version that differs from the lock, with a fix-it hint", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  openui:\n    package: \"@assemblyline-agents/openui\"\n---\n",
      "node_modules/@assemblyline-agents/openui/package.json": '{"version":"1.1.0"}',
    });
    const pins = new Map([[".", new Map([["openui", { name: "@assemblyline-agents/openui", version: "1.0.0" }]])]]);
    const result = resolveCapabilities(host, loadAgent(host, root), { pins });
    expect(result.capabilities).toEqual([]);
    expect(result.diagnostics[0]).toMatchObject({ code: "AL6008", line: 3, column: 3, path: "capabilities.openui" });
    expect(result.diagnostics[0]!.hint).toContain("npx assembly-line add @assemblyline-agents/openui@1.1.0");
    const accepted = resolveCapabilities(host, loadAgent(host, root), { pins, acceptInstalled: new Set([".\0openui"]) });
    expect(accepted.diagnostics).toEqual([]);
  });

  it("reads how package.json installs the package for the hint: a tarball is named by its path, not by npm:<name> (new-user trial E4)", () => {
    const root = writeTree({
      "agent.md": "---\ncapabilities:\n  weather:\n    package: weather-plugin\n---\n",
      "package.json": '{"devDependencies":{"weather-plugin":"file:vendor/weather-plugin-1.3.0.tgz"}}',
      "node_modules/weather-plugin/package.json": '{"version":"1.3.0"}',
    });
    const pins = new Map([[".", new Map([["weather", { name: "weather-plugin", version: "1.2.0" }]])]]);
    const [diagnostic] = resolveCapabilities(host, loadAgent(host, root), { pins }).diagnostics;
    expect(diagnostic).toMatchObject({ code: "AL6008", path: "capabilities.weather" });
    expect(diagnostic!.hint).toContain("to lock what package.json installs, run `npx assembly-line add ./vendor/weather-plugin-1.3.0.tgz`");
    expect(diagnostic!.hint).not.toContain("npm:");
  });

  it("reads the declaring package.json of an npm workspace member, where npm hoisted the package to the root's node_modules (new-user trial 120, K4)", () => {
    const repo = writeTree({
      "package.json": '{"name":"team","private":true,"workspaces":["agents/*"]}',
      "agents/support/agent.md": "---\ncapabilities:\n  weather:\n    package: weather-plugin\n---\n",
      "agents/support/package.json": '{"name":"support","dependencies":{"weather-plugin":"file:../../vendor/weather-plugin-1.0.0.tgz"}}',
      "node_modules/weather-plugin/package.json": '{"version":"1.1.0"}',
    });
    const pins = new Map([[".", new Map([["weather", { name: "weather-plugin", version: "1.0.0" }]])]]);
    const [diagnostic] = resolveCapabilities(host, loadAgent(host, path.join(repo, "agents/support")), { pins }).diagnostics;
    expect(diagnostic).toMatchObject({ code: "AL6008", path: "capabilities.weather" });
    // A branch switch back to the lock's version: package.json names the locked tarball already.
    expect(diagnostic!.hint).toBe("package.json already installs weather-plugin from file:../../vendor/weather-plugin-1.0.0.tgz, the locked version 1.0.0: node_modules is behind it (as after a pull without an install). Run `npm install`.");
  });
});

describe("loadAgent: agent.md that is not UTF-8 (AL1003)", () => {
  it("points at the first invalid byte, not at 1:1", () => {
    const root = writeTree({ "agent.md": "" });
    fs.writeFileSync(path.join(root, "agent.md"), Buffer.concat([Buffer.from("---\nname: a\n---\nInstructions.\nCaf"), Buffer.from([0xe9]), Buffer.from(" au lait.\n")]));
    const [d] = loadAgent(host, root).diagnostics;
    expect(d).toMatchObject({ code: "AL1003", line: 5, column: 4, endLine: 5, endColumn: 5 });
  });
});

describe("loadAgent: an agent.md link that leads to no file", () => {
  it("is AL1002 naming the link's target, not AL1001 'there is no agent.md'", () => {
    const root = writeTree({ "README.md": "x" });
    fs.symlinkSync("nowhere.md", path.join(root, "agent.md"));
    const [missing] = loadAgent(host, root).diagnostics;
    expect(missing).toMatchObject({ code: "AL1002", message: "agent.md could not be read: it is a symbolic link to 'nowhere.md', which does not exist.", hint: "Point the link at an existing file (ln -sf <file> agent.md), or replace it with a regular agent.md." });
    fs.rmSync(path.join(root, "agent.md"));
    fs.symlinkSync("agent.md", path.join(root, "agent.md"));
    expect(loadAgent(host, root).diagnostics[0]).toMatchObject({ code: "AL1002", message: "agent.md could not be read: it is a symbolic link to 'agent.md', that is, to itself." });
  });
});
