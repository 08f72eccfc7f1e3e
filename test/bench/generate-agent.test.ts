/**
 * bench/generate-agent.mjs: the agents the benchmarks measure must compile clean, and the full
 * shape must have what a real agent has (issue 14 item 5: assets, subagents, config).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";

interface GeneratorModule {
  generateAgent(dir: string, options: { plugins: number; tools: number; full?: boolean }): number;
}

// bench/ is plain ESM JavaScript without declarations; the test names the types it uses.
const { generateAgent } = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/generate-agent.mjs")).href)) as GeneratorModule;
const made: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-generate-"));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

describe("bench/generate-agent.mjs", () => {
  it("writes a plain agent that compiles clean, with packaging", async () => {
    const root = tempDir();
    expect(generateAgent(root, { plugins: 3, tools: 4 })).toBe(3 * (4 + 2) + 1);
    const result = await compileAgent({ root });
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it("writes a full agent — factories with config, approvals, assets, skills, a subagent — that compiles clean", async () => {
    const root = tempDir();
    const files = generateAgent(root, { plugins: 11, tools: 4, full: true });
    const result = await compileAgent({ root });
    expect(result.diagnostics).toEqual([]);
    expect(result.ok).toBe(true);
    const written = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => !f.startsWith(".assemblyline") && f !== "plugins.lock" && fs.statSync(path.join(root, f)).isFile());
    expect(files).toBe(written.length);

    const lock = JSON.parse(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")) as {
      surfaces: Record<string, { capabilities: Record<string, { config: Record<string, unknown>; tools: Record<string, Record<string, unknown>> }>; skills: Record<string, unknown> }>;
    };
    // Every tenth plugin lives in a subagent; root and subagent have a skill of their own.
    expect(Object.keys(lock.surfaces).sort()).toEqual([".", "subagents/team-00"]);
    expect(Object.keys(lock.surfaces["subagents/team-00"]!.capabilities)).toEqual(["plugin-0009"]);
    expect(Object.keys(lock.surfaces["."]!.capabilities)).toHaveLength(10);
    expect(Object.keys(lock.surfaces["."]!.skills)).toEqual(["generated-agent-handbook"]);
    expect(Object.keys(lock.surfaces["subagents/team-00"]!.skills)).toEqual(["team-00-handbook"]);
    const plugin = lock.surfaces["."]!.capabilities["plugin-0000"]!;
    expect(plugin.config).toEqual({ region: "region-0" });
    // A factory with descriptor config merged with the agent's, an approval gate, a deferred tool.
    expect(plugin.tools["p0_tool_0"]).toMatchObject({ factory: "createTool", config: { pageSize: 10, region: "region-0" }, tags: ["generated", "alpha"] });
    expect(plugin.tools["p0_tool_1"]).toMatchObject({ needsApproval: { reason: "Writes a durable record.", sideEffect: "idempotent" } });
    expect(plugin.tools["p0_tool_2"]).toMatchObject({ visibility: "deferred", namespace: "ns0", aliases: ["find charlie 0"] });
    // The Markdown prompt asset is bundled into the tool.
    const bundle = fs.readFileSync(path.join(root, ".assemblyline/build/bundles/root/plugin-0000/ai.assemblyline/tool-3.mjs"), "utf8");
    expect(bundle).toContain("Answer with the delta records of plugin 0.");
    expect(fs.existsSync(path.join(root, "plugins/plugin-0000/skills/plugin-0000-guide/SKILL.md"))).toBe(true);
  });
});
