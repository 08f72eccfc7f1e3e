/**
 * One esbuild build for all tool definitions of a compile, and the bundle naming scheme:
 * `bundles/<surface>/<capability>/<definition path without extension>.mjs`, `root` for `"."`.
 */
import * as path from "node:path";
import * as esbuild from "esbuild";
import { describe, expect, test } from "vitest";
import { bundleTools, planBundles, toolBundleKey, type BuildFunction, type PackagingTool } from "../../packaging/index.js";
import { writeFiles } from "../helpers/temp-tree.js";
import { copyFixture, tool } from "./helpers.js";

const DEFINE = (name: string): string =>
  `import { defineTool } from "@assemblyline-agents/core";\nexport default defineTool({ description: "${name}", inputSchema: { type: "object" }, execute: () => ({ name: "${name}" }) });\n`;

/** Counts esbuild builds and records their entry points. */
function countingBuild(): { build: BuildFunction; calls: esbuild.BuildOptions[] } {
  const calls: esbuild.BuildOptions[] = [];
  return {
    calls,
    build: (options) => {
      calls.push(options);
      return esbuild.build(options);
    },
  };
}

describe("one build for many tools", () => {
  test("all definitions of all surfaces are bundled by a single esbuild.build call", async () => {
    const root = copyFixture("assets-agent");
    const files: Record<string, string> = {};
    const tools: PackagingTool[] = [];
    for (let p = 0; p < 3; p++) {
      for (let t = 0; t < 4; t++) {
        files[`plugins/p${p}/ai.assemblyline/t${t}.ts`] = DEFINE(`p${p}t${t}`);
        tools.push(tool(root, `p${p}`, `t${t}`, `ai.assemblyline/t${t}.ts`));
        tools.push(tool(root, `p${p}`, `t${t}`, `ai.assemblyline/t${t}.ts`, { surfaceId: "subagents/helper" }));
      }
    }
    writeFiles(root, files);
    const { build, calls } = countingBuild();
    const result = await bundleTools({ root, tools }, { build });
    expect(result.diagnostics).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(Object.keys(calls[0]!.entryPoints as Record<string, string>)).toHaveLength(24);
    expect(calls[0]).toMatchObject({ bundle: true, write: false, splitting: false, platform: "node", format: "esm", target: "node22", absWorkingDir: root });
    expect(result.bundles.size).toBe(24);
    expect(result.toolBundles.size).toBe(24);
  });

  test("no tools, no build", async () => {
    const { build, calls } = countingBuild();
    const result = await bundleTools({ root: copyFixture("assets-agent"), tools: [] }, { build });
    expect(calls).toHaveLength(0);
    expect(result).toEqual({ bundles: new Map(), toolBundles: new Map(), diagnostics: [] });
  });

  test("tools sharing a definition in one surface and capability share a bundle; another surface gets its own", async () => {
    const root = copyFixture("assets-agent");
    const tools = [
      tool(root, "assets", "echo", "ai.assemblyline/echo.ts"),
      tool(root, "assets", "echo_again", "ai.assemblyline/echo.ts"),
      tool(root, "assets", "echo", "ai.assemblyline/echo.ts", { surfaceId: "subagents/helper" }),
      tool(root, "assets", "echo", "ai.assemblyline/echo.ts", { surfaceId: "subagents/helper/subagents/child" }),
    ];
    const { build, calls } = countingBuild();
    const result = await bundleTools({ root, tools }, { build });
    expect(calls).toHaveLength(1);
    expect([...result.bundles.keys()]).toEqual([
      "bundles/root/assets/ai.assemblyline/echo.mjs",
      "bundles/subagents/helper/assets/ai.assemblyline/echo.mjs",
      "bundles/subagents/helper/subagents/child/assets/ai.assemblyline/echo.mjs",
    ]);
    const root1 = result.toolBundles.get(toolBundleKey(".", "assets", "echo"));
    const root2 = result.toolBundles.get(toolBundleKey(".", "assets", "echo_again"));
    expect(root1).toEqual(root2);
    expect(root1?.bundle).toBe("bundles/root/assets/ai.assemblyline/echo.mjs");
    expect(root1?.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    expect(result.toolBundles.get(toolBundleKey("subagents/helper", "assets", "echo"))?.bundle).toBe(
      "bundles/subagents/helper/assets/ai.assemblyline/echo.mjs",
    );
    expect([...result.toolBundles.keys()]).toEqual([
      ".\0assets\0echo",
      ".\0assets\0echo_again",
      "subagents/helper\0assets\0echo",
      "subagents/helper/subagents/child\0assets\0echo",
    ]);
  });
});

describe("bundle names", () => {
  const root = path.resolve("/agent");

  test("the seed's echo tool is bundles/root/example/ai.assemblyline/echo", () => {
    const plan = planBundles([tool(root, "example", "echo", "ai.assemblyline/echo.ts")]);
    expect(plan.diagnostics).toEqual([]);
    expect(plan.bundles.map((b) => b.name)).toEqual(["bundles/root/example/ai.assemblyline/echo"]);
  });

  test("a root capability called subagents cannot collide with a subagent surface at the first segment", () => {
    const plan = planBundles([
      tool(root, "subagents", "x", "helper/x.ts"),
      tool(root, "x", "x", "x.ts", { surfaceId: "subagents/helper" }),
    ]);
    expect(plan.bundles.map((b) => b.name)).toEqual(["bundles/root/subagents/helper/x", "bundles/subagents/helper/x/x"]);
  });

  test("two definitions that map to one name are AL7006, with the other module as a related location", () => {
    const plan = planBundles([
      tool(root, "example", "a", "tools/echo.ts"),
      tool(root, "example", "b", "tools/echo.mts"),
      tool(root, "example", "c", "tools/Echo.ts"),
    ]);
    expect(plan.bundles.map((b) => b.definitionFile)).toEqual([path.join(root, "plugins/example/tools/Echo.ts")]);
    expect(plan.diagnostics.map((d) => [d.code, path.basename(d.file), d.related?.[0]?.file && path.basename(d.related[0].file)])).toEqual([
      ["AL7006", "echo.mts", "Echo.ts"],
      ["AL7006", "echo.ts", "Echo.ts"],
    ]);
    expect(plan.diagnostics[0]!.message).toBe(
      'Tools "c" (capability "example", surface ".") and "b" (capability "example", surface ".") would be packaged to the same bundle "bundles/root/example/tools/Echo.mjs"',
    );
  });

  test("a definition outside its plugin root is AL7007", () => {
    const outside = tool(root, "example", "escape", "../other/escape.ts");
    const plan = planBundles([outside]);
    expect(plan.bundles).toEqual([]);
    expect(plan.diagnostics).toEqual([expect.objectContaining({ code: "AL7007", file: outside.definitionFile, line: 1, column: 1 })]);
  });

  test.each([
    ["capability", { capability: ".." }],
    ["capability", { capability: "a\\b" }],
    ["surface", { surfaceId: "subagents//x" }],
    ["surface", { surfaceId: "subagents/../../x" }],
  ])("an unsafe %s is AL7010", (what, overrides) => {
    const plan = planBundles([tool(root, "example", "echo", "ai.assemblyline/echo.ts", overrides)]);
    expect(plan.bundles).toEqual([]);
    expect(plan.diagnostics).toEqual([expect.objectContaining({ code: "AL7010", message: expect.stringContaining(`Cannot name a bundle after ${what}`) })]);
  });

  test("tools that cannot be named are left out; the others are still bundled", async () => {
    const agent = copyFixture("assets-agent");
    const result = await bundleTools({
      root: agent,
      tools: [tool(agent, "assets", "echo", "ai.assemblyline/echo.ts"), { ...tool(agent, "assets", "bad", "ai.assemblyline/echo.ts"), capability: ".." }],
    });
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL7010"]);
    expect([...result.toolBundles.keys()]).toEqual([".\0assets\0echo"]);
  });
});
