/**
 * Containment against real symbolic links on disk, through the CLI's node host: the plugin root
 * itself may be a link (npm workspaces, `npm link`); links inside that stay inside are followed;
 * escaping, dangling and looping links are reported and never read.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeHost } from "../../common/host.js";
import { loadPluginPackage, summarizePluginPackage } from "../../compiler/plugin-package/index.js";
import { tempDir, writeTree } from "../helpers/temp-tree.js";
import { MANIFEST, MCP_SCHEMA, skill } from "./helpers.js";

describe("containment on a real file system", () => {
  it("follows links that stay inside and refuses links that escape", () => {
    const base = writeTree({
      "plugin/plugin.json": MANIFEST,
      "plugin/shared/inner/SKILL.md": skill("inner"),
      "plugin/skills/inner": { link: "../shared/inner" },
      "plugin/skills/outer": { link: "../../outside/outer" },
      "plugin/skills/dangling": { link: "../nowhere" },
      "plugin/skills/loop": { link: "loop" },
      "plugin/mcp.json": { link: "../outside/mcp.json" },
      "outside/outer/SKILL.md": skill("outer"),
      "outside/mcp.json": `{ "$schema": "${MCP_SCHEMA}", "mcpServers": {} }`,
    });
    const pkg = loadPluginPackage(createNodeHost(), path.join(base, "plugin"));
    const summary = summarizePluginPackage(pkg);
    expect(summary).toMatchObject({ skills: ["inner"], skippedSkills: ["outer"], mcpStatus: "invalid", skillsStatus: "loaded" });
    expect(pkg.diagnostics.map((d) => [d.code, d.severity, path.relative(base, d.file)])).toEqual([
      ["AL2003", "error", "plugin/mcp.json"],
      ["AL2004", "warning", "plugin/skills/dangling"],
      ["AL2004", "warning", "plugin/skills/loop"],
      ["AL2003", "error", "plugin/skills/outer"],
    ]);
    expect(pkg.diagnostics[0]!.message).toContain("resolves to '../outside/mcp.json'");
  });

  it("a plugin root reached through a symlink is contained by its real path", () => {
    const base = writeTree({
      "real/plugin.json": MANIFEST,
      "real/skills/a/SKILL.md": skill("a"),
      "real/ai.assemblyline/index.ts": "export default {};",
      "node_modules/demo": { link: "../real" },
    });
    const pkg = loadPluginPackage(createNodeHost(), path.join(base, "node_modules/demo"));
    expect(pkg.rejected).toBe(false);
    expect(pkg.root).toBe(path.join(base, "node_modules/demo"));
    expect(pkg.skills.map((s) => s.file)).toEqual([path.join(base, "node_modules/demo/skills/a/SKILL.md")]);
    expect(pkg.entryFile).toBe(path.join(base, "node_modules/demo/ai.assemblyline/index.ts"));
    expect(pkg.diagnostics).toEqual([]);
  });

  it("an escaping plugin.json rejects the plugin without being read", () => {
    const base = writeTree({ "plugin/plugin.json": { link: "../outside/plugin.json" }, "outside/plugin.json": MANIFEST });
    const pkg = loadPluginPackage(createNodeHost(), path.join(base, "plugin"));
    expect(pkg.rejected).toBe(true);
    expect(pkg.name).toBeUndefined();
    expect(pkg.diagnostics.map((d) => d.code)).toEqual(["AL2003"]);
  });

  it("a stray escaping link at the root is ignored", () => {
    const base = writeTree({ "plugin/plugin.json": MANIFEST, "plugin/escape-link": { link: "../../../../etc/passwd" } });
    const pkg = loadPluginPackage(createNodeHost(), path.join(base, "plugin"));
    expect(pkg.diagnostics).toEqual([]);
  });

  it("a ./ command through a link that leaves the root skips the server", () => {
    const base = writeTree({
      "plugin/plugin.json": MANIFEST,
      "plugin/bin": { link: "../outside-bin" },
      "outside-bin/server": "#!/bin/sh\n",
      "plugin/mcp.json": `{ "$schema": "${MCP_SCHEMA}", "mcpServers": { "s": { "type": "stdio", "command": "./bin/server" }, "t": { "type": "stdio", "command": "./bin/../local" } } }`,
    });
    const pkg = loadPluginPackage(createNodeHost(), path.join(base, "plugin"));
    // ./bin/../local: `..` applies to the resolved bin (outside-bin), so it leaves the root too.
    expect(summarizePluginPackage(pkg)).toMatchObject({ mcpServers: [], skippedMcpServers: ["s", "t"] });
    expect(pkg.diagnostics.map((d) => d.code)).toEqual(["AL2003", "AL2003"]);
  });

  it("a missing plugin root", () => {
    const pkg = loadPluginPackage(createNodeHost(), path.join(tempDir(), "does-not-exist"));
    expect(pkg.rejected).toBe(true);
    expect(pkg.diagnostics.map((d) => d.code)).toEqual(["AL2001"]);
  });
});
