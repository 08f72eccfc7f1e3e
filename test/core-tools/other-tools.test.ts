import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { ToolSandbox } from "../../runtime-min/authoring/index.js";
import { CORE_TOOLS, getCoreTool } from "../../runtime-min/core-tools/index.js";
import { CORE_TOOL_SPECS, buildSnapshot } from "../../runtime-min/snapshot/index.js";
import { createToolSearchIndex } from "../../runtime-min/search/index.js";
import { makeContext, makeDirs, type Sandbox } from "./context.js";
import { authoredTool, fixtureManifest } from "../snapshot/fixture-manifest.js";

let dirs: Sandbox;
let workspace: string;

beforeEach(async () => {
  dirs = await makeDirs();
  workspace = await dirs.workspace("run-root");
});
afterEach(() => dirs.cleanup());

function tool(name: string) {
  const found = getCoreTool(name);
  if (!found) throw new Error(`no core tool ${name}`);
  return found;
}

test("every catalogued core tool has an implementation with the catalog's metadata", () => {
  expect([...CORE_TOOLS.keys()]).toEqual(CORE_TOOL_SPECS.map((spec) => spec.name));
  for (const spec of CORE_TOOL_SPECS) {
    expect(tool(spec.name)).toMatchObject({ name: spec.name, description: spec.description, inputSchema: spec.inputSchema, visibility: spec.visibility });
  }
  expect(getCoreTool("nope")).toBeUndefined();
});

describe("load_skill", () => {
  beforeEach(async () => {
    for (const [file, text] of [
      ["skills/root/triage/SKILL.md", "---\nname: triage\n---\nTriage steps.\n"],
      ["skills/billing/refunds/SKILL.md", "Refund steps.\n"],
      ["skills/research/web-research/SKILL.md", "Research steps.\n"],
    ] as const) {
      await mkdir(path.dirname(path.join(dirs.artifactDir, file)), { recursive: true });
      await writeFile(path.join(dirs.artifactDir, file), text);
    }
  });

  test("loads the surface's own and its plugins' skills", async () => {
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    expect(await tool("load_skill").execute({ name: "triage" }, ctx)).toEqual({ name: "triage", capability: null, description: "How to triage a ticket.", content: "---\nname: triage\n---\nTriage steps.\n" });
    expect(await tool("load_skill").execute({ name: "billing:refunds" }, ctx)).toMatchObject({ capability: "billing", content: "Refund steps.\n" });
    expect(await tool("load_skill").execute({ name: "refunds" }, ctx)).toMatchObject({ capability: "billing" });
    expect(ctx.events.map((event) => event.type)).toEqual(["skill.loaded", "skill.loaded", "skill.loaded"]);
  });

  test("another surface's skill is unknown, with a did-you-mean", async () => {
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    await expect(tool("load_skill").execute({ name: "web-research" }, ctx)).rejects.toMatchObject({ kind: "invalid_input", message: expect.stringContaining("Available skills: billing:refunds, triage") });
    await expect(tool("load_skill").execute({ name: "triag" }, ctx)).rejects.toMatchObject({ message: expect.stringContaining('Did you mean "triage"') });
    const child = makeContext(dirs, { workspaceDir: workspace, surfaceId: "subagents/researcher" });
    expect(await tool("load_skill").execute({ name: "web-research" }, child)).toMatchObject({ content: "Research steps.\n" });
  });

  test("a skill file missing from the artifact is a configuration_error", async () => {
    const manifest = fixtureManifest();
    const root = manifest.surfaces["."]!;
    const broken = { ...manifest, surfaces: { ...manifest.surfaces, ".": { ...root, skills: [{ name: "gone", description: "", capability: null, file: "skills/gone/SKILL.md" }] } } };
    const ctx = makeContext(dirs, { workspaceDir: workspace, manifest: broken });
    await expect(tool("load_skill").execute({ name: "gone" }, ctx)).rejects.toMatchObject({ kind: "configuration_error", message: expect.stringContaining("recompile") });
  });
});

describe("tool_search", () => {
  test("activates only the returned page's deferred tools and reports paging", async () => {
    const manifest = fixtureManifest();
    const root = manifest.surfaces["."]!;
    const tools = { ...root.tools };
    for (let i = 0; i < 25; i += 1) tools[`metric_${String(i).padStart(2, "0")}`] = authoredTool("metrics", { description: `Read metric series ${i}.`, visibility: "deferred", tags: ["metrics"] });
    const big = { ...manifest, surfaces: { ...manifest.surfaces, ".": { ...root, tools } } };
    const activations: string[][] = [];
    const ctx = makeContext(dirs, { workspaceDir: workspace, manifest: big, activateTools: async (names) => void activations.push([...names]) });

    const page = (await tool("tool_search").execute({ query: "metrics" }, ctx)) as Record<string, unknown>;
    expect(page).toMatchObject({ totalMatches: 25, hasMore: true, nextOffset: 8 });
    const names = (page.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(["metric_00", "metric_01", "metric_02", "metric_03", "metric_04", "metric_05", "metric_06", "metric_07"]);
    expect(page.tools).toContainEqual({ name: "metric_00", description: "Read metric series 0.", source: "plugin:metrics", visibility: "deferred", tags: ["metrics"], aliases: [] });
    expect(activations).toEqual([names]);
    expect(ctx.events).toEqual([{ type: "tool_search.activated", data: { names } }]);

    const next = buildSnapshot({ manifest: big, surfaceId: ".", activated: activations.flat() });
    expect(next.tools.map((t) => t.name)).toEqual(expect.arrayContaining(names));
    expect(next.tools.map((t) => t.name)).not.toContain("metric_08");

    const capped = (await tool("tool_search").execute({ query: "metrics", limit: 50, offset: 8 }, ctx)) as Record<string, unknown>;
    expect(capped).toMatchObject({ totalMatches: 25, hasMore: false });
    expect(capped.tools).toHaveLength(17);
    expect(capped).not.toHaveProperty("nextOffset");
  });

  test("visible results are not re-activated; hidden and host-disabled tools are never returned", async () => {
    const ctx = makeContext(dirs, { workspaceDir: workspace, coreToolPolicy: { disabled: ["workspace_info"] } });
    const browse = (await tool("tool_search").execute({ query: "", limit: 20 }, ctx)) as { tools: { name: string }[]; totalMatches: number };
    const all = [...browse.tools];
    const rest = (await tool("tool_search").execute({ query: "", limit: 20, offset: 20 }, ctx)) as { tools: { name: string }[] };
    all.push(...rest.tools);
    const names = all.map((t) => t.name);
    expect(names).not.toContain("audit_log");
    expect(names).not.toContain("workspace_info");
    expect(names).toContain("invoice_lookup");
    expect(browse.totalMatches).toBe(names.length);
    expect(ctx.events).toEqual([
      { type: "tool_search.activated", data: { names: ["history_search", "invoice_lookup", "workspace_snapshot"] } },
    ]);
  });

  test("uses the engine's index when the context supplies one", async () => {
    const index = createToolSearchIndex([{ name: "only_this", description: "From the engine.", visibility: "deferred", source: "plugin:engine" }]);
    const ctx = makeContext(dirs, { workspaceDir: workspace, toolSearchIndex: index });
    expect(await tool("tool_search").execute({ query: "" }, ctx)).toEqual({
      tools: [{ name: "only_this", description: "From the engine.", source: "plugin:engine", visibility: "deferred", tags: [], aliases: [] }],
      totalMatches: 1,
      hasMore: false,
    });
  });
});

describe("bash", () => {
  test("runs the command in the sandbox the context supplies", async () => {
    const calls: [string, unknown][] = [];
    const sandbox: ToolSandbox = {
      workspace: "/workspace",
      readFile: async () => "",
      readFileBytes: async () => new Uint8Array(),
      writeFile: async () => undefined,
      exec: async (command, options) => {
        calls.push([command, options]);
        return { stdout: "x".repeat(70 * 1024), stderr: "warn", exitCode: 3 };
      },
    };
    const ctx = makeContext(dirs, { workspaceDir: workspace, getSandbox: async () => sandbox });
    const result = (await tool("bash").execute({ command: "make test", timeoutMs: 5000 }, ctx)) as Record<string, unknown>;
    expect(calls).toEqual([["make test", { timeoutMs: 5000 }]]);
    expect(result).toMatchObject({ exitCode: 3, stderr: "warn", truncated: true });
    expect(result.stdout).toMatch(/^\[… 6144 earlier characters omitted …\]\nx+$/);
  });

  test("without a sandbox it is a configuration_error naming the hook", async () => {
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    await expect(tool("bash").execute({ command: "ls" }, ctx)).rejects.toMatchObject({ kind: "configuration_error", message: expect.stringContaining("getSandbox()") });
  });
});

describe("host-provided built-ins", () => {
  test.each([
    ["pair", { packet: "abc" }, "connection pairing service"],
    ["files_search", { query: "q" }, "file store search service"],
    ["files_mount", { fileId: "f1" }, "file store mount service"],
    ["history_search", { query: "q" }, "conversation history store"],
  ])("%s without a host implementation names what the host must supply", async (name, input, service) => {
    const ctx = makeContext(dirs, { workspaceDir: workspace });
    await expect(tool(name).execute(input, ctx)).rejects.toMatchObject({ kind: "configuration_error", message: expect.stringContaining(service) });
    await expect(tool(name).execute(input, ctx)).rejects.toMatchObject({ message: expect.stringContaining(`"${name}" implementation on the runtime's JS API (RuntimeOptions.hostTools)`) });
  });

  test("delegates to the host's implementation", async () => {
    const ctx = makeContext(dirs, { workspaceDir: workspace, hostImplementations: { pair: async (input) => ({ paired: input.packet }) } });
    expect(await tool("pair").execute({ packet: "abc" }, ctx)).toEqual({ paired: "abc" });
  });
});
