/**
 * `mcp-2025-11-25`: serving the tools over the Model Context Protocol, revision 2025-11-25.
 * Server › Tools › Tool names: "Tool names SHOULD be between 1 and 128 characters in length
 * (inclusive)", case-sensitive, and "the following SHOULD be the only allowed characters:
 * uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-),
 * and dot (.)". These are SHOULDs, so a break is a warning, not an error.
 */
import type { ProviderProfile } from "./profile.js";
import { CHECKED, MCP_TOOL_NAMES } from "./sources.js";

export const mcpProfile: ProviderProfile = {
  id: "mcp-2025-11-25",
  title: "Model Context Protocol 2025-11-25 (tools/list)",
  version: CHECKED,
  sources: [MCP_TOOL_NAMES],
  name: { pattern: /^[A-Za-z0-9_.-]{1,128}$/, rule: "1–128 characters of A-Z, a-z, 0-9, '_', '-' and '.'", severity: "warning", source: MCP_TOOL_NAMES.title },
  notes: ["MCP itself caps no tool count and no schema size; the model API behind the MCP client applies its own (add that provider's target too)."],
};
