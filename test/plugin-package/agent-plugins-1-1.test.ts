/**
 * Issue 11 item 4: Agent Plugins 1.1.0 (draft) — its `$schema`, `displayName` (falls back to
 * `name`) and `icon` (a `./` path inside the plugin, never fetched; a bad path is a warning,
 * AL2111); 1.0.0 behaviour unchanged.
 */
import { describe, expect, it } from "vitest";
import { expectDiagnostic, load } from "./helpers.js";

const SCHEMA_1_1 = "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json";
const manifest = (fields: Record<string, unknown>, schema = SCHEMA_1_1): string => `${JSON.stringify({ $schema: schema, name: "demo", ...fields }, null, 2)}\n`;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

describe("Agent Plugins 1.1.0 (draft)", () => {
  it("accepts displayName and an icon inside the plugin; the manifest keeps both", () => {
    const pkg = load({ "plugin.json": manifest({ displayName: "Demo Tools", icon: "./assets/icon.png" }), "assets/icon.png": PNG });
    expect(pkg.rejected).toBe(false);
    expect(pkg.diagnostics).toEqual([]);
    expect(pkg.displayName).toBe("Demo Tools");
    expect(pkg.icon).toBe("./assets/icon.png");
    expect(pkg.manifest).toMatchObject({ displayName: "Demo Tools", icon: "./assets/icon.png" });
  });

  it("falls back to name when displayName is absent", () => {
    const pkg = load({ "plugin.json": manifest({}) });
    expect(pkg.diagnostics).toEqual([]);
    expect(pkg.displayName).toBe("demo");
    expect(pkg.icon).toBeUndefined();
  });

  it.each([
    ["a URL (never fetched)", "https://example.com/icon.png", "is a URL ('https://example.com/icon.png'); icons are files inside the plugin and are never fetched"],
    ["a path without ./", "assets/icon.png", "'assets/icon.png' does not begin with './'"],
    ["a path that leaves the plugin", "./../icon.png", "'./../icon.png' leaves the plugin folder ('..')"],
    ["a missing file", "./assets/missing.png", "names './assets/missing.png', which does not exist"],
    ["a folder", "./assets", "names './assets', which is not a regular file"],
  ])("warns about %s (AL2111) and still loads the plugin without the icon", (_name, icon, problem) => {
    const pkg = load({ "plugin.json": manifest({ icon }), "assets/icon.png": PNG });
    expect(pkg.rejected).toBe(false);
    expect(pkg.icon).toBeUndefined();
    const diagnostic = expectDiagnostic(pkg, { code: "AL2111", file: "plugin.json", line: 4, column: 11, path: "icon", severity: "warning" });
    expect(diagnostic.message).toBe(`plugin.json 'icon' ${problem}; the icon is ignored (Agent Plugins 1.1.0 draft).`);
  });

  it("rejects an icon that is not a string, like any other schema violation", () => {
    const pkg = load({ "plugin.json": manifest({ icon: 7 }) });
    expect(pkg.rejected).toBe(true);
    expect(pkg.diagnostics.map((d) => d.code)).toEqual(["AL2105"]);
  });

  it("keeps 1.0.0 unchanged: displayName and icon are unknown fields there (AL2102), reported and dropped", () => {
    const pkg = load({ "plugin.json": manifest({ displayName: "Demo", icon: "./icon.png" }, "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"), "icon.png": PNG });
    expect(pkg.rejected).toBe(false);
    expect(pkg.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ["AL2102", "displayName"],
      ["AL2102", "icon"],
    ]);
    expect(pkg.manifest).not.toHaveProperty("displayName");
    expect(pkg.displayName).toBe("demo");
    expect(pkg.icon).toBeUndefined();
  });

  it("pairs a 1.1.0 manifest with a 1.1.0 mcp.json, and names both versions when one is unsupported", () => {
    const mcp = `{\n  "$schema": "https://agent-plugins.org/schemas/1.1.0/mcp.schema.json",\n  "mcpServers": { "s": { "type": "stdio", "command": "node" } }\n}\n`;
    const pkg = load({ "plugin.json": manifest({}), "mcp.json": mcp });
    expect(pkg.mcpStatus).toBe("configured");
    expect(pkg.diagnostics).toEqual([]);
    const future = load({ "plugin.json": manifest({}, "https://agent-plugins.org/schemas/9.9.9/plugin.schema.json") });
    expect(future.rejected).toBe(true);
    expect(future.diagnostics[0]!.message).toContain("it supports 1.0.0 and 1.1.0 (draft)");
  });
});
