/**
 * New-user trial 129, finding 1: a plugin's `tool_search: { disabled: true }` left a surface
 * with deferred tools nothing could activate, with no diagnostic; `tools` still said they were
 * "to find with tool_search", and the contract review of the pack upgrade that did it showed
 * only `package-changed`.
 */
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { formatTools } from "../../cli/format-catalog.js";
import { reviewContract } from "../../lockfile/review-contract.js";
import type { Lockfile, LockedCapability } from "../../contract/lockfile-types.js";
import type { CatalogTool } from "../../runtime-min/snapshot/types.js";
import { writeTree } from "../helpers/temp-tree.js";
import { agentMd } from "./helpers.js";
import { sampleLock } from "../lockfile/helpers.js";

/** An agent whose plugin `p` has the given `tools` entry (descriptors as written). */
function agentWithEntry(tools: Record<string, unknown>): string {
  return writeTree(
    {
      "agent.md": agentMd(["p"]),
      "plugins/p/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "p", version: "1.0.0" }),
      "plugins/p/ai.assemblyline/index.ts": `export default ${JSON.stringify({ tools }, null, 2)};\n`,
      "plugins/p/ai.assemblyline/tool.ts": "export default { async execute() { return {}; } };\n",
    },
    "al-deferred-reach-",
  );
}

const lookup = { definition: "./ai.assemblyline/tool.ts", description: "Look a record up.", inputSchema: { type: "object" }, visibility: "deferred" };

describe("AL4038: deferred tools and no tool_search", () => {
  it("warns on the descriptor that disables tool_search, naming every deferred tool left (core and authored)", async () => {
    const root = agentWithEntry({ lookup, tool_search: { disabled: true }, read: { disabled: true } });
    const result = await compileAgent({ root, package: false, cache: false });
    const found = result.diagnostics.filter((d) => d.code === "AL4038");
    expect(found.map((d) => [d.severity, d.file, d.line, d.message])).toEqual([
      ["warning", "plugins/p/ai.assemblyline/index.ts", 11, "Capability 'p' disables tool_search on surface '.', which still has 4 deferred tools that only tool_search activates: history_search, lookup, workspace_info, workspace_snapshot."],
    ]);
    expect(result.ok).toBe(true);
  });

  it("is silent when no deferred tool is left, or when tool_search stays", async () => {
    const none = agentWithEntry({ tool_search: { disabled: true }, history_search: { disabled: true }, workspace_info: { disabled: true }, workspace_snapshot: { disabled: true } });
    expect((await compileAgent({ root: none, package: false, cache: false })).diagnostics.map((d) => d.code)).not.toContain("AL4038");
    const kept = agentWithEntry({ lookup, read: { disabled: true } });
    expect((await compileAgent({ root: kept, package: false, cache: false })).diagnostics.map((d) => d.code)).not.toContain("AL4038");
  });
});

describe("tools without tool_search", () => {
  const tool = (name: string, visibility: CatalogTool["visibility"]): CatalogTool => ({ name, source: "plugin:p", description: `The ${name} tool.`, inputSchema: { type: "object" }, visibility, tags: [], aliases: [] });

  it("does not say the deferred tools are to find with tool_search", () => {
    const visible = [tool("read", "visible")];
    const text = formatTools({ surfaceId: ".", tools: visible, catalog: [...visible, tool("lookup", "deferred")], hidden: [], disabled: [{ name: "tool_search", by: "plugin" }], warnings: [] });
    expect(text).not.toContain("to find with tool_search");
    expect(text).toContain("1 deferred tool the model cannot reach: tool_search, which activates them, is disabled");
    const withSearch = [...visible, tool("tool_search", "visible")];
    expect(formatTools({ surfaceId: ".", tools: withSearch, catalog: [...withSearch, tool("lookup", "deferred")], hidden: [], disabled: [], warnings: [] })).toContain("1 deferred tool to find with tool_search");
  });
});

describe("the contract review of a core tool a plugin removes", () => {
  /** `sampleLock()` with `tool_search` disabled (or not) by its local plugin and by its npm pack. */
  function lock(local: boolean, pack: boolean): Lockfile {
    const base = sampleLock();
    const capabilities = base.surfaces["."]!.capabilities as Record<string, LockedCapability>;
    const withTool = (capability: LockedCapability, name: string, on: boolean): LockedCapability => {
      const tools = { ...capability.tools };
      if (on) tools[name] = { disabled: true };
      else delete tools[name];
      return { ...capability, tools };
    };
    return { ...base, surfaces: { ...base.surfaces, ".": { ...base.surfaces["."]!, capabilities: { ...capabilities, example: withTool(capabilities["example"]!, "read", local), openui: withTool(capabilities["openui"]!, "tool_search", pack) } } } };
  }
  const shown = (before: Lockfile, after: Lockfile) => reviewContract(before, after).changes.map(({ kind, tool, detail, needsReview }) => [kind, tool, detail, needsReview]);

  it("needs review when a published pack removes a core tool; a local plugin's removal and a restored tool are notices", () => {
    const review = reviewContract(lock(false, false), lock(true, true));
    expect(review.needsReview).toBe(true);
    expect(shown(lock(false, false), lock(true, true))).toEqual([
      ["core-tool-disabled", "read", "the core tool read is removed from the surface by example: the model no longer gets it", false],
      ["core-tool-disabled", "tool_search", "the core tool tool_search is removed from the surface by openui (@assemblyline-agents/openui@1.0.0): the model no longer gets it", true],
    ]);
    expect(shown(lock(true, true), lock(false, true))).toEqual([["core-tool-restored", "read", "the core tool read is back: example no longer removes it", false]]);
    expect(shown(lock(true, true), lock(true, true))).toEqual([]);
  });
});
