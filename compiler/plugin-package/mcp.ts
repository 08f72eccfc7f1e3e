/**
 * Loads `mcp.json` (Agent Plugins v1 §6.2, §7.2, §10.1) with its two failure boundaries:
 *
 * - document level (§7.2.2 item 2): `mcp.json` that is not a regular file, escapes the plugin
 *   root, is not valid JSON, is not an object, has a field other than `$schema`/`mcpServers`,
 *   lacks one of them, names an unsupported `$schema`, targets another Agent Plugins version
 *   than plugin.json, or has a non-object `mcpServers` disables MCP for the plugin (status
 *   `invalid`); no server is evaluated, and the rest of the plugin still loads;
 * - entry level (§7.2.2 item 3): an invalid server is skipped and the others load
 *   (`./mcp-server.ts`).
 *
 * Servers are reported sorted by name (code-unit order), never in object-key order.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { byCodeUnits } from "../../common/compare.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import { locateValue, type LocatedValue, type McpServerComponent, type SkippedComponent } from "../model.js";
import { MCP_INVALID } from "./consequences.js";
import { relativeToRoot, resolvePackagePath } from "./containment.js";
import { didYouMeanHint } from "../../common/did-you-mean.js";
import { describeKind } from "../../diagnostics/json-kinds.js";
import { parseJsonDocument, type JsonDocument } from "./json-document.js";
import { duplicateKeyWarnings, jsonSyntaxDiagnostic } from "./json-diagnostics.js";
import { hasError } from "./mcp-context.js";
import { escapePointerSegment } from "../../common/json-pointer.js";
import { checkMcpServer } from "./mcp-server.js";
import { readPackageText } from "./package-file.js";
import { CANONICAL_MCP_SCHEMA, parseSchemaIdentifier } from "./schema-ids.js";

const MCP_FIELDS: readonly string[] = ["$schema", "mcpServers"];

/** The MCP component of a plugin. */
export interface McpResult {
  readonly status: "absent" | "configured" | "invalid";
  /** Loaded servers, sorted by name. */
  readonly servers: readonly McpServerComponent[];
  /** Skipped servers, sorted by name. */
  readonly skipped: readonly SkippedComponent[];
  readonly diagnostics: readonly Diagnostic[];
}

/** What plugin.json said about the targeted version, for the §10.1 match. */
export interface ManifestVersion {
  readonly version: string;
  readonly schemaLocation: SourceLocation | undefined;
}

/** Loads `<root>/mcp.json` of a plugin whose manifest targets `manifest.version`. */
export function loadMcpConfig(host: CompilerHost, root: string, rootReal: string, manifest: ManifestVersion): McpResult {
  const file = path.join(root, "mcp.json");
  const at = fileStart(file);
  const invalid = (diagnostics: readonly Diagnostic[]): McpResult => ({ status: "invalid", servers: [], skipped: [], diagnostics });
  const status = resolvePackagePath(host, rootReal, file);
  switch (status.kind) {
    case "missing":
      return { status: "absent", servers: [], skipped: [], diagnostics: [] };
    case "broken":
      return invalid([createDiagnostic(Diagnostics.PackageBrokenSymlink, at, ["mcp.json", MCP_INVALID])]);
    case "outside":
      return invalid([createDiagnostic(Diagnostics.PathOutsidePluginRoot, at, ["mcp.json", relativeToRoot(rootReal, status.real), MCP_INVALID])]);
    case "inside":
      if (status.type !== "file") {
        const kind = status.type === "directory" ? "a directory" : "not a regular file";
        return invalid([createDiagnostic(Diagnostics.ComponentLocationWrongKind, at, ["mcp.json", "a regular file", kind, MCP_INVALID])]);
      }
  }
  const text = readPackageText(host, root, file, status.real, MCP_INVALID);
  if (!text.ok) return invalid([text.diagnostic]);
  const document = parseJsonDocument(file, text.text);
  if (!document.located) {
    return invalid([jsonSyntaxDiagnostic("mcp.json", document.syntaxError!, MCP_INVALID)]);
  }
  const diagnostics = duplicateKeyWarnings(document);
  const topLevel = checkTopLevel(document.located, file, manifest);
  diagnostics.push(...topLevel.diagnostics);
  if (!topLevel.servers) return invalid(diagnostics);
  const servers = loadServers(host, rootReal, file, document, topLevel.servers);
  return { ...servers, diagnostics: [...diagnostics, ...servers.diagnostics] };
}

/** Checks the closed top level; returns the `mcpServers` object when the document is usable. */
function checkTopLevel(located: LocatedValue, file: string, manifest: ManifestVersion): { servers?: JsonObject; diagnostics: Diagnostic[] } {
  const value = located.value;
  const at = (pointer: string) => locateValue(located, pointer, fileStart(file));
  if (!isJsonObject(value)) return { diagnostics: [createDiagnostic(Diagnostics.McpNotObject, at("").value, [describeKind(value)])] };
  const diagnostics: Diagnostic[] = [];
  for (const key of Object.keys(value)) {
    if (MCP_FIELDS.includes(key)) continue;
    const location = at(`/${escapePointerSegment(key)}`);
    const hint = didYouMeanHint(key, MCP_FIELDS, { servers: "mcpServers", mcp_servers: "mcpServers", schema: "$schema" }) ?? "Remove the field.";
    diagnostics.push(createDiagnostic(Diagnostics.McpUnknownTopLevelField, location.key ?? location.value, [key], { path: [key], hint }));
  }
  const objectStart = { file, line: at("").value.line, column: at("").value.column };
  for (const required of MCP_FIELDS) {
    if (!Object.hasOwn(value, required)) {
      const hint = required === "$schema" ? `Add "$schema": "${CANONICAL_MCP_SCHEMA}".` : 'Add "mcpServers": {} (an empty object is valid).';
      diagnostics.push(createDiagnostic(Diagnostics.McpRequiredFieldMissing, objectStart, [required], { hint }));
    }
  }
  if (Object.hasOwn(value, "$schema")) {
    const problem = checkSchemaIdentifier(value.$schema, at("/$schema").value, manifest);
    if (problem) diagnostics.push(problem);
  }
  const servers = Object.hasOwn(value, "mcpServers") ? value.mcpServers : undefined;
  if (servers !== undefined && !isJsonObject(servers)) {
    diagnostics.push(createDiagnostic(Diagnostics.McpServersNotObject, at("/mcpServers").value, [describeKind(servers)], { path: "mcpServers" }));
  }
  if (hasError(diagnostics) || !isJsonObject(servers)) return { diagnostics };
  return { servers, diagnostics };
}

/** `$schema` of mcp.json: a supported identifier of the MCP schema, of the same version as plugin.json (§7.2.1, §10.1). */
function checkSchemaIdentifier(schema: unknown, at: SourceLocation, manifest: ManifestVersion): Diagnostic | undefined {
  const unsupported = (reason: string): Diagnostic => createDiagnostic(Diagnostics.McpSchemaUnsupported, at, [reason], { path: "$schema" });
  if (typeof schema !== "string") return unsupported(`must be the string "${CANONICAL_MCP_SCHEMA}", but it is ${describeKind(schema)}`);
  const identifier = parseSchemaIdentifier(schema);
  if (!identifier) return unsupported(`'${schema}' is not a recognised Agent Plugins MCP schema identifier (identifiers are compared exactly and never fetched)`);
  if (identifier.document !== "mcp") return unsupported(`'${schema}' identifies the plugin manifest schema, not the MCP configuration schema`);
  if (identifier.version !== manifest.version) {
    return createDiagnostic(Diagnostics.McpSchemaVersionMismatch, at, [identifier.version, manifest.version], {
      path: "$schema",
      ...(manifest.schemaLocation ? { related: [{ ...manifest.schemaLocation, message: `plugin.json targets Agent Plugins ${manifest.version} here` }] } : {}),
    });
  }
  return undefined;
}

function loadServers(host: CompilerHost, rootReal: string, file: string, document: JsonDocument, servers: JsonObject): Omit<McpResult, "status"> & { status: "configured" } {
  const loaded: McpServerComponent[] = [];
  const skipped: SkippedComponent[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const name of Object.keys(servers).sort(byCodeUnits)) {
    const context = { host, rootReal, file, located: document.located!, duplicates: document.duplicates, name, pointer: `/mcpServers/${escapePointerSegment(name)}` };
    const check = checkMcpServer(context, servers[name]!);
    diagnostics.push(...check.diagnostics);
    if (check.component) loaded.push(check.component);
    else {
      const codes = [...new Set(check.diagnostics.filter((d) => d.severity === "error").map((d) => d.code))].sort(byCodeUnits);
      skipped.push({ name, file, codes });
    }
  }
  return { status: "configured", servers: loaded, skipped, diagnostics };
}
