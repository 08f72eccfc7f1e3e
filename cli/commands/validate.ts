/**
 * `assembly-line validate <pluginDir> [--format pretty|json]` (DESIGN §7).
 */
import * as path from "node:path";
import { toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import { createNodeHost } from "../../common/host.js";
import { validatePackage } from "../../compiler/validate-package.js";
import { printDiagnostics, printJson } from "../output.js";

/** Runs `validate`; returns 0 when the plugin has no errors, else 1. */
export function runValidate(pluginDirArgument: string, flags: { format: "pretty" | "json" }): number {
  const pluginDir = path.resolve(pluginDirArgument);
  const result = validatePackage(createNodeHost(), pluginDir);
  if (flags.format === "json") {
    printJson({ ok: result.ok, diagnostics: result.diagnostics.map(toJsonDiagnostic), plugin: result.plugin });
  } else {
    printDiagnostics(result.diagnostics, pluginDir);
    const { plugin } = result;
    const name = plugin.name ?? path.basename(pluginDir);
    if (plugin.rejected) process.stderr.write(`${name}: rejected (Agent Plugins v1): no component is loaded.\n`);
    else {
      const list = (items: readonly string[]) => (items.length > 0 ? items.join(", ") : "none");
      process.stdout.write(`${name}: ${result.ok ? "ok" : "has errors"}\n  tools: ${list(plugin.tools)}\n  skills: ${list(plugin.skills)}\n  MCP servers: ${list(plugin.mcpServers)}\n`);
    }
  }
  return result.ok ? 0 : 1;
}
