/**
 * Plain, readonly data handed from one compiler stage to the next (STYLE §2). No ts-morph
 * node, ajv instance or file handle appears here: only values and source locations.
 *
 * Pipeline (DESIGN §1):
 *   agent/        loadAgent            → AgentModel (surfaces, capability requests)
 *   plugin-package/ loadPluginPackage  → PluginPackage (Agent Plugins v1 manifest, skills, MCP)
 *   static-analysis/ analyzeEntry      → EntryAnalysis (the entry's value + locations)
 *                    analyzeDefinition → DefinitionAnalysis (exports, defineTool literals)
 *   validation/   validatePlugin       → PluginDescriptors (typed descriptors, configSchema)
 *   config/       mergeCapabilityConfig→ effective config per tool
 *   lockfile/     buildLockfile        → Lockfile (plain JSON)
 */
import type { Diagnostic, SourceLocation } from "../diagnostics/diagnostic.js";
import type { JsonObject, JsonValue } from "../common/json-value.js";
import { findLocation, type LocationTable, type ValueLocation } from "./location-table.js";

// Where a value and its key are written, and the compact table of an evaluated value's
// locations: defined with their reader (`location-table.ts`), part of this model.
export type { LocationTable, ValueLocation } from "./location-table.js";

/**
 * A JSON value read from a source file, with the location of every nested value keyed by its
 * JSON Pointer (RFC 6901: `""` is the root, `/tools/echo/inputSchema`). Pointers match ajv's
 * `instancePath`, so schema errors map straight back to the line that wrote the value.
 * `locations` is a map (JSON and YAML documents) or, for evaluated entries, a
 * {@link LocationTable}; read either with {@link findLocation}.
 */
export interface LocatedValue<T extends JsonValue = JsonValue> {
  readonly value: T;
  readonly locations: ReadonlyMap<string, ValueLocation> | LocationTable;
}

/** Finds the closest recorded location for a pointer (walking up to its parents). */
export function locateValue(located: Pick<LocatedValue, "locations">, pointer: string, fallback: SourceLocation): ValueLocation {
  let current = pointer;
  for (;;) {
    const found = findLocation(located.locations, current);
    if (found) return found;
    if (current === "") return { value: fallback };
    current = current.slice(0, current.lastIndexOf("/"));
  }
}

// ───────────────────────────── plugin package (Agent Plugins v1) ─────────────────────────────

/** A skill that loaded (Agent Plugins v1 §7.1; Agent Skills front matter). */
export interface SkillComponent {
  readonly name: string;
  readonly description: string;
  /** Absolute path of `skills/<dir>/SKILL.md`. */
  readonly file: string;
}

/** An MCP server entry of `mcp.json` that loaded (Agent Plugins v1 §7.2). */
export interface McpServerComponent {
  readonly name: string;
  readonly type: "stdio" | "streamable-http" | "sse";
  /** The server object as written (after validation); placeholders are not expanded. */
  readonly config: JsonObject;
}

/**
 * A skill directory or MCP server entry the loader found but skipped (Agent Plugins v1 §7.1,
 * §7.2.2); the package's diagnostics say why. `name` is the skill's directory name or the
 * server's key in `mcpServers`.
 */
export interface SkippedComponent {
  readonly name: string;
  /** Absolute path of the file that holds it (`SKILL.md`, `mcp.json`), or of the escaping link. */
  readonly file: string;
  /** Codes of the diagnostics that made the loader skip it, sorted. */
  readonly codes: readonly string[];
}

/**
 * Result of loading one Agent Plugins v1 package.
 * `rejected` is true when the spec says the whole plugin must be refused; then `skills`,
 * `mcpServers` and `entryFile` are empty/undefined (no component may be discovered).
 */
export interface PluginPackage {
  /** Absolute path of the plugin root as given (not resolved through symlinks). */
  readonly root: string;
  /** `plugin.json` `name`, when the manifest could be read. */
  readonly name: string | undefined;
  readonly version: string | undefined;
  /** Agent Plugins 1.1.0 (draft) `displayName`, else `name` (absent when rejected). */
  readonly displayName?: string;
  /** Agent Plugins 1.1.0 (draft) `icon`: a checked `./` path inside the plugin, never fetched. */
  readonly icon?: string;
  readonly rejected: boolean;
  /** The manifest value (only when not rejected). */
  readonly manifest: JsonObject | undefined;
  readonly skills: readonly SkillComponent[];
  readonly mcpServers: readonly McpServerComponent[];
  /** Status of the MCP component, in the corpus's vocabulary. */
  readonly mcpStatus: "absent" | "configured" | "invalid" | "not-discovered";
  /** Status of the skills component (`invalid` when `skills/` itself is unusable). */
  readonly skillsStatus: "absent" | "loaded" | "invalid" | "not-discovered";
  /** Absolute path of `ai.assemblyline/index.{ts,mts,js,mjs}` when present (and not rejected). */
  readonly entryFile: string | undefined;
  /** Skills found under `skills/` but skipped (sorted by name); always set by `loadPluginPackage`. */
  readonly skippedSkills?: readonly SkippedComponent[];
  /** `mcp.json` server entries skipped (sorted by name); always set by `loadPluginPackage`. */
  readonly skippedMcpServers?: readonly SkippedComponent[];
  readonly diagnostics: readonly Diagnostic[];
}

// ───────────────────────────── static analysis ─────────────────────────────

/**
 * The statically evaluated default export of an `ai.assemblyline` entry: plain JSON with the
 * location of every value. `value` is `undefined` when the entry could not be evaluated at all
 * (syntax error, no default export); diagnostics say why.
 */
export interface EntryAnalysis {
  readonly file: string;
  readonly entry: LocatedValue<JsonObject> | undefined;
  /** True when the default export is `defineAssemblyLinePlugin({...})` (else a plain object). */
  readonly wrapped: boolean;
  /** Every file the evaluation read (the entry, imported modules, JSON files), for caching and hashing. */
  readonly dependencies: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

/** What `defineTool({...})` says in a definition module, where statically readable. */
export interface DefinedTool {
  /** `"default"` or the name of the export (a factory may `return defineTool({...})`). */
  readonly exportName: string;
  /**
   * `"value"` when the export is the `defineTool(…)` result itself, `"factory"` when it is a
   * function that returns it (static analysis always sets it; optional for older producers).
   */
  readonly form?: "value" | "factory";
  /** Only the statically readable fields, each with its location. */
  readonly description?: { readonly value: string; readonly location: SourceLocation };
  readonly inputSchema?: { readonly value: JsonValue; readonly location: SourceLocation };
  /** `approvalRequired(reason, sideEffect)` or a literal `{ reason, sideEffect }`. */
  readonly needsApproval?: { readonly value: { readonly reason: string; readonly sideEffect: string } | null; readonly location: SourceLocation };
}

/**
 * Syntax-only facts about a definition module (never executed): its exports and the
 * statically readable `defineTool({...})` calls, for the `factory` check and the drift check
 * (DESIGN §3).
 */
export interface DefinitionAnalysis {
  readonly file: string;
  /** `false` when the file could not be parsed; then the other fields are empty. */
  readonly parsed: boolean;
  readonly hasDefaultExport: boolean;
  /** Named exports (value exports, including `export { a as b }` and `export function`). */
  readonly namedExports: readonly string[];
  /** True when the module has `export * from` (named exports cannot be known statically). */
  readonly hasExportStar: boolean;
  /** `defineTool({...})` calls found, keyed by the export they belong to. */
  readonly definedTools: readonly DefinedTool[];
  /**
   * Every file the analysis read (the module and the files its static values import), sorted;
   * static analysis always sets it (optional for older producers).
   */
  readonly dependencies?: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

// ───────────────────────────── agent (surfaces and capabilities) ─────────────────────────────

/** One `capabilities.<key>` entry of a surface's `agent.md` (DESIGN §2). */
export interface CapabilityRequest {
  readonly key: string;
  /** The entry's `package` field (an npm package name), when given. */
  readonly package: string | undefined;
  /** The entry's `config` mapping (`{}` when absent). */
  readonly config: JsonObject;
  /** JSON Pointer of `config` inside the surface's front matter (for locating config diagnostics). */
  readonly configPointer: string;
  /** Where the key is written in `agent.md`. */
  readonly location: SourceLocation;
}

/**
 * A surface: the agent root (`id: "."`) or a subagent folder (`id: "subagents/<name>"`,
 * nested as `"subagents/a/subagents/b"`). A surface sees framework defaults plus the plugins its
 * own `agent.md` selects; a child never inherits its parent's plugins.
 */
export interface Surface {
  readonly id: string;
  /** Absolute directory of the surface. */
  readonly dir: string;
  /** Absolute path of its `agent.md`. */
  readonly agentFile: string;
  /** Parent surface id; `null` for the root. */
  readonly parent: string | null;
  /** Front matter `name`, when given. */
  readonly name: string | undefined;
  /** The whole front matter with locations (`{}` when absent). */
  readonly frontMatter: LocatedValue<JsonObject>;
  /** Capability requests in `agent.md` order. */
  readonly capabilities: readonly CapabilityRequest[];
  /**
   * The surface's own skills, `<dir>/skills/<name>/SKILL.md` (issue 5: `load_skill` serves "the
   * surface's skills and its plugins' skills"), sorted by name. `loadAgent` always sets it;
   * optional for older producers, where absent means none.
   */
  readonly skills?: readonly SurfaceSkillComponent[];
}

/** A surface's own skill: a loaded skill plus the content integrity `plugins.lock` records for it. */
export interface SurfaceSkillComponent extends SkillComponent {
  /** SRI `sha512-…` of the SKILL.md content, read with the lockfile's text rule (CRLF as LF). */
  readonly integrity: string;
}

/** Result of loading an agent root: all its surfaces, root first then by id. */
export interface AgentModel {
  readonly root: string;
  readonly surfaces: readonly Surface[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Where a capability's plugin package comes from (recorded as the lock's `source`). */
export type CapabilitySource =
  | { readonly type: "local"; /** Absolute plugin directory. */ readonly dir: string }
  | { readonly type: "npm"; readonly name: string; readonly version: string; /** Absolute package directory. */ readonly dir: string };

/** A capability request resolved to a plugin package directory. */
export interface ResolvedCapability {
  readonly surfaceId: string;
  readonly request: CapabilityRequest;
  readonly source: CapabilitySource;
}
