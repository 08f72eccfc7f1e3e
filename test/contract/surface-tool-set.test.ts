import { describe, expect, it } from "vitest";
import { surfaceToolSet, type CoreToolRemovedBy } from "../../contract/surface-tool-set.js";
import { CORE_TOOL_SPECS } from "../../contract/core-catalog.js";

const tool = (name: string) => ({ name, visibility: "visible" as const });
const removed = (entries: [string, CoreToolRemovedBy][] = []) => new Map(entries);

describe("surfaceToolSet (contract/surface-tool-set.ts)", () => {
  it("keeps every core tool in catalogue order, and the authored tools by name", () => {
    const set = surfaceToolSet({ removed: removed(), authored: [tool("zeta"), tool("alpha")], children: [] });
    expect(set.core.map((s) => s.name)).toEqual(CORE_TOOL_SPECS.map((s) => s.name));
    expect(set.authored.map((t) => t.name)).toEqual(["alpha", "zeta"]);
    expect(set.delegate).toBeUndefined();
    expect(set.shadowed).toEqual([]);
  });

  it("a core tool a plugin or the host removed is gone; only a plugin's removal frees its name", () => {
    const set = surfaceToolSet({ removed: removed([["read", "plugin"], ["write", "host"]]), authored: [tool("read"), tool("write"), tool("grep")], children: [] });
    expect(set.core.map((s) => s.name)).not.toContain("read");
    expect(set.core.map((s) => s.name)).not.toContain("write");
    expect(set.core.map((s) => s.name)).toContain("grep");
    expect(set.authored.map((t) => t.name)).toEqual(["read"]);
    expect(set.shadowed.map(({ tool: t, by }) => [t.name, by])).toEqual([["grep", "core"], ["write", "core"]]);
  });

  it("a surface with subagents gets delegate naming them, and an authored delegate there is left out", () => {
    const set = surfaceToolSet({ removed: removed(), authored: [tool("delegate"), tool("notes")], children: ["billing", "research"] });
    expect(set.delegate?.name).toBe("delegate");
    expect(JSON.stringify(set.delegate?.inputSchema)).toContain("research");
    expect(set.authored.map((t) => t.name)).toEqual(["notes"]);
    expect(set.shadowed.map(({ tool: t, by }) => [t.name, by])).toEqual([["delegate", "delegate"]]);
  });

  it("without subagents an authored delegate keeps its name", () => {
    const set = surfaceToolSet({ removed: removed(), authored: [tool("delegate")], children: [] });
    expect(set.authored.map((t) => t.name)).toEqual(["delegate"]);
    expect(set.shadowed).toEqual([]);
  });
});
