/**
 * What `tool_search` indexes of a tool (seed, "Tool search"): its name, description, tags,
 * aliases and namespace.
 */

/** The fields of a tool that `tool_search` ranks. */
export interface SearchableTool {
  readonly name: string;
  readonly description: string;
  readonly tags?: readonly string[];
  readonly aliases?: readonly string[];
  readonly namespace?: string;
  /** `"hidden"` tools are left out of the index. */
  readonly visibility?: string;
}
