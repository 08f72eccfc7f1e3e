/**
 * Stage 5: validate a capability's config against its plugin's configSchema and merge it into
 * each tool's effective config (DESIGN §4; issue 3 item 1).
 *
 * Effective config of a tool = `{ ...schemaDefaults, ...descriptor.config, ...agentConfig }`
 * (agent-owned values win, DESIGN §4), built with `mergeObjects`, so keys such as `__proto__`
 * stay data. The capability config is what agent.md says plus the configSchema's `default`s for
 * the top-level options it leaves out; those defaults are the plugin's, not the agent's, so a
 * tool's own `config` for the same option wins over them (helper-75: a descriptor's
 * `maxWords: 50` lost to the schema's `default: 100`). The lock records the values the tools
 * will really receive.
 */
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { isJsonObject, mergeObjects, setOwn, type JsonObject, type JsonValue } from "../../common/json-value.js";
import { escapePointerSegment, valueAtPointer } from "../../common/json-pointer.js";
import { locateValue, type Surface, type CapabilityRequest, type EntryAnalysis } from "../model.js";
import { fileStart, type SourceLocation } from "../../common/positions.js";
import type { ValidatedPlugin } from "../validation/validate-plugin.js";
import { checkConfigCredentials } from "./check-credentials.js";
import { CAPABILITY_FIELDS } from "../agent/load-agent.js";
import { validateConfigValue } from "./validate-config.js";

/** The merged config of one capability. */
export interface MergedConfig {
  /** The capability config from agent.md, validated, with configSchema defaults filled in. */
  readonly capabilityConfig: JsonObject;
  /** Effective config per tool name. */
  readonly toolConfigs: ReadonlyMap<string, JsonObject>;
  readonly diagnostics: readonly Diagnostic[];
}

/** The fields of the capability's entry that are not capability fields (each an AL1010 of `load-agent.ts`). */
function fieldsBesideConfig(frontMatter: JsonValue, request: CapabilityRequest): ReadonlySet<string> {
  const entry = valueAtPointer(frontMatter, `/capabilities/${escapePointerSegment(request.key)}`);
  return new Set(isJsonObject(entry) ? Object.keys(entry).filter((field) => !(CAPABILITY_FIELDS as readonly string[]).includes(field)) : []);
}

/**
 * Validates `request.config` (from `surface`'s agent.md) against `plugin.configSchema` and
 * merges it into every tool's config. Diagnostics point at the agent.md line of the
 * offending key or value. Never throws.
 * @param entry the plugin's entry analysis, asked for only when a value the configSchema's
 *   `default` supplied is invalid: that AL5002 gets a related location at the `default`.
 */
export function mergeCapabilityConfig(surface: Surface, request: CapabilityRequest, plugin: ValidatedPlugin, entry?: () => EntryAnalysis | undefined): MergedConfig {
  const diagnostics: Diagnostic[] = [];
  const located = surface.frontMatter;
  const configAt = locateValue(located, request.configPointer, request.location);
  const hasConfig = Object.keys(request.config).length > 0;
  let capabilityConfig = request.config;
  if (plugin.configSchema) {
    const locateInSchema = (pointer: string): SourceLocation | undefined => {
      const analysis = entry?.();
      return analysis?.entry ? locateValue(analysis.entry, `/configSchema${pointer}`, fileStart(analysis.file)).value : undefined;
    };
    const validation = validateConfigValue(request.key, request.config, plugin.configSchema, located, request.configPointer, request.location, fieldsBesideConfig(located.value, request), locateInSchema);
    diagnostics.push(...validation.diagnostics);
    capabilityConfig = validation.withDefaults;
  } else if (hasConfig) {
    diagnostics.push(
      createDiagnostic(Diagnostics.ConfigWithoutSchema, configAt.key ?? configAt.value, [request.key], { path: ["capabilities", request.key, "config"] }),
    );
  }
  diagnostics.push(...checkConfigCredentials(request.config, located, request.configPointer, request.location));
  // The top-level options the agent wrote win over a tool's own config; those the schema's
  // defaults filled in do not.
  const written: JsonObject = {};
  const defaulted: JsonObject = {};
  for (const key of Object.keys(capabilityConfig)) setOwn(Object.hasOwn(request.config, key) ? written : defaulted, key, capabilityConfig[key]);
  const toolConfigs = new Map<string, JsonObject>();
  for (const tool of plugin.tools) toolConfigs.set(tool.name, mergeObjects(defaulted, tool.config, written));
  return { capabilityConfig, toolConfigs, diagnostics };
}
