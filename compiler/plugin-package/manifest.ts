/**
 * Loads and validates root `plugin.json` (Agent Plugins v1 §5), before any component is
 * discovered (§5.1).
 *
 * Failure semantics, exactly as §5.2, §5.3 and §8.1 state them:
 * - an unknown top-level field is reported (warning), ignored and stripped: loading continues;
 * - a non-object `extensions` is reported (warning), ignored and stripped: loading continues;
 * - anything else (not JSON, not an object, missing or unsupported `$schema`, missing or invalid
 *   `name`, a wrong type, an unknown `author` field, a non-object `extensions` member, …)
 *   rejects the plugin, and then no component may be discovered.
 *
 * `$schema` is checked first: it selects the rules, so an unsupported version is the only
 * problem reported (its rules are unknown here), and it is never fetched.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { pointerToSegmentsIn } from "../../common/json-pointer.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, folderStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";
import { isJsonObject, setOwn, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { locateValue, type LocatedValue } from "../model.js";
import { findLocation } from "../location-table.js";
import { PLUGIN_REJECTED } from "./consequences.js";
import { relativeToRoot, resolvePackagePath } from "./containment.js";
import { didYouMean, didYouMeanHint } from "../../common/did-you-mean.js";
import { describeKind, describeSchemaType } from "../../diagnostics/json-kinds.js";
import { schemaErrorHint, schemaErrorReason, schemaErrorTarget } from "../../diagnostics/schema-error-words.js";
import { valueAtSegments } from "./json-kinds.js";
import { parseJsonDocument } from "./json-document.js";
import { duplicateKeyWarnings, jsonSyntaxDiagnostic } from "./json-diagnostics.js";
import { validateManifestSchema, type SchemaIssue } from "./official-schemas.js";
import { readPackageText } from "./package-file.js";
import { pluginNameProblems, suggestPluginName } from "./plugin-name.js";
import { CANONICAL_PLUGIN_SCHEMA, describeSupportedVersions, isSupportedVersion, parseSchemaIdentifier } from "./schema-ids.js";
import { cliCommand } from "../../common/cli-command.js";

/** The only top-level fields of a 1.0.0 `plugin.json` (Agent Plugins v1 §5.2). */
export const MANIFEST_FIELDS: readonly string[] = ["$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "extensions"];

/** The top-level fields of a 1.1.0 (draft) `plugin.json`: 1.0.0's plus `displayName` and `icon`. */
export const MANIFEST_FIELDS_1_1: readonly string[] = [...MANIFEST_FIELDS, "displayName", "icon"];

/** The top-level fields of `plugin.json` for an Agent Plugins version. */
export function manifestFields(version: string | undefined): readonly string[] {
  return version === "1.1.0" ? MANIFEST_FIELDS_1_1 : MANIFEST_FIELDS;
}

const AUTHOR_FIELDS: readonly string[] = ["name", "email", "url"];
const FIELD_ALIASES: Readonly<Record<string, string>> = { repo: "repository", tags: "keywords", authors: "author", website: "homepage", url: "homepage", licence: "license", schema: "$schema" };
const COMPONENT_FIELD_HINTS: Readonly<Record<string, string>> = {
  skills: "Skills are discovered from skills/<name>/SKILL.md and are never declared in plugin.json (Agent Plugins v1 §6.1); remove this field.",
  mcpServers: "MCP servers are configured in mcp.json at the plugin root, never inline in plugin.json (Agent Plugins v1 §7.2.1); move them there.",
};

/** What the loader learned from `plugin.json`. */
export interface ManifestResult {
  readonly rejected: boolean;
  /** The manifest without the ignored fields (only when not rejected). */
  readonly manifest: JsonObject | undefined;
  /** `name` when it is a string (even when invalid or rejected, for messages). */
  readonly name: string | undefined;
  readonly version: string | undefined;
  /** The Agent Plugins version `$schema` selects, when supported. */
  readonly agentPluginsVersion: string | undefined;
  /** Where `$schema` is written (for related locations). */
  readonly schemaLocation: SourceLocation | undefined;
  /** The name shown to people: 1.1.0 `displayName`, else `name` (only when not rejected). */
  readonly displayName?: string;
  /** 1.1.0 `icon` as written (`./…`), when it names a file inside the plugin; never fetched. */
  readonly icon?: string;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Reads `<root>/plugin.json` through `host`, after checking it resolves inside `rootReal`
 * (§4.1 boundary 1: an escaping manifest rejects the plugin and is never read).
 */
export function loadManifest(host: CompilerHost, root: string, rootReal: string): ManifestResult {
  const file = path.join(root, "plugin.json");
  const text = readManifestText(host, root, rootReal, file);
  if (!text.ok) return rejected([text.diagnostic]);
  const document = parseJsonDocument(file, text.text);
  if (!document.located) {
    return rejected([jsonSyntaxDiagnostic("plugin.json", document.syntaxError!, PLUGIN_REJECTED)]);
  }
  const diagnostics = duplicateKeyWarnings(document);
  const located = document.located;
  const value = located.value;
  if (!isJsonObject(value)) {
    return rejected([...diagnostics, createDiagnostic(Diagnostics.ManifestNotObject, findLocation(located.locations, "")!.value, [describeKind(value)])]);
  }
  const name = typeof value.name === "string" && Object.hasOwn(value, "name") ? value.name : undefined;
  const version = typeof value.version === "string" && Object.hasOwn(value, "version") ? value.version : undefined;
  const schemaLocation = Object.hasOwn(value, "$schema") ? findLocation(located.locations, "/$schema")?.value : undefined;
  const selected = selectManifestRules(value, located, file);
  if (selected.diagnostic) return { ...rejected([...diagnostics, selected.diagnostic, ...requiredByEveryVersion(value, located, file, root)]), name, version };

  diagnostics.push(...mapManifestSchemaIssues(validateManifestSchema(value, selected.version), located, file, root));
  const isRejected = diagnostics.some((d) => d.severity === "error");
  const icon = !isRejected && selected.version === "1.1.0" ? checkIcon(host, root, rootReal, located, file) : undefined;
  if (icon?.diagnostic) diagnostics.push(icon.diagnostic);
  const displayName = selected.version === "1.1.0" && typeof value.displayName === "string" && Object.hasOwn(value, "displayName") ? value.displayName : name;
  return {
    rejected: isRejected,
    manifest: isRejected ? undefined : keepPermittedFields(value, selected.version),
    name,
    version,
    agentPluginsVersion: selected.version,
    schemaLocation,
    ...(!isRejected && displayName !== undefined ? { displayName } : {}),
    ...(icon?.icon !== undefined ? { icon: icon.icon } : {}),
    diagnostics,
  };
}

function rejected(diagnostics: readonly Diagnostic[]): ManifestResult {
  return { rejected: true, manifest: undefined, name: undefined, version: undefined, agentPluginsVersion: undefined, schemaLocation: undefined, diagnostics };
}

function readManifestText(host: CompilerHost, root: string, rootReal: string, file: string): { ok: true; text: string } | { ok: false; diagnostic: Diagnostic } {
  const at = fileStart(file);
  const status = resolvePackagePath(host, rootReal, file);
  switch (status.kind) {
    case "missing": {
      // An agent root passed where a plugin belongs (`validate .` in the agent's folder).
      const agentRoot = host.kind(path.join(root, "agent.md")) === "file";
      const hint = agentRoot ? `This folder is an agent (it has agent.md), not a plugin: validate one of its plugins (plugins/<name>/), or run \`${cliCommand("compile")}\` on the agent.` : undefined;
      return { ok: false, diagnostic: createDiagnostic(Diagnostics.ManifestMissing, folderStart(root), [suggestPluginName(path.basename(root)) ?? path.basename(root)], hint ? { hint } : {}) };
    }
    case "broken":
      return { ok: false, diagnostic: createDiagnostic(Diagnostics.PackageBrokenSymlink, at, ["plugin.json", PLUGIN_REJECTED]) };
    case "outside":
      return { ok: false, diagnostic: createDiagnostic(Diagnostics.PathOutsidePluginRoot, at, ["plugin.json", relativeToRoot(rootReal, status.real), PLUGIN_REJECTED]) };
    case "inside":
      if (status.type !== "file") {
        const kind = status.type === "directory" ? "a directory" : "not a regular file";
        return { ok: false, diagnostic: createDiagnostic(Diagnostics.ComponentLocationWrongKind, at, ["plugin.json", "a regular file", kind, PLUGIN_REJECTED]) };
      }
      return readPackageText(host, root, file, status.real, PLUGIN_REJECTED);
  }
}

/** Checks `$schema` (§5.2): it must be the canonical identifier of a supported version. */
function selectManifestRules(value: JsonObject, located: LocatedValue, file: string): { version?: string; diagnostic?: Diagnostic } {
  if (!Object.hasOwn(value, "$schema")) {
    const nearMiss = Object.keys(value).find((key) => didYouMean(key, ["$schema"], { schema: "$schema" }) === "$schema");
    const hint = nearMiss
      ? `Did you mean '$schema' instead of '${nearMiss}'? Write "$schema": "${CANONICAL_PLUGIN_SCHEMA}".`
      : `Add "$schema": "${CANONICAL_PLUGIN_SCHEMA}" to plugin.json.`;
    return { diagnostic: createDiagnostic(Diagnostics.ManifestRequiredFieldMissing, pointLocation(locateValue(located, "", fileStart(file)).value), ["$schema"], { hint }) };
  }
  const schema = value.$schema;
  const at = locateValue(located, "/$schema", fileStart(file)).value;
  const unsupported = (reason: string): { diagnostic: Diagnostic } => ({
    diagnostic: createDiagnostic(Diagnostics.ManifestSchemaUnsupported, at, [reason], { path: "$schema" }),
  });
  if (typeof schema !== "string") return unsupported(`must be the string "${CANONICAL_PLUGIN_SCHEMA}", but it is ${describeKind(schema)}`);
  const identifier = parseSchemaIdentifier(schema);
  if (!identifier) return unsupported(`'${schema}' is not a recognised Agent Plugins manifest schema identifier (identifiers are compared exactly and never fetched)`);
  if (identifier.document !== "plugin") return unsupported(`'${schema}' identifies the MCP configuration schema, not the plugin manifest schema`);
  if (!isSupportedVersion(identifier.version)) {
    return unsupported(`'${schema}' targets Agent Plugins ${identifier.version}, which this toolchain does not support (it supports ${describeSupportedVersions()})`);
  }
  return { version: identifier.version };
}

/**
 * The missing fields that every supported version's schema requires besides `$schema` (today
 * `name`: schemas/agent-plugins/1.0.0 and 1.1.0), reported with a missing or unsupported
 * `$schema` too, so that `{}` gets both AL2103s in one compile instead of one per compile (as
 * tsc reports every error of a file at once). Nothing version-dependent is reported without a
 * selected version: an unknown field of 1.0.0 is a known one of 1.1.0.
 */
function requiredByEveryVersion(value: JsonObject, located: LocatedValue, file: string, root: string): Diagnostic[] {
  if (Object.hasOwn(value, "name")) return [];
  const suggestion = suggestPluginName(path.basename(root)) ?? "my-plugin";
  return [
    createDiagnostic(Diagnostics.ManifestRequiredFieldMissing, pointLocation(locateValue(located, "", fileStart(file)).value), ["name"], {
      hint: `Add "name": "${suggestion}" (lowercase letters, digits, '-' and '.').`,
    }),
  ];
}

/** Maps the official schema's violations to catalog diagnostics, with the §5.2/§8.1 exceptions as warnings. */
export function mapManifestSchemaIssues(issues: readonly SchemaIssue[], located: LocatedValue, file: string, root: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  let nameReported = false;
  for (const issue of issues) {
    if (issue.instancePath === "/name" && ["minLength", "maxLength", "pattern"].includes(issue.keyword)) {
      if (!nameReported) diagnostics.push(invalidName(located, file));
      nameReported = true;
      continue;
    }
    const diagnostic = mapIssue(issue, located, file, root);
    if (diagnostic) diagnostics.push(diagnostic);
  }
  return diagnostics;
}

function mapIssue(issue: SchemaIssue, located: LocatedValue, file: string, root: string): Diagnostic | undefined {
  const target = schemaErrorTarget(issue, located.value);
  const segments = target.path;
  const found = locateValue(located, target.pointer, fileStart(file));
  const actual = valueAtSegments(located.value, pointerToSegmentsIn(issue.instancePath, located.value));
  switch (issue.keyword) {
    case "additionalProperties":
      return unknownProperty(issue, target.property!, segments, found.key ?? found.value);
    case "required": {
      const field = target.property!;
      const suggestion = suggestPluginName(path.basename(root)) ?? "my-plugin";
      return createDiagnostic(Diagnostics.ManifestRequiredFieldMissing, pointLocation(found.value), [field], {
        ...(field === "name" ? { hint: `Add "name": "${suggestion}" (lowercase letters, digits, '-' and '.').` } : {}),
      });
    }
    case "type": {
      if (issue.instancePath === "/extensions") return createDiagnostic(Diagnostics.ExtensionsNotObject, found.value, [describeKind(actual)], { path: "extensions" });
      if (segments.length === 2 && segments[0] === "extensions") {
        // DISPUTED (corpus apkit__AP-8.1-EXTENSIONS-MEMBER-OBJECTS): we reject. §8.1 says member values
        // MUST be objects and the official schema agrees; §5.2 makes every schema violation fatal except an
        // unknown top-level field and a non-object `extensions` itself. "Without validating the contents
        // of their values" (§8.1, §11.1) is about what is inside a namespace's object, not whether it is one.
        return createDiagnostic(Diagnostics.ExtensionMemberNotObject, found.value, [String(segments[1]), describeKind(actual)], { path: segments });
      }
      const expected = describeSchemaType(String(issue.params["type"]));
      return createDiagnostic(Diagnostics.ManifestFieldWrongType, found.value, [formatPropertyPath(segments), expected, describeKind(actual)], { path: segments, hint: schemaErrorHint(issue, actual) });
    }
    default:
      return createDiagnostic(Diagnostics.ManifestSchemaViolation, found.value, [formatPropertyPath(segments) || "(top level)", schemaErrorReason(issue, actual)], { path: segments });
  }
}

function unknownProperty(issue: SchemaIssue, field: string, fieldPath: readonly PropertyKey[], where: SourceLocation): Diagnostic {
  if (issue.instancePath === "") {
    // Own properties only: a field named "__proto__" must not read the table's prototype.
    const hint = (Object.hasOwn(COMPONENT_FIELD_HINTS, field) ? COMPONENT_FIELD_HINTS[field] : undefined) ?? didYouMeanHint(field, MANIFEST_FIELDS, FIELD_ALIASES);
    return createDiagnostic(Diagnostics.ManifestUnknownField, where, [field], { path: fieldPath, ...(hint ? { hint } : {}) });
  }
  if (issue.instancePath === "/author") {
    const hint = didYouMeanHint(field, AUTHOR_FIELDS) ?? "Remove the field, or move it under extensions.<namespace>.";
    return createDiagnostic(Diagnostics.ManifestAuthorUnknownField, where, [formatPropertyPath(fieldPath)], { path: fieldPath, hint });
  }
  return createDiagnostic(Diagnostics.ManifestSchemaViolation, where, [formatPropertyPath(fieldPath), "unexpected property"], { path: fieldPath });
}

function invalidName(located: LocatedValue, file: string): Diagnostic {
  const name = (located.value as JsonObject).name as string;
  const problems = pluginNameProblems(name);
  const reason = problems.length > 0 ? problems.join("; ") : "it does not match the required pattern";
  const suggestion = suggestPluginName(name);
  const hint = suggestion
    ? `Did you mean '${suggestion}'? Plugin names are 1-64 characters of a-z, 0-9, '-' and '.', start and end with a letter or digit, and never repeat '-' or '.'.`
    : "Plugin names are 1-64 characters of a-z, 0-9, '-' and '.', start and end with a letter or digit, and never repeat '-' or '.'.";
  return createDiagnostic(Diagnostics.PluginNameInvalid, locateValue(located, "/name", fileStart(file)).value, [name, reason], { path: "name", hint });
}

/**
 * 1.1.0 `icon` (issue 11 item 4): a `./` path of a regular file inside the plugin, checked like
 * every other plugin path (symlinks resolved, containment) and never fetched. A bad path is a
 * warning (AL2111) and the icon is dropped; the plugin still loads.
 */
function checkIcon(host: CompilerHost, root: string, rootReal: string, located: LocatedValue, file: string): { icon?: string; diagnostic?: Diagnostic } {
  const value = (located.value as JsonObject).icon;
  if (typeof value !== "string") return {};
  const at = locateValue(located, "/icon", fileStart(file)).value;
  const bad = (problem: string): { diagnostic: Diagnostic } => ({ diagnostic: createDiagnostic(Diagnostics.ManifestIconInvalid, at, [problem], { path: "icon" }) });
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return bad(`is a URL ('${value}'); icons are files inside the plugin and are never fetched`);
  if (!value.startsWith("./")) return bad(`'${value}' does not begin with './'`);
  if (value.split(/[\\/]+/).includes("..")) return bad(`'${value}' leaves the plugin folder ('..')`);
  const status = resolvePackagePath(host, rootReal, path.join(root, value));
  switch (status.kind) {
    case "missing":
      return bad(`names '${value}', which does not exist`);
    case "broken":
      return bad(`names '${value}', a broken symbolic link`);
    case "outside":
      return bad(`names '${value}', which resolves outside the plugin (${relativeToRoot(rootReal, status.real)})`);
    case "inside":
      return status.type === "file" ? { icon: value } : bad(`names '${value}', which is not a regular file`);
  }
}

/** Top-level fields the spec defines, without unknown fields and without a non-object `extensions`. */
function keepPermittedFields(value: JsonObject, version: string | undefined): JsonObject {
  const out: Record<string, JsonValue> = {};
  const fields = manifestFields(version);
  for (const key of Object.keys(value)) {
    if (!fields.includes(key)) continue;
    if (key === "extensions" && !isJsonObject(value[key])) continue;
    setOwn(out, key, value[key]);
  }
  return out;
}

/** A point (no span) at the start of `at`: a missing field has no text of its own. */
function pointLocation(at: SourceLocation): SourceLocation {
  return { file: at.file, line: at.line, column: at.column };
}
