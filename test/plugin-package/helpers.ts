/** Shared fixtures and assertions for the plugin-package tests. */
import { expect } from "vitest";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { PluginPackage } from "../../compiler/model.js";
import { loadPluginPackage } from "../../compiler/plugin-package/index.js";
import { createMemoryHost, type MemoryEntry } from "./memory-host.js";

/** Where every in-memory plugin lives. */
export const ROOT = "/work/plugin";

export const PLUGIN_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";
export const MCP_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json";

/** A valid minimal plugin.json (line 2 is $schema, line 3 is name). */
export const MANIFEST = `{\n  "$schema": "${PLUGIN_SCHEMA}",\n  "name": "demo"\n}\n`;

/** A valid SKILL.md for skills/`name`/. */
export function skill(name: string, description = `Skill ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\nBody.\n`;
}

/**
 * mcp.json with one server per entry: `servers` maps a name to the JSON text of its
 * configuration, each written on one line, so server `i` (0-based) is on line `4 + i`.
 */
export function mcpJson(servers: Readonly<Record<string, string>>): string {
  const members = Object.entries(servers).map(([name, config]) => `    ${JSON.stringify(name)}: ${config}`);
  return `{\n  "$schema": "${MCP_SCHEMA}",\n  "mcpServers": {\n${members.join(",\n")}\n  }\n}\n`;
}

/** Loads the plugin made of `files` (paths relative to {@link ROOT}; plugin.json defaults to {@link MANIFEST}). */
export function load(files: Readonly<Record<string, MemoryEntry>>, extra: Readonly<Record<string, MemoryEntry>> = {}): PluginPackage {
  const absolute: Record<string, MemoryEntry> = {};
  const withManifest = "plugin.json" in files ? files : { "plugin.json": MANIFEST, ...files };
  for (const [file, entry] of Object.entries(withManifest)) absolute[`${ROOT}/${file}`] = entry;
  return loadPluginPackage(createMemoryHost({ ...absolute, ...extra }), ROOT);
}

/** What a test asserts about one diagnostic (file relative to {@link ROOT}). */
export interface ExpectedDiagnostic {
  readonly code: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly path?: string;
  readonly severity?: Diagnostic["severity"];
}

/** The only diagnostic with `expected.code`, checked for file, line, column, path and severity. */
export function expectDiagnostic(pkg: PluginPackage, expected: ExpectedDiagnostic): Diagnostic {
  const found = pkg.diagnostics.filter((d) => d.code === expected.code);
  expect(found.map(describe), `diagnostics with ${expected.code} among ${pkg.diagnostics.map(describe).join(" | ")}`).toHaveLength(1);
  const diagnostic = found[0]!;
  expect({
    code: diagnostic.code,
    file: diagnostic.file,
    line: diagnostic.line,
    column: diagnostic.column,
    path: diagnostic.path,
    ...(expected.severity ? { severity: diagnostic.severity } : {}),
  }).toEqual({
    code: expected.code,
    // "" is the plugin root itself; a folder keeps its trailing "/" (common/positions.ts folderStart).
    file: expected.file === "" ? ROOT : expected.file === "/" ? `${ROOT}/` : `${ROOT}/${expected.file}`,
    line: expected.line,
    column: expected.column,
    path: expected.path,
    ...(expected.severity ? { severity: expected.severity } : {}),
  });
  return diagnostic;
}

/** Codes of all diagnostics, sorted. */
export function codes(pkg: PluginPackage): string[] {
  return pkg.diagnostics.map((d) => d.code).sort();
}

function describe(d: Diagnostic): string {
  return `${d.code} ${d.file}:${d.line}:${d.column} ${d.message}`;
}
