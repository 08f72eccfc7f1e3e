/**
 * Config merge (issue 3 item 1; DESIGN §4) and cross-plugin collisions, through the front end
 * on real agent folders: diagnostics point at the agent.md line of the offending key.
 */
import { describe, expect, it } from "vitest";
import { analyzeAgent } from "../../compiler/analyze-agent.js";
import { createNodeHost } from "../../common/host.js";
import { writeTree } from "../helpers/temp-tree.js";

const PLUGIN_JSON = (name: string) => JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name });
const SEARCH_ENTRY = `import { defineAssemblyLinePlugin } from "@assemblyline-agents/core";
export default defineAssemblyLinePlugin({
  configSchema: {
    type: "object",
    properties: { index: { type: "string" }, depth: { type: "integer", minimum: 1 } },
    required: ["index"],
    additionalProperties: false
  },
  tools: {
    search: {
      definition: "./search.ts",
      factory: "createSearchTool",
      description: "Search the selected index.",
      inputSchema: { type: "object" },
      requiredConfig: ["SEARCH_API_URL"],
      config: { limit: 20, index: "default" }
    }
  }
});
`;
const SEARCH_TS = `import { defineTool } from "@assemblyline-agents/core";
export function createSearchTool(config: { index: string; limit: number }) {
  return defineTool({ description: "Search the selected index.", inputSchema: { type: "object" }, async execute() { return config; } });
}
`;

function agent(agentMd: string, extra: Record<string, string> = {}) {
  const root = writeTree({
    "agent.md": agentMd,
    "plugins/private-search/plugin.json": PLUGIN_JSON("private-search"),
    "plugins/private-search/ai.assemblyline/index.ts": SEARCH_ENTRY,
    "plugins/private-search/search.ts": SEARCH_TS,
    ...extra,
  });
  return analyzeAgent(createNodeHost(), root);
}

describe("config merge", () => {
  it("gives each tool { ...descriptor.config, ...capabilityConfig } (the seed's { limit: 20, index: 'products' })", () => {
    const analysis = agent("---\ncapabilities:\n  private-search:\n    config:\n      index: products\n---\n");
    expect(analysis.diagnostics).toEqual([]);
    const [capability] = analysis.capabilities;
    expect(capability!.config.capabilityConfig).toEqual({ index: "products" });
    expect(capability!.config.toolConfigs.get("search")).toEqual({ limit: 20, index: "products" });
    expect(capability!.plugin.tools[0]!.requiredConfig).toEqual(["SEARCH_API_URL"]);
  });

  it("a required option written beside config: is one error, the misplaced field's AL1010, not also a missing config (AL5004)", () => {
    // The README's warning: `index: products` directly under the capability instead of under config:.
    const misplaced = agent("---\ncapabilities:\n  private-search:\n    index: products\n---\n");
    expect(misplaced.diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([["AL1010", 4, 'capabilities["private-search"].index']]);
    expect(misplaced.diagnostics[0]!.hint).toBe("A capability entry has only 'package' and 'config'; put plugin options under 'config:'.");
    // One whose name is a near miss of 'package' or 'config' (a plugin option `packages`, say):
    // its hint names both fixes, since the did-you-mean alone sent the user to a wrong one (helper-72).
    const nearMiss = agent("---\ncapabilities:\n  private-search:\n    configs: products\n---\n", {
      "plugins/private-search/ai.assemblyline/index.ts": SEARCH_ENTRY.replace('required: ["index"]', 'required: ["configs"]').replace("index: { type: \"string\" }", "configs: { type: \"string\" }"),
    });
    expect(nearMiss.diagnostics.map((d) => d.code)).toEqual(["AL1010"]);
    expect(nearMiss.diagnostics[0]!.hint).toBe("Did you mean 'config'? If 'configs' is one of the plugin's options, put it under 'config:'.");
    // A required option that is missing and not written beside config: is still AL5004.
    const missing = agent("---\ncapabilities:\n  private-search:\n    depth: 2\n---\n");
    expect(missing.diagnostics.map((d) => d.code).sort()).toEqual(["AL1010", "AL5004"]);
  });

  it("validates capability config against the configSchema, pointing at agent.md lines", () => {
    const analysis = agent("---\ncapabilities:\n  private-search:\n    config:\n      indx: products\n      depth: 0\n---\n");
    expect(analysis.diagnostics.map((d) => [d.code, d.line, d.column, d.path])).toEqual([
      ["AL5004", 4, 5, 'capabilities["private-search"].config'],
      ["AL5005", 5, 7, 'capabilities["private-search"].config.indx'],
      ["AL5002", 6, 14, 'capabilities["private-search"].config.depth'],
    ]);
    expect(analysis.diagnostics[1]!.hint).toBe("Did you mean 'index'?");
    expect(analysis.diagnostics[2]!.message).toBe("Config of capability 'private-search': 'depth' must be >= 1.");
  });

  it("refuses config for a plugin without a configSchema, and credential-looking keys and values", () => {
    const echo = {
      "plugins/example/plugin.json": PLUGIN_JSON("example"),
      "plugins/example/ai.assemblyline/index.ts": 'export default { tools: { echo: { definition: "./echo.ts", description: "Echo.", inputSchema: { type: "object" } } } };\n',
      "plugins/example/echo.ts": 'import { defineTool } from "@assemblyline-agents/core";\nexport default defineTool({ description: "Echo.", inputSchema: { type: "object" }, async execute() { return {}; } });\n',
    };
    const analysis = agent(
      "---\ncapabilities:\n  example:\n    config: { mode: fast }\n  private-search:\n    config:\n      index: products\n      authToken: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n---\n",
      echo,
    );
    expect(analysis.diagnostics.map((d) => [d.code, d.line, d.path])).toEqual([
      ["AL5003", 4, "capabilities.example.config"],
      ["AL5005", 8, 'capabilities["private-search"].config.authToken'],
      ["AL4029", 8, 'capabilities["private-search"].config.authToken'],
      ["AL5001", 8, 'capabilities["private-search"].config.authToken'],
    ]);
    expect(analysis.diagnostics[3]!.message).toBe("This config value looks like a GitHub token.");
  });

  it("a misspelt configSchema is its AL4001 alone, not also 'declares no configSchema' (AL5003), whose fix would be wrong (helper-75 C8)", () => {
    const misspelt = SEARCH_ENTRY.replace("configSchema:", "configschema:");
    const analysis = agent("---\ncapabilities:\n  private-search:\n    config:\n      index: products\n---\n", { "plugins/private-search/ai.assemblyline/index.ts": misspelt });
    expect(analysis.diagnostics.map((d) => [d.code, d.path, d.hint])).toEqual([["AL4001", "configschema", "Did you mean 'configSchema'?"]]);
    // A key that is no near miss of configSchema still leaves "no configSchema" for the config.
    const unrelated = SEARCH_ENTRY.replace("configSchema:", "options:");
    const other = agent("---\ncapabilities:\n  private-search:\n    config:\n      index: products\n---\n", { "plugins/private-search/ai.assemblyline/index.ts": unrelated });
    expect(other.diagnostics.map((d) => d.code)).toEqual(["AL4001", "AL5003"]);
  });

});

describe("configSchema defaults and undeclared keys", () => {
  const withDefaults = `export default {
  configSchema: { type: "object", properties: { greeting: { type: "string", default: "Hello" }, punctuation: { type: "string" } } },
  tools: { greet: { definition: "./greet.ts", description: "Greet.", inputSchema: { type: "object" } } }
};
`;
  const files = {
    "plugins/greeter/plugin.json": PLUGIN_JSON("greeter"),
    "plugins/greeter/ai.assemblyline/index.ts": withDefaults,
    "plugins/greeter/greet.ts": 'import { defineTool } from "@assemblyline-agents/core";\nexport default defineTool({ description: "Greet.", inputSchema: { type: "object" }, async execute() { return {}; } });\n',
  };

  it("keeps __proto__ and constructor config keys as data in the merged config, never prototype changes", () => {
    const analysis = agent("---\ncapabilities:\n  greeter:\n    config:\n      __proto__: { polluted: yes }\n      constructor: { prototype: { polluted: yes } }\n      punctuation: '!'\n---\n", files);
    const greeter = analysis.capabilities.find((c) => c.resolved.request.key === "greeter")!;
    const merged = greeter.config.toolConfigs.get("greet")! as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(merged, "__proto__")?.value).toEqual({ polluted: "yes" });
    expect(Object.getOwnPropertyDescriptor(merged, "constructor")?.value).toEqual({ prototype: { polluted: "yes" } });
    expect(merged["punctuation"]).toBe("!");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("fills in the schema's defaults, so the lock records what the tools receive", () => {
    const analysis = agent("---\ncapabilities:\n  greeter:\n    config: { punctuation: '!' }\n---\n", files);
    const greeter = analysis.capabilities.find((c) => c.resolved.request.key === "greeter")!;
    expect(analysis.diagnostics.filter((d) => d.file.includes("greeter") || d.code.startsWith("AL5"))).toEqual([]);
    expect(greeter.config.capabilityConfig).toEqual({ punctuation: "!", greeting: "Hello" });
    expect(greeter.config.toolConfigs.get("greet")).toEqual({ punctuation: "!", greeting: "Hello" });
  });

  it("gives a tool's own config precedence over the schema's defaults, and the agent's values over both (helper-75)", () => {
    const ownConfig = {
      ...files,
      "plugins/greeter/ai.assemblyline/index.ts": withDefaults.replace('inputSchema: { type: "object" } }', 'inputSchema: { type: "object" }, config: { greeting: "Hi", emoji: "wave" } }'),
    };
    const defaulted = agent("---\ncapabilities:\n  greeter:\n    config: { punctuation: '!' }\n---\n", ownConfig);
    const greeter = defaulted.capabilities.find((c) => c.resolved.request.key === "greeter")!;
    // The capability's config (the lock's) still records the default; the tool receives its own value.
    expect(greeter.config.capabilityConfig).toEqual({ punctuation: "!", greeting: "Hello" });
    expect(greeter.config.toolConfigs.get("greet")).toEqual({ greeting: "Hi", emoji: "wave", punctuation: "!" });
    const written = agent("---\ncapabilities:\n  greeter:\n    config: { greeting: Hey }\n---\n", ownConfig);
    expect(written.capabilities.find((c) => c.resolved.request.key === "greeter")!.config.toolConfigs.get("greet")).toEqual({ greeting: "Hey", emoji: "wave" });
  });

  it("warns about a key the schema does not declare, with a did-you-mean", () => {
    const analysis = agent("---\ncapabilities:\n  greeter:\n    config:\n      greting: Hi\n---\n", files);
    const config = analysis.diagnostics.filter((d) => d.code.startsWith("AL5"));
    expect(config.map((d) => [d.code, d.severity, d.line, d.column, d.hint])).toEqual([["AL5006", "warning", 5, 7, "Did you mean 'greeting'?"]]);
  });
});

describe("collisions within a surface", () => {
  it("names both plugins when two declare the same tool", () => {
    const echoPlugin = (name: string) => ({
      [`plugins/${name}/plugin.json`]: PLUGIN_JSON(name),
      [`plugins/${name}/ai.assemblyline/index.ts`]: 'export default { tools: { echo: { definition: "./echo.ts", description: "Echo.", inputSchema: { type: "object" } } } };\n',
      [`plugins/${name}/echo.ts`]: 'import { defineTool } from "@assemblyline-agents/core";\nexport default defineTool({ description: "Echo.", inputSchema: { type: "object" }, async execute() { return {}; } });\n',
    });
    const analysis = agent("---\ncapabilities:\n  first: {}\n  second: {}\n---\n", { ...echoPlugin("first"), ...echoPlugin("second") });
    const collisions = analysis.diagnostics.filter((d) => d.code === "AL4012");
    expect(collisions).toHaveLength(1);
    expect(collisions[0]!.message).toBe("Tool 'echo' is declared by both capability 'first' and capability 'second' of this surface.");
    expect(collisions[0]!.file).toContain("plugins/second/ai.assemblyline/index.ts");
    expect(collisions[0]!.related![0]!.file).toContain("plugins/first/ai.assemblyline/index.ts");
  });

  it("lets a subagent select a plugin of the same tool name without colliding with its parent", () => {
    const child = {
      "subagents/helper/agent.md": "---\ncapabilities:\n  private-search:\n    config: { index: docs }\n---\n",
      "subagents/helper/plugins/private-search/plugin.json": PLUGIN_JSON("private-search"),
      "subagents/helper/plugins/private-search/ai.assemblyline/index.ts": SEARCH_ENTRY,
      "subagents/helper/plugins/private-search/search.ts": SEARCH_TS,
    };
    const analysis = agent("---\ncapabilities:\n  private-search:\n    config: { index: products }\n---\n", child);
    expect(analysis.diagnostics).toEqual([]);
    expect(analysis.capabilities.map((c) => [c.surface.id, c.config.toolConfigs.get("search")])).toEqual([
      [".", { limit: 20, index: "products" }],
      ["subagents/helper", { limit: 20, index: "docs" }],
    ]);
  });
});
