/**
 * Descriptor validation (issue 2 item 4): every AL4xxx rule on a real plugin folder, with the
 * exact code, line, column and property path.
 */
import { describe, expect, it } from "vitest";
import { createNodeHost } from "../../common/host.js";
import { validatePackage } from "../../compiler/validate-package.js";
import { AUTHORING_CORE_SPECIFIERS } from "../../contract/authoring-core.js";
import { writeTree, type TreeEntry } from "../helpers/temp-tree.js";

const PLUGIN_JSON = JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "p" });
const ECHO = `import { defineTool } from "@assemblyline-agents/core";
export default defineTool({
  description: "Echo.",
  inputSchema: { type: "object" },
  async execute() { return {}; }
});
`;

/** Validates a plugin whose entry is `entry` (lines joined with \n) plus extra files. */
function validate(entry: readonly string[], files: Record<string, TreeEntry> = {}) {
  const dir = writeTree({ "plugin.json": PLUGIN_JSON, "ai.assemblyline/index.ts": entry.join("\n") + "\n", "ai.assemblyline/echo.ts": ECHO, ...files });
  return validatePackage(createNodeHost(), dir);
}

const pick = (d: { code: string; line: number; column: number; path?: string }) => ({ code: d.code, line: d.line, column: d.column, path: d.path });

describe("descriptor validation", () => {
  it("accepts the seed's minimal echo plugin", () => {
    const result = validate([
      "export default {",
      "  tools: {",
      "    echo: {",
      '      definition: "./ai.assemblyline/echo.ts",',
      '      description: "Echo.",',
      '      inputSchema: { type: "object" }',
      "    }",
      "  }",
      "};",
    ]);
    expect(result.diagnostics).toEqual([]);
    expect(result).toMatchObject({ ok: true, plugin: { name: "p", rejected: false, tools: ["echo"], skills: [], mcpServers: [] } });
  });

  it("reports an unknown field at its key with a did-you-mean hint, and a missing field at the tool", () => {
    const { diagnostics } = validate([
      "export default {",
      "  tools: {",
      "    echo: {",
      '      definition: "./ai.assemblyline/echo.ts",',
      '      descripton: "Echo.",',
      '      inputSchema: { type: "object", properties: { message: { type: "string", maxLenght: 5 } } }',
      "    },",
      "    shout: {",
      '      definition: "./ai.assemblyline/echo.ts",',
      '      owner: "me",',
      '      inputSchema: { type: "object" }',
      "    }",
      "  }",
      "};",
    ]);
    // The shape errors do not hide the schema's own problem: all are reported together. The
    // misspelt `descripton` is one error (AL4001, naming the field), not also a missing
    // `description` (as tsc reports an excess property and not the property it misspells);
    // `owner` is the near miss of nothing, so `shout` is also missing its description.
    expect(diagnostics.map(pick)).toEqual([
      { code: "AL4001", line: 5, column: 7, path: "tools.echo.descripton" },
      { code: "AL4020", line: 6, column: 79, path: "tools.echo.inputSchema.properties.message.maxLenght" },
      { code: "AL4002", line: 8, column: 5, path: "tools.shout" },
      { code: "AL4001", line: 10, column: 7, path: "tools.shout.owner" },
    ]);
    expect(diagnostics[0]!.hint).toBe("Did you mean 'description'?");
    expect(diagnostics[2]!.message).toBe("Tool 'shout' is missing the required field 'description'.");
  });

  it("reports wrong types and enum values in its own words", () => {
    const { diagnostics } = validate([
      "export default {",
      "  tools: {",
      '    echo: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" },',
      '      visibility: "public", tags: "x", requiredConfig: ["ok", "1bad"] }',
      "  }",
      "};",
    ]);
    const byPath = Object.fromEntries(diagnostics.map((d) => [d.path, d]));
    expect(byPath["tools.echo.visibility"]).toMatchObject({ code: "AL4003", line: 4, column: 19 });
    expect(byPath["tools.echo.visibility"]!.message).toBe(`'tools.echo.visibility' must be one of "visible", "deferred", "hidden", but it is "public".`);
    expect(byPath["tools.echo.tags"]!.message).toContain("must be an array, but it is a string");
    const line4 = '      visibility: "public", tags: "x", requiredConfig: ["ok", "1bad"] }';
    expect(byPath["tools.echo.requiredConfig[1]"]).toMatchObject({ code: "AL4003", line: 4, column: line4.indexOf('"1bad"') + 1 });
  });

  it("refuses tool names that model APIs cannot use", () => {
    const { diagnostics } = validate(["export default { tools: {", '  "search index": { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" } }', "} };"]);
    expect(diagnostics.map(pick)).toEqual([{ code: "AL4004", line: 2, column: 3, path: 'tools["search index"]' }]);
    expect(diagnostics[0]!.message).toContain("it contains \" \"");
  });

  it("applies the definition rules: ./ prefix, containment (also through symlinks), existence, a file, a module", () => {
    const tool = (name: string, definition: string) => `  ${name}: { definition: ${JSON.stringify(definition)}, description: "Echo.", inputSchema: { type: "object" } },`;
    const { diagnostics } = validate(
      [
        "export default { tools: {",
        tool("a", "ai.assemblyline/echo.ts"),
        tool("b", "./../outside.ts"),
        tool("c", "./ai.assemblyline/missing.ts"),
        tool("d", "./ai.assemblyline"),
        tool("e", "./ai.assemblyline/notes.md"),
        tool("f", "./ai.assemblyline/linked.ts"),
        "} };",
      ],
      { "ai.assemblyline/notes.md": "# notes", "ai.assemblyline/linked.ts": { link: "../../outside.ts" }, "../outside.ts": ECHO },
    );
    expect(diagnostics.map((d) => [d.code, d.line, d.column, d.path])).toEqual([
      ["AL4005", 2, 20, "tools.a.definition"],
      ["AL4006", 3, 20, "tools.b.definition"],
      ["AL4007", 4, 20, "tools.c.definition"],
      ["AL4008", 5, 20, "tools.d.definition"],
      ["AL4030", 6, 20, "tools.e.definition"],
      ["AL4006", 7, 20, "tools.f.definition"],
      // The escaping symlink is also refused by the content hash: it cannot be locked.
      ["AL6102", 1, 1, undefined],
    ]);
    expect(diagnostics[5]!.message).toContain("through a symlink");
    // The path without './' names a file of the plugin: the hint is that exact path (helper-78), which the editor's quick fix applies.
    expect(diagnostics[0]!.hint).toBe("Did you mean './ai.assemblyline/echo.ts'? Definitions are written relative to the plugin root, beginning with './'.");
  });

  it("keeps the catalog's AL4005 hint when './' before the path names no file of the plugin", () => {
    const tool = (name: string, definition: string) => `  ${name}: { definition: ${JSON.stringify(definition)}, description: "Echo.", inputSchema: { type: "object" } },`;
    const { diagnostics } = validate(["export default { tools: {", tool("a", "ai.assemblyline/nope.ts"), tool("b", "/abs/echo.ts"), "} };"]);
    expect(diagnostics.map((d) => [d.code, d.hint])).toEqual([
      ["AL4005", "Write it relative to the plugin root, e.g. './ai.assemblyline/echo.ts'."],
      ["AL4005", "Write it relative to the plugin root, e.g. './ai.assemblyline/echo.ts'."],
    ]);
  });

  it("suggests the intended definition path when the written one does not exist", () => {
    const tool = (name: string, definition: string) => `  ${name}: { definition: ${JSON.stringify(definition)}, description: "Echo.", inputSchema: { type: "object" } },`;
    const { diagnostics } = validate(["export default { tools: {", tool("a", "./echo.ts"), tool("b", "./ai.assemblyline/echo.js"), tool("c", "./nowhere.ts"), tool("d", "./ai.assemblyline/ecko.ts"), "} };"]);
    expect(diagnostics.map((d) => [d.code, d.hint])).toEqual([
      ["AL4007", "definition is relative to the plugin root, not to the entry: write './ai.assemblyline/echo.ts'."],
      ["AL4007", "definition names the source file itself: write './ai.assemblyline/echo.ts'."],
      ["AL4007", "definition is relative to the plugin root (the folder with plugin.json)."],
      ["AL4007", "Did you mean './ai.assemblyline/echo.ts'?"],
    ]);
  });

  it("finds the factory statically: a missing named export lists what is exported; no default export without a factory", () => {
    const { diagnostics } = validate(
      [
        "export default { tools: {",
        '  a: { definition: "./ai.assemblyline/search.ts", factory: "createSearch", description: "S.", inputSchema: { type: "object" } },',
        '  b: { definition: "./ai.assemblyline/search.ts", description: "S.", inputSchema: { type: "object" } },',
        '  c: { definition: "./ai.assemblyline/search.ts", factory: "createSearchTool", description: "S.", inputSchema: { type: "object" } },',
        "} };",
      ],
      { "ai.assemblyline/search.ts": 'import { defineTool } from "@assemblyline-agents/core";\nexport function createSearchTool(config: { limit: number }) {\n  return defineTool({ description: "S.", inputSchema: { type: "object" }, async execute() { return config; } });\n}\n' },
    );
    expect(diagnostics.map(pick)).toEqual([
      { code: "AL4009", line: 2, column: '  a: { definition: "./ai.assemblyline/search.ts", factory: "createSearch"'.indexOf('"createSearch"') + 1, path: "tools.a.factory" },
      { code: "AL4011", line: 3, column: 20, path: "tools.b.definition" },
    ]);
    expect(diagnostics[0]!.hint).toBe("It exports: createSearchTool.");
  });

  // New-user trial E2: `factory: "gated"` naming `export const gated = defineTool({...})` passed
  // compile, validate and tsc, and failed only when called (after its approval was spent).
  it("reports (AL4034) a factory that names the tool itself, and a default export that is a factory without factory", () => {
    const { diagnostics } = validate(
      [
        "export default { tools: {",
        '  a: { definition: "./ai.assemblyline/gated.ts", factory: "gated", description: "G.", inputSchema: { type: "object" } },',
        '  b: { definition: "./ai.assemblyline/make.ts", description: "M.", inputSchema: { type: "object" } },',
        '  c: { definition: "./ai.assemblyline/gated.ts", factory: "makeGated", description: "G.", inputSchema: { type: "object" } },',
        '  d: { definition: "./ai.assemblyline/make.ts", factory: "other", description: "M.", inputSchema: { type: "object" } },',
        "} };",
      ],
      {
        "ai.assemblyline/gated.ts": 'import { defineTool } from "@assemblyline-agents/core";\nexport const gated = defineTool({ description: "G.", inputSchema: { type: "object" }, async execute() { return {}; } });\nexport const makeGated = () => gated;\n',
        "ai.assemblyline/make.ts": 'import { defineTool } from "@assemblyline-agents/core";\nexport default function make() {\n  return defineTool({ description: "M.", inputSchema: { type: "object" }, async execute() { return {}; } });\n}\nexport function other() {\n  return defineTool({ description: "M.", inputSchema: { type: "object" }, async execute() { return {}; } });\n}\n',
      },
    );
    expect(diagnostics.map(pick)).toEqual([
      { code: "AL4034", line: 2, column: '  a: { definition: "./ai.assemblyline/gated.ts", factory: "gated"'.indexOf('"gated"') + 1, path: "tools.a.factory" },
      { code: "AL4034", line: 3, column: 20, path: "tools.b.definition" },
    ]);
    expect(diagnostics.map((d) => d.severity)).toEqual(["error", "error"]);
    expect(diagnostics[0]!.message).toBe("factory 'gated' names the tool itself (a defineTool({...}) value), not a function that returns it, so the call fails when it runs.");
    expect(diagnostics[0]!.hint).toBe("Remove factory and make the tool the module's default export (export default defineTool({...})), or export a function that returns it: export function gated(config) { return defineTool({...}); }.");
    expect(diagnostics[1]!.message).toBe("The default export of ./ai.assemblyline/make.ts is a function that returns the tool, and the descriptor names no factory, so the call fails when it runs.");
    expect(diagnostics[1]!.hint).toBe("Export the function by name and set factory to that name, or export the tool itself: export default defineTool({...}).");
  });

  it("warns (AL4010) when the factory may come from an 'export *' the compiler does not follow", () => {
    const { diagnostics } = validate(
      ["export default { tools: {", '  a: { definition: "./ai.assemblyline/search.ts", factory: "createSearch", description: "S.", inputSchema: { type: "object" } },', "} };"],
      {
        "ai.assemblyline/search.ts": 'export * from "./impl.ts";\n',
        "ai.assemblyline/impl.ts": 'import { defineTool } from "@assemblyline-agents/core";\nexport function createSearch() {\n  return defineTool({ description: "S.", inputSchema: { type: "object" }, async execute() { return {}; } });\n}\n',
      },
    );
    expect(diagnostics.map(pick)).toEqual([
      { code: "AL4010", line: 2, column: '  a: { definition: "./ai.assemblyline/search.ts", factory: "createSearch"'.indexOf('"createSearch"') + 1, path: "tools.a.factory" },
    ]);
    expect(diagnostics[0]).toMatchObject({ severity: "warning", message: "factory 'createSearch' could not be found statically: ./ai.assemblyline/search.ts re-exports with 'export *'." });
  });

  it("checks the descriptor against defineTool() and points at both places", () => {
    const { diagnostics } = validate(
      [
        "export default { tools: {",
        '  note: { definition: "./ai.assemblyline/note.ts", description: "Record a note.", inputSchema: { type: "object", properties: { note: { type: "string" } } } },',
        "} };",
      ],
      {
        "ai.assemblyline/note.ts": [
          'import { approvalRequired, defineTool } from "@assemblyline-agents/core";',
          "export default defineTool({",
          '  description: "Record a durable note.",',
          '  inputSchema: { type: "object", properties: { note: { type: "number" } } },',
          '  needsApproval: approvalRequired("Durable."),',
          "  async execute() { return {}; }",
          "});",
          "",
        ].join("\n"),
      },
    );
    expect(diagnostics.map((d) => [d.code, d.path, d.related?.[0]?.line])).toEqual([
      ["AL4026", "tools.note.needsApproval", 5],
      ["AL4026", "tools.note.description", 3],
      ["AL4026", "tools.note.inputSchema", 4],
    ]);
    expect(diagnostics[1]!.related![0]!.file).toBe("ai.assemblyline/note.ts");
    expect(diagnostics[0]!.related![0]!.message).toContain('"reason":"Durable."');
    expect(diagnostics[2]!.related![0]!.message).toContain('a different schema: at properties.note.type it has "number", the descriptor "string"');
  });

  // helper-89's review, finding 6: a description with escape sequences could erase the line
  // `review` printed and show another. Tab and line feed stay text.
  it("refuses control characters other than tab and line feed in a tool's description, approval words, tags and aliases (AL4037)", () => {
    const descriptor = (description: string, extra = "") =>
      validate([
        "export default { tools: {",
        `  echo: { definition: "./ai.assemblyline/echo.ts", description: ${JSON.stringify(description)}, inputSchema: { type: "object" }${extra} },`,
        "} };",
      ], { "ai.assemblyline/echo.ts": ECHO.replace('"Echo."', JSON.stringify(description)) });
    const escaped = descriptor("Echo.\u001b[2K\rFake.");
    expect(escaped.ok).toBe(false);
    expect(escaped.diagnostics.map((d) => [d.code, d.line, d.column, d.path])).toEqual([["AL4037", 2, 65, "tools.echo.description"]]);
    expect(escaped.diagnostics[0]!.message).toBe("Tool 'echo': its description holds the control character U+001B, which a terminal acts on instead of showing it.");
    expect(descriptor("Echo.\tLine one.\nLine two.").diagnostics).toEqual([]);
    const words = descriptor("Echo.", ', tags: ["ok", "a\\u009bb"], aliases: ["\\u0007bell"]');
    expect(words.diagnostics.map((d) => [d.code, d.path, d.message.split(": ")[1]])).toEqual([
      ["AL4037", "tools.echo.tags[1]", "its tag holds the control character U+009B, which a terminal acts on instead of showing it."],
      ["AL4037", "tools.echo.aliases[0]", "its alias holds the control character U+0007, which a terminal acts on instead of showing it."],
    ]);
  });

  /** A plugin whose tool `send` names `descriptorEffect` in its descriptor and `implementationEffect` in approvalRequired(). */
  const approvalPlugin = (descriptorEffect: string, implementationEffect: string) =>
    validate(
      [
        "export default { tools: {",
        `  send: { definition: "./ai.assemblyline/send.ts", description: "Send.", inputSchema: { type: "object" }, needsApproval: { reason: "Sends.", sideEffect: ${JSON.stringify(descriptorEffect)} } },`,
        "} };",
      ],
      {
        "ai.assemblyline/send.ts": [
          'import { approvalRequired, defineTool } from "@assemblyline-agents/core";',
          "export default defineTool({",
          '  description: "Send.",',
          '  inputSchema: { type: "object" },',
          `  needsApproval: approvalRequired("Sends.", ${JSON.stringify(implementationEffect)}),`,
          "  async execute() { return {}; }",
          "});",
          "",
        ].join("\n"),
      },
    );

  it("warns, with a did-you-mean, where a sideEffect label is a near miss of a built-in one, in the descriptor and in approvalRequired() (helper-64 M36b)", () => {
    const result = approvalPlugin("externel", "externel");
    expect(result.ok).toBe(true);
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.file, d.line, d.column, d.path])).toEqual([
      ["AL4032", "warning", "ai.assemblyline/index.ts", 2, 154, "tools.send.needsApproval.sideEffect"],
      ["AL4032", "warning", "ai.assemblyline/send.ts", 5, 18, undefined],
    ]);
    expect(result.diagnostics[0]!.message).toBe("Tool 'send': sideEffect 'externel' is not a built-in side effect ('external' or 'idempotent'), so it is kept as a custom label for the host's policy.");
    expect(result.diagnostics[0]!.hint).toMatch(/^Did you mean 'external'\? If 'externel' is a label your host's policy knows, keep it and turn this warning off with rules: \{ "AL4032": "off" \}/);
    // Only where the near miss is written: a descriptor that says it alone also drifts (AL4026).
    const drifted = approvalPlugin("idempotnt", "idempotent").diagnostics;
    expect(drifted.map((d) => [d.code, d.path])).toEqual([
      ["AL4026", "tools.send.needsApproval"],
      ["AL4032", "tools.send.needsApproval.sideEffect"],
    ]);
    expect(drifted[1]!.hint).toMatch(/^Did you mean 'idempotent'\? /);
    // The same letters in another case are a near miss too.
    expect(approvalPlugin("External", "External").diagnostics.map((d) => [d.code, d.hint?.split("?")[0]])).toEqual([
      ["AL4032", "Did you mean 'external'"],
      ["AL4032", "Did you mean 'external'"],
    ]);
  });

  it.each(["External", "extrenal", "externa", "idempotnet"])("warns for '%s': another case, one edit, or two letters swapped", (label) => {
    expect(approvalPlugin(label, label).diagnostics.map((d) => d.code)).toEqual(["AL4032", "AL4032"]);
  });

  it.each(["external", "idempotent", "billing", "reversible", "exterior-call", "internal"])("keeps the label '%s' without a warning: built in, or not close to a built-in side effect ('internal' is two changed letters from 'external': another word)", (label) => {
    expect(approvalPlugin(label, label).diagnostics).toEqual([]);
  });

  it.each(AUTHORING_CORE_SPECIFIERS)("checks drift whichever spelling imports the authoring API (%s), named or as a namespace", (specifier) => {
    const entry = [
      `import { defineAssemblyLinePlugin } from "${specifier}";`,
      "export default defineAssemblyLinePlugin({ tools: {",
      '  named: { definition: "./ai.assemblyline/named.ts", description: "Descriptor.", inputSchema: { type: "object" } },',
      '  spaced: { definition: "./ai.assemblyline/spaced.ts", description: "Descriptor.", inputSchema: { type: "object" } },',
      "} });",
    ];
    const { diagnostics } = validate(entry, {
      "ai.assemblyline/named.ts": `import { defineTool } from "${specifier}";\nexport default defineTool({ description: "Implementation.", inputSchema: { type: "object" }, async execute() { return {}; } });\n`,
      "ai.assemblyline/spaced.ts": `import * as core from "${specifier}";\nexport default core.defineTool({ description: "Implementation.", inputSchema: { type: "object" }, async execute() { return {}; } });\n`,
    });
    expect(diagnostics.map((d) => [d.code, d.path, d.related?.[0]?.file])).toEqual([
      ["AL4026", "tools.named.description", "ai.assemblyline/named.ts"],
      ["AL4026", "tools.spaced.description", "ai.assemblyline/spaced.ts"],
    ]);
  });

  it("does not take another module of the package for the authoring API", () => {
    const { diagnostics } = validate(['export default { tools: { echo: { definition: "./ai.assemblyline/echo.ts", description: "Descriptor.", inputSchema: { type: "object" } } } };'], {
      "ai.assemblyline/echo.ts": 'import { defineTool } from "@assemblyline-agents/assembly-line/runtime-min";\nexport default defineTool({ description: "Implementation.", inputSchema: { type: "object" }, async execute() { return {}; } });\n',
    });
    expect(diagnostics.filter((d) => d.code === "AL4026")).toEqual([]);
  });

  it("applies disabled: true rules", () => {
    const { diagnostics } = validate(["export default { tools: {", "  bash: { disabled: true },", "  weather: { disabled: true },", '  read: { disabled: true, description: "x" },', "} };"]);
    expect(diagnostics.map((d) => [d.code, d.severity, d.line, d.column])).toEqual([
      ["AL4014", "error", 3, 3],
      ["AL4015", "warning", 4, 3],
    ]);
  });

  it("refuses a tool that shadows a core tool without disabled: true", () => {
    const { diagnostics } = validate(['export default { tools: { read: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" } } } };']);
    expect(diagnostics.map(pick)).toEqual([{ code: "AL4013", line: 1, column: 27, path: "tools.read" }]);
  });

  it("refuses credentials in requiredConfig names, configSchema properties and config", () => {
    const { diagnostics } = validate([
      "export default {",
      '  configSchema: { type: "object", properties: { apiKey: { type: "string" }, maxTokens: { type: "number" } } },',
      "  tools: {",
      '    echo: { definition: "./ai.assemblyline/echo.ts", description: "Echo.", inputSchema: { type: "object" },',
      '      requiredConfig: ["SEARCH_API_URL", "SEARCH_API_TOKEN"], config: { endpoint: "https://x.example", key: "sk-abcdefghijklmnopqrstuvwxyz012345" } }',
      "  }",
      "};",
    ]);
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ["AL4029", "configSchema.properties.apiKey"],
      ["AL4029", "tools.echo.requiredConfig[1]"],
      ["AL5001", "tools.echo.config.key"],
    ]);
  });

  it("validates the configSchema itself", () => {
    const { diagnostics } = validate(["export default { configSchema: { type: \"string\" }, tools: {} };"]);
    expect(diagnostics.map(pick)).toEqual([{ code: "AL4017", line: 1, column: 40, path: "configSchema.type" }]);
  });
});
