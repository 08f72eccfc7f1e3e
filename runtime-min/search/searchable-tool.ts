/**
 * What `tool_search` indexes of a tool (seed, "Tool search"): its name, description, tags,
 * aliases and namespaces. A tool has two namespaces: the one its descriptor declares
 * (`namespace`), and the plugin that contributes it, the capability key its `source` names
 * (`plugin:weather`): `search weather` finds the tools of the plugin `weather` (new-user trial
 * of 6 December). Core tools (`source: "core"`) have no plugin.
 */

/** The fields of a tool that `tool_search` ranks. */
export interface SearchableTool {
  readonly name: string;
  readonly description: string;
  readonly tags?: readonly string[];
  readonly aliases?: readonly string[];
  readonly namespace?: string;
  /** Where the tool comes from: `"core"`, or `"plugin:<capability key>"`, whose key is searched like a namespace ({@link pluginOf}). */
  readonly source?: string;
  /** `"hidden"` tools are left out of the index. */
  readonly visibility?: string;
}

/**
 * The plugin namespace of a tool: the capability key of a `plugin:<key>` source; `undefined`
 * for a core tool, a tool without a source, or any other source.
 */
export function pluginOf(tool: SearchableTool): string | undefined {
  return tool.source !== undefined && tool.source.startsWith("plugin:") ? tool.source.slice("plugin:".length) : undefined;
}
