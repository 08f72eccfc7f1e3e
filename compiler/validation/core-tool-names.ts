/**
 * Names of the framework's core tools, as far as the compiler needs them: a plugin tool of
 * the same name collides unless it says `disabled: true`, and only these names can be disabled
 * (seed "Execution Model": the always-visible core set, deferred framework tools, and
 * "To remove a core default").
 */

/** The always-visible core set (seed, "The always-visible core set is …"). */
export const CORE_VISIBLE_TOOLS = [
  "read", "write", "edit", "delete", "list", "grep", "bash",
  "handoff_artifact", "deliver_artifact", "load_skill", "tool_search",
  "pair", "files_search", "files_mount",
] as const;

/** Deferred framework tools: `history_search` and the workspace tools. */
export const CORE_DEFERRED_TOOLS = ["history_search", "workspace_info", "workspace_snapshot"] as const;

/** Every core tool name. */
export const CORE_TOOL_NAMES: ReadonlySet<string> = new Set<string>([...CORE_VISIBLE_TOOLS, ...CORE_DEFERRED_TOOLS]);
