/**
 * The `$schema` identifiers of Agent Plugins documents and the versions this loader supports
 * (Agent Plugins v1 §5.2, §7.2.1, §10.1).
 *
 * Identifiers select local validation rules; they are compared as exact strings and never
 * fetched or normalized (`http://…` or a trailing slash is not the canonical identifier).
 */

/** The Agent Plugins version new plugins are told to use (the published one). */
export const SUPPORTED_AGENT_PLUGINS_VERSION = "1.0.0";

/**
 * Every Agent Plugins version this loader implements: 1.0.0, and the 1.1.0 draft (issue 11
 * item 4: `displayName` and `icon`; `schemas/agent-plugins/1.1.0/SOURCE.md`).
 */
export const SUPPORTED_AGENT_PLUGINS_VERSIONS: readonly string[] = ["1.0.0", "1.1.0"];

/** Supported versions that are drafts (said so in messages). */
export const DRAFT_AGENT_PLUGINS_VERSIONS: readonly string[] = ["1.1.0"];

/** Canonical `plugin.json` `$schema` of Agent Plugins 1.0.0. */
export const CANONICAL_PLUGIN_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";

/** Canonical `mcp.json` `$schema` of Agent Plugins 1.0.0. */
export const CANONICAL_MCP_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json";

const IDENTIFIER = /^https:\/\/agent-plugins\.org\/schemas\/([^/]+)\/(plugin|mcp)\.schema\.json$/;

/** What a canonical-shaped identifier names: the document kind and the Agent Plugins version. */
export interface SchemaIdentifier {
  readonly document: "plugin" | "mcp";
  readonly version: string;
}

/**
 * Reads an identifier of the canonical form `https://agent-plugins.org/schemas/<version>/<plugin|mcp>.schema.json`.
 * Returns `undefined` for anything else (including near misses such as `http://`).
 */
export function parseSchemaIdentifier(id: string): SchemaIdentifier | undefined {
  const match = IDENTIFIER.exec(id);
  return match ? { version: match[1]!, document: match[2] as "plugin" | "mcp" } : undefined;
}

/** True when `version` is one this loader implements (no compatibility mappings between them). */
export function isSupportedVersion(version: string): boolean {
  return SUPPORTED_AGENT_PLUGINS_VERSIONS.includes(version);
}

/** "1.0.0 and 1.1.0 (draft)": the supported versions, for messages. */
export function describeSupportedVersions(): string {
  const named = SUPPORTED_AGENT_PLUGINS_VERSIONS.map((v) => (DRAFT_AGENT_PLUGINS_VERSIONS.includes(v) ? `${v} (draft)` : v));
  return named.length === 1 ? named[0]! : `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
}
