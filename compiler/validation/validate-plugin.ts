/**
 * Stage 4: turn one plugin's statically evaluated entry into validated tool descriptors
 * (DESIGN §3; issue 2 item 4).
 *
 * Checks, in this order, reporting everything it finds: the closed entry shape, the
 * `configSchema`, and per tool its name, `disabled: true` rules, `inputSchema`, `definition`
 * path, `factory` export, the descriptor-versus-implementation drift, near-miss sideEffect
 * labels (a warning), and credential names.
 * Collisions need every plugin of a surface, so they are `checkSurfaceTools` (collisions.ts).
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { locateValue, type DefinitionAnalysis, type EntryAnalysis, type LocatedValue } from "../model.js";
import { checkConfigCredentials, checkCredentialNames } from "../config/check-credentials.js";
import { CORE_TOOL_NAMES } from "./core-tool-names.js";
import { checkDrift, sameSchemaInDefinition } from "./drift.js";
import { checkEntryShape } from "./entry-shape.js";
import { checkSideEffectLabels } from "./side-effect-label.js";
import { checkControlCharacters } from "./control-characters.js";
import { checkJsonSchema } from "./json-schema.js";
import { resolveDefinition } from "./resolve-definition.js";
import type { SchemaCompiler } from "./schema-compiler.js";
import { escapePointerSegment } from "../../common/json-pointer.js";
import { DEFAULT_SIDE_EFFECT } from "../../contract/approval.js";

/** A tool descriptor that passed validation (plain data; what the lock and packaging use). */
export interface ValidatedTool {
  readonly name: string;
  readonly capability: string;
  /** `definition` as written (`./ai.assemblyline/echo.ts`). */
  readonly definition: string;
  /** Absolute path of the definition module. */
  readonly definitionFile: string;
  readonly factory: string | undefined;
  readonly description: string;
  readonly inputSchema: JsonObject;
  /** Tool-level config defaults (merged with the capability config in the config stage). */
  readonly config: JsonObject;
  readonly requiredConfig: readonly string[];
  readonly visibility: "visible" | "deferred" | "hidden";
  readonly tags: readonly string[];
  readonly aliases: readonly string[];
  readonly namespace: string | undefined;
  /** Approval policy with `sideEffect` defaulted to `"external"` (seed "Approval Gates"). */
  readonly needsApproval: { readonly reason: string; readonly sideEffect: string } | undefined;
  /** Where the tool's key is written in the entry. */
  readonly location: SourceLocation;
}

/** A `disabled: true` descriptor: removes the core tool `name` from the surface. */
export interface DisabledTool {
  readonly name: string;
  readonly capability: string;
  readonly location: SourceLocation;
}

/** Validation result of one plugin. Tools with errors are left out of `tools`. */
export interface ValidatedPlugin {
  readonly capability: string;
  readonly configSchema: JsonObject | undefined;
  readonly tools: readonly ValidatedTool[];
  readonly disabled: readonly DisabledTool[];
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link validatePlugin} needs about one plugin. */
export interface PluginValidationInput {
  readonly host: CompilerHost;
  /** Capability key (used in messages and carried into descriptors). */
  readonly capability: string;
  /** Absolute plugin root. */
  readonly pluginRoot: string;
  readonly entry: EntryAnalysis;
  /** Analyses a definition module (cached by the caller's static analyzer). */
  readonly analyzeDefinition: (file: string) => DefinitionAnalysis;
  /** Who compiles the schemas with ajv (default: inline); see `schema-compiler.ts`. */
  readonly schemaCompiler?: SchemaCompiler;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Validates one plugin's entry. Never throws; every problem is a diagnostic. */
export function validatePlugin(input: PluginValidationInput): ValidatedPlugin {
  const diagnostics: Diagnostic[] = [];
  const entry = input.entry.entry;
  const fallback = fileStart(input.entry.file);
  if (!entry) return { capability: input.capability, configSchema: undefined, tools: [], disabled: [], diagnostics };

  const unreadable = input.entry.diagnostics.filter((d) => d.severity === "error" && d.path !== undefined).map((d) => d.path!);
  const shape = checkEntryShape(entry, fallback, unreadable);
  diagnostics.push(...shape);
  // A tool with a shape error, or with a part the static analysis could not read, is not handed on.
  const brokenTools = new Set(
    [...shape, ...input.entry.diagnostics.filter((d) => d.severity === "error")].map((d) => toolOfPath(d.path)).filter((name): name is string => name !== undefined),
  );
  const brokenPaths = new Set(shape.map((d) => d.path));

  const configSchema = isJsonObject(entry.value["configSchema"]) ? entry.value["configSchema"] : undefined;
  if (configSchema) {
    diagnostics.push(...checkJsonSchema(configSchema, { role: "configSchema", located: entry, pointer: "/configSchema", fallback }, input.schemaCompiler));
    diagnostics.push(...checkCredentialNames(configSchemaPropertyNames(configSchema), entry, fallback, "configSchema property"));
  }

  const tools: ValidatedTool[] = [];
  const disabled: DisabledTool[] = [];
  const toolMap = isJsonObject(entry.value["tools"]) ? entry.value["tools"] : {};
  for (const name of Object.keys(toolMap)) {
    const descriptor = toolMap[name];
    const pointer = `/tools/${escapePointerSegment(name)}`;
    const keyLocation = locateValue(entry, pointer, fallback);
    const location = keyLocation.key ?? keyLocation.value;
    if (!TOOL_NAME.test(name)) {
      diagnostics.push(createDiagnostic(Diagnostics.ToolNameInvalid, location, [name, toolNameProblem(name)], { path: ["tools", name] }));
      continue;
    }
    if (!isJsonObject(descriptor)) continue;
    if (descriptor["disabled"] === true && !brokenTools.has(name)) {
      checkDisabled(name, descriptor, location, diagnostics);
      if (CORE_TOOL_NAMES.has(name)) disabled.push({ name, capability: input.capability, location });
      continue;
    }
    // A tool with shape errors is still checked field by field (every problem of a run is
    // reported together), but it is not handed on.
    const fieldBroken = (field: string) => brokenPaths.has(formatPropertyPath(["tools", name, field]));
    const tool = validateTool(input, entry, name, descriptor, pointer, location, fallback, diagnostics, brokenTools.has(name) ? fieldBroken : undefined);
    if (tool && !brokenTools.has(name)) tools.push(tool);
  }
  return { capability: input.capability, configSchema, tools, disabled, diagnostics };
}

function validateTool(
  input: PluginValidationInput,
  entry: LocatedValue<JsonObject>,
  name: string,
  descriptor: JsonObject,
  pointer: string,
  location: SourceLocation,
  fallback: SourceLocation,
  diagnostics: Diagnostic[],
  /** Set when the descriptor has shape errors: says which fields are themselves broken. */
  fieldBroken?: (field: string) => boolean,
): ValidatedTool | undefined {
  const before = diagnostics.length;
  const usable = (field: string, ok: boolean) => ok && !(fieldBroken?.(field) ?? false);
  const inputSchema = descriptor["inputSchema"] as JsonObject;
  // Root causes before consequences: a descriptor schema with errors (AL4017–AL4025) is not
  // also compared with defineTool()'s, whose "differs" report (AL4026) would only restate them.
  let schemaBroken = false;
  const schemaStart = diagnostics.length;
  if (usable("inputSchema", isJsonObject(inputSchema))) {
    const schemaProblems = checkJsonSchema(inputSchema, { role: "inputSchema", located: entry, pointer: `${pointer}/inputSchema`, fallback }, input.schemaCompiler);
    schemaBroken = schemaProblems.some((d) => d.severity === "error");
    diagnostics.push(...schemaProblems);
  }
  const schemaEnd = diagnostics.length;

  const definition = descriptor["definition"] as string;
  const definitionAt = locateValue(entry, `${pointer}/definition`, fallback).value;
  const resolved = usable("definition", typeof definition === "string")
    ? resolveDefinition(input.host, input.pluginRoot, definition, definitionAt, ["tools", name, "definition"], path.dirname(input.entry.file))
    : { file: undefined, diagnostics: [] };
  diagnostics.push(...resolved.diagnostics);
  const factory = typeof descriptor["factory"] === "string" ? descriptor["factory"] : undefined;
  const needsApproval = isJsonObject(descriptor["needsApproval"])
    ? { reason: String(descriptor["needsApproval"]["reason"]), sideEffect: String(descriptor["needsApproval"]["sideEffect"] ?? DEFAULT_SIDE_EFFECT) }
    : undefined;
  const analysis = resolved.file ? input.analyzeDefinition(resolved.file) : undefined;
  if (analysis) {
    diagnostics.push(...analysis.diagnostics);
    diagnostics.push(...checkExports(analysis, factory, definition, entry, pointer, fallback, name));
    // The same broken schema written again in defineTool(): each of its errors names that copy too.
    const copy = schemaBroken ? sameSchemaInDefinition(analysis, factory ?? "default", inputSchema) : undefined;
    for (let i = schemaStart; copy && i < schemaEnd; i++) {
      const problem = diagnostics[i]!;
      if (problem.severity === "error") diagnostics[i] = { ...problem, related: [...(problem.related ?? []), copy] };
    }
    // Drift compares whole fields, so only a descriptor without shape errors is compared.
    if (!fieldBroken) {
      const skip = schemaBroken ? ["inputSchema" as const] : [];
      diagnostics.push(...checkDrift({ name, descriptor, needsApproval, analysis, exportName: factory ?? "default", entry, pointer, fallback, definition, skip }));
    }
  }
  diagnostics.push(...checkControlCharacters(name, descriptor, entry, pointer, fallback));
  const approvalWritten = isJsonObject(descriptor["needsApproval"]) ? descriptor["needsApproval"] : undefined;
  diagnostics.push(...checkSideEffectLabels({ name, needsApproval: approvalWritten, entry, pointer, fallback, analysis, exportName: factory ?? "default" }));

  const requiredConfig = stringArray(descriptor["requiredConfig"]);
  diagnostics.push(...checkCredentialNames(requiredConfig.map((n, i) => ({ name: n, pointer: `${pointer}/requiredConfig/${i}` })), entry, fallback, "requiredConfig name"));
  const config = isJsonObject(descriptor["config"]) ? descriptor["config"] : {};
  diagnostics.push(...checkConfigCredentials(config, entry, `${pointer}/config`, fallback));

  if (diagnostics.slice(before).some((d) => d.severity === "error") || !resolved.file) return undefined;
  return {
    name,
    capability: input.capability,
    definition,
    definitionFile: resolved.file,
    factory,
    description: descriptor["description"] as string,
    inputSchema,
    config,
    requiredConfig,
    visibility: (descriptor["visibility"] as ValidatedTool["visibility"] | undefined) ?? "visible",
    tags: stringArray(descriptor["tags"]),
    aliases: stringArray(descriptor["aliases"]),
    namespace: typeof descriptor["namespace"] === "string" ? descriptor["namespace"] : undefined,
    needsApproval,
    location,
  };
}

function checkExports(
  analysis: DefinitionAnalysis,
  factory: string | undefined,
  definition: string,
  entry: LocatedValue<JsonObject>,
  pointer: string,
  fallback: SourceLocation,
  name: string,
): Diagnostic[] {
  if (!analysis.parsed) return [];
  const form = analysis.definedTools.find((tool) => tool.exportName === (factory ?? "default"))?.form;
  if (factory !== undefined) {
    if (analysis.namedExports.includes(factory)) {
      if (form !== "value") return [];
      return [
        createDiagnostic(Diagnostics.FactoryFormMismatch, locateValue(entry, `${pointer}/factory`, fallback).value, [`factory '${factory}' names the tool itself (a defineTool({...}) value), not a function that returns it`], {
          path: ["tools", name, "factory"],
          hint: `Remove factory and make the tool the module's default export (export default defineTool({...})), or export a function that returns it: export function ${factory}(config) { return defineTool({...}); }.`,
          related: [{ ...fileStart(analysis.file), message: "The definition module" }],
        }),
      ];
    }
    const at = locateValue(entry, `${pointer}/factory`, fallback).value;
    const path = ["tools", name, "factory"];
    if (analysis.hasExportStar) return [createDiagnostic(Diagnostics.FactoryUnverifiable, at, [factory, definition], { path })];
    const exports = analysis.namedExports;
    return [
      createDiagnostic(Diagnostics.FactoryNotExported, at, [factory, definition], {
        path,
        hint: exports.length > 0 ? `It exports: ${exports.join(", ")}.` : `Add 'export function ${factory}(config) { return defineTool({...}); }' to ${definition}.`,
        related: [{ ...fileStart(analysis.file), message: "The definition module" }],
      }),
    ];
  }
  const at = locateValue(entry, `${pointer}/definition`, fallback).value;
  if (analysis.hasDefaultExport) {
    if (form !== "factory") return [];
    return [
      createDiagnostic(Diagnostics.FactoryFormMismatch, at, [`The default export of ${definition} is a function that returns the tool, and the descriptor names no factory`], {
        path: ["tools", name, "definition"],
        hint: "Export the function by name and set factory to that name, or export the tool itself: export default defineTool({...}).",
        related: [{ ...fileStart(analysis.file), message: "The definition module" }],
      }),
    ];
  }
  return [createDiagnostic(Diagnostics.DefinitionNoDefaultExport, at, [definition], { path: ["tools", name, "definition"] })];
}

function checkDisabled(name: string, descriptor: JsonObject, location: SourceLocation, diagnostics: Diagnostic[]): void {
  if (!CORE_TOOL_NAMES.has(name)) {
    diagnostics.push(
      createDiagnostic(Diagnostics.DisabledNotCoreTool, location, [name], {
        path: ["tools", name, "disabled"],
        hint: `Core tools are: ${[...CORE_TOOL_NAMES].join(", ")}. To hide a tool of your own, use visibility: "hidden" or remove it.`,
      }),
    );
  }
  const others = Object.keys(descriptor).filter((key) => key !== "disabled");
  if (others.length > 0) diagnostics.push(createDiagnostic(Diagnostics.DisabledWithOtherFields, location, [name, others.join(", ")], { path: ["tools", name] }));
}

function toolNameProblem(name: string): string {
  if (name.length === 0) return "it is empty";
  if (name.length > 64) return `it is ${name.length} characters long (at most 64)`;
  const bad = [...new Set(name.replace(/[a-zA-Z0-9_-]/g, ""))].map((c) => JSON.stringify(c)).join(", ");
  return `it contains ${bad}`;
}

function toolOfPath(pathText: string | undefined): string | undefined {
  if (!pathText?.startsWith("tools")) return undefined;
  const match = /^tools(?:\.([A-Za-z_$][\w$]*)|\[("(?:[^"\\]|\\.)*")\])/.exec(pathText);
  if (!match) return undefined;
  return match[1] ?? (JSON.parse(match[2]!) as string);
}

function stringArray(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Every property name declared anywhere under `properties` of a configSchema, with its pointer. */
function configSchemaPropertyNames(schema: JsonObject): { name: string; pointer: string; key: boolean }[] {
  const names: { name: string; pointer: string; key: boolean }[] = [];
  const visit = (node: JsonValue, pointer: string): void => {
    if (!isJsonObject(node)) return;
    const properties = node["properties"];
    if (isJsonObject(properties)) {
      for (const key of Object.keys(properties)) {
        const at = `${pointer}/properties/${escapePointerSegment(key)}`;
        names.push({ name: key, pointer: at, key: true });
        visit(properties[key]!, at);
      }
    }
    for (const key of ["items", "additionalProperties"]) if (isJsonObject(node[key])) visit(node[key]!, `${pointer}/${key}`);
  };
  visit(schema, "/configSchema");
  return names;
}

