/**
 * The failure boundaries of Agent Plugins v1, in words, for the "{consequence}" part of
 * diagnostics shared by several parts of a package (containment, unreadable files, JSON syntax).
 */

/** The plugin is refused as a whole (§4.1 boundary 1, §5.2, §5.3). */
export const PLUGIN_REJECTED = "the plugin is rejected and none of its components are loaded (Agent Plugins v1 §4.1, §5.2)";

/** The skills component type is invalid (§6.2, §4.1 boundary 2). */
export const SKILLS_INVALID = "the skills component is invalid and no skill is loaded (Agent Plugins v1 §4.1, §6.2)";

/** The MCP component type is disabled (§6.2, §7.2.2 item 2, §4.1 boundary 2). */
export const MCP_INVALID = "MCP is disabled for this plugin (Agent Plugins v1 §4.1, §6.2, §7.2.2)";

/** The Assembly Line extension directory cannot be used (§4.1 boundary 5, §8.2). */
export const EXTENSION_NOT_LOADED = "the Assembly Line extension of this plugin is not loaded (Agent Plugins v1 §4.1, §8.2)";

/** One skill is skipped (§7.1, §4.1 boundary 3). */
export function skillSkipped(directory: string): string {
  return `skill '${directory}' is skipped (Agent Plugins v1 §4.1, §7.1)`;
}

/** A child of skills/ is not a skill at all (no regular SKILL.md). */
export function notASkill(directory: string): string {
  return `skills/${directory}/ is not discovered as a skill (Agent Plugins v1 §7.1)`;
}

/** One MCP server entry is skipped (§7.2.2 item 3, §4.1 boundary 4). */
export function serverSkipped(name: string): string {
  return `MCP server '${name}' is skipped (Agent Plugins v1 §4.1, §7.2.2)`;
}
