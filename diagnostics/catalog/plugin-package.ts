/**
 * Diagnostics of the Agent Plugins v1 package loader (`compiler/plugin-package/`).
 *
 * Ranges: AL20xx files, paths and JSON syntax shared by every part of a package; AL21xx
 * `plugin.json`; AL22xx skills (`skills/<dir>/SKILL.md`, Agent Skills front matter); AL23xx
 * `mcp.json`; AL24xx the `ai.assemblyline/` extension directory.
 *
 * Severity follows the failure boundary the specification assigns: what the spec says to
 * "report and ignore" is a warning; what rejects the plugin, disables a component type, or
 * skips a skill or server is an error (the package is not conformant and something the author
 * wrote does not load).
 */
import { defineMessages } from "./types.js";

export const PluginPackageMessages = defineMessages({
  // ─────────────── AL20xx: package files, containment, JSON syntax ───────────────
  PluginRootNotDirectory: {
    code: "AL2001",
    severity: "error",
    message: "The plugin root '{0}' {1}, so no plugin can be loaded from it.",
    hint: "Pass the directory that contains plugin.json.",
    docs: "A plugin is a directory rooted at a single filesystem location (Agent Plugins v1 §4.1).",
  },
  ManifestMissing: {
    code: "AL2002",
    severity: "error",
    message: "There is no plugin.json in the plugin root; the plugin is rejected (Agent Plugins v1 §4.1, §5.1).",
    hint: 'Create plugin.json with {"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "{0}"}.',
    docs: "A plugin MUST include a manifest at plugin.json in the plugin root (Agent Plugins v1 §4.1 item 2).",
  },
  PathOutsidePluginRoot: {
    code: "AL2003",
    severity: "error",
    message: "'{0}' resolves to '{1}', outside the plugin root; {2}.",
    hint: "Keep every package file inside the plugin directory: replace the symbolic link with the files themselves or point it inside the plugin.",
    docs: "Package paths MUST stay within the filesystem-resolved plugin root; the narrowest failure boundary applies (Agent Plugins v1 §4.1 item 3). Escaping paths are never read.",
  },
  PackageBrokenSymlink: {
    code: "AL2004",
    severity: "error",
    message: "'{0}' is a symbolic link whose target does not exist; {1}.",
    hint: "Fix or remove the link.",
    docs: "A path that does not resolve cannot be the expected file or directory (Agent Plugins v1 §6.2, §7.1).",
  },
  PackageFileUnreadable: {
    code: "AL2005",
    severity: "error",
    message: "'{0}' could not be read ({1}); {2}.",
    docs: "The file exists but could not be read, so the loader treats it as invalid with the failure boundary of that file.",
  },
  PackageFileInvalidUtf8: {
    code: "AL2006",
    severity: "error",
    message: "'{0}' is not valid UTF-8 text; {1}.",
    hint: "Save the file as UTF-8.",
    docs: "JSON exchanged between systems MUST be UTF-8 (RFC 8259 §8.1); SKILL.md is YAML front matter plus Markdown text.",
  },
  PluginFileJsonSyntax: {
    code: "AL2007",
    severity: "error",
    message: "'{0}' is not valid JSON: {1}; {2}.",
    docs: "plugin.json and mcp.json MUST be JSON (RFC 8259): no comments, trailing commas or single quotes (Agent Plugins v1 §5.2, §7.2.2).",
  },
  PluginFileDuplicateKey: {
    code: "AL2008",
    severity: "warning",
    message: "Duplicate key '{0}': only the last occurrence is used.",
    hint: "Remove one of the two entries.",
    docs: "Object member names SHOULD be unique (RFC 8259 §4); like JSON.parse, the loader keeps the last value.",
  },
  ComponentLocationWrongKind: {
    code: "AL2009",
    severity: "error",
    message: "'{0}' must be {1}, but it is {2}; {3}.",
    docs: "A fixed location that exists with the wrong filesystem kind makes that component type invalid (Agent Plugins v1 §6.2); plugin.json must be a regular file (§5.1).",
  },

  // ─────────────── AL21xx: plugin.json ───────────────
  ManifestNotObject: {
    code: "AL2101",
    severity: "error",
    message: "plugin.json must contain a JSON object at the top level, but it contains {0}; the plugin is rejected (Agent Plugins v1 §5.2).",
    hint: 'Write the manifest as one object: {"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "my-plugin"}.',
    docs: "The manifest MUST be JSON and MUST contain a top-level object (Agent Plugins v1 §5.2).",
  },
  ManifestUnknownField: {
    code: "AL2102",
    severity: "warning",
    message: "Unknown top-level field '{0}' in plugin.json is ignored: the manifest schema is closed, and a client reports each unknown field and keeps loading, so this is a warning (Agent Plugins v1 §5.2).",
    hint: "Move client-specific data under \"extensions\", keyed by a reverse-domain namespace (§8.1).",
    docs: "Clients MUST report and ignore each unknown top-level field, assign it no meaning, and keep loading (Agent Plugins v1 §5.2).",
  },
  ManifestRequiredFieldMissing: {
    code: "AL2103",
    severity: "error",
    message: "plugin.json is missing the required field '{0}'; the plugin is rejected (Agent Plugins v1 §5.3).",
    docs: "$schema and name are required; a missing required field rejects the plugin (Agent Plugins v1 §5.3).",
  },
  ManifestSchemaUnsupported: {
    code: "AL2104",
    severity: "error",
    message: "plugin.json $schema {0}; the plugin is rejected (Agent Plugins v1 §5.2).",
    hint: 'Set "$schema" to "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", the Agent Plugins version this toolchain supports.',
    docs: "$schema selects locally supported validation rules; clients never fetch it and MUST reject versions they do not support (Agent Plugins v1 §5.2). Only the exact canonical 1.0.0 identifier is recognised.",
  },
  ManifestFieldWrongType: {
    code: "AL2105",
    severity: "error",
    message: "'{0}' in plugin.json must be {1}, but it is {2}; the plugin is rejected (Agent Plugins v1 §5.2).",
    docs: "Every permitted field MUST match its type; any schema violation other than an unknown top-level field or a non-object extensions field is fatal (Agent Plugins v1 §5.2, §5.4).",
  },
  PluginNameInvalid: {
    code: "AL2106",
    severity: "error",
    message: "Plugin name '{0}' is invalid: {1}; the plugin is rejected (Agent Plugins v1 §5.5).",
    docs: "A plugin name is 1-64 characters of a-z, 0-9, '-' and '.', starts and ends alphanumeric, and has no '--' or '..' (Agent Plugins v1 §5.5).",
  },
  ManifestAuthorUnknownField: {
    code: "AL2107",
    severity: "error",
    message: "'{0}' is not permitted: author may only contain name, email and url; the plugin is rejected (Agent Plugins v1 §5.4).",
    docs: "The author object is closed: any other field makes the manifest invalid, unlike unknown top-level fields (Agent Plugins v1 §5.4).",
  },
  ExtensionsNotObject: {
    code: "AL2108",
    severity: "warning",
    message: "'extensions' must be an object keyed by extension namespace, but it is {0}; the field is ignored (Agent Plugins v1 §8.1).",
    hint: 'Write extensions as an object of namespace objects, e.g. "extensions": { "com.example.client": { "setting": true } }.',
    docs: "If extensions is not an object, the client MUST report and ignore it and continue loading (Agent Plugins v1 §8.1).",
  },
  ExtensionMemberNotObject: {
    code: "AL2109",
    severity: "error",
    message: "extensions member '{0}' must be an object, but it is {1}; the plugin is rejected (Agent Plugins v1 §5.2, §8.1).",
    hint: 'Wrap the value in an object, e.g. "{0}": { "value": ... }.',
    docs: "Member values of extensions MUST be objects (§8.1, and the official schema); only a non-object extensions field itself is non-fatal, so this is a fatal schema violation (§5.2).",
  },
  ManifestSchemaViolation: {
    code: "AL2110",
    severity: "error",
    message: "plugin.json violates the Agent Plugins 1.0.0 manifest schema at '{0}': {1}; the plugin is rejected (Agent Plugins v1 §5.2).",
    docs: "Any schema violation other than an unknown top-level field or a non-object extensions field is fatal (Agent Plugins v1 §5.2).",
  },
  ManifestIconInvalid: {
    code: "AL2111",
    severity: "warning",
    message: "plugin.json 'icon' {0}; the icon is ignored (Agent Plugins 1.1.0 draft).",
    hint: "Write a path inside the plugin that begins with ./, e.g. \"icon\": \"./assets/icon.png\". Icons are never fetched.",
    docs: "Agent Plugins 1.1.0 (draft) adds `icon`: a `./` path of a file inside the plugin, never a URL and never fetched. A bad path does not reject the plugin; the icon is dropped.",
  },

  // ─────────────── AL22xx: skills ───────────────
  SkillFrontMatterMissing: {
    code: "AL2201",
    severity: "error",
    message: "SKILL.md has no YAML front matter; skill '{0}' is skipped (Agent Skills specification; Agent Plugins v1 §7.1).",
    hint: "Start the file with a front matter block:\n---\nname: {0}\ndescription: What the skill does and when to use it.\n---",
    docs: "SKILL.md MUST start with YAML front matter holding name and description (Agent Skills specification); a non-conforming skill is skipped (Agent Plugins v1 §7.1).",
  },
  SkillFrontMatterUnterminated: {
    code: "AL2202",
    severity: "error",
    message: "The front matter of SKILL.md is never closed; skill '{0}' is skipped (Agent Plugins v1 §7.1).",
    hint: "Add a line with exactly '---' after the last front matter field.",
    docs: "Front matter runs from the first '---' line to the next '---' line (Agent Skills specification).",
  },
  SkillFrontMatterYaml: {
    code: "AL2203",
    severity: "error",
    message: "The front matter of SKILL.md is not valid YAML: {1}; skill '{0}' is skipped (Agent Plugins v1 §7.1).",
    docs: "The front matter is YAML (Agent Skills specification); a skill that cannot be read is skipped (Agent Plugins v1 §7.1).",
  },
  SkillFrontMatterNotMapping: {
    code: "AL2204",
    severity: "error",
    message: "The front matter of SKILL.md must be a mapping of fields, but it is {1}; skill '{0}' is skipped (Agent Plugins v1 §7.1).",
    hint: "Write one 'field: value' per line, starting with name and description.",
    docs: "Front matter fields are keys of a YAML mapping (Agent Skills specification).",
  },
  SkillRequiredFieldMissing: {
    code: "AL2205",
    severity: "error",
    message: "SKILL.md front matter is missing the required field '{1}'; skill '{0}' is skipped (Agent Skills specification; Agent Plugins v1 §7.1).",
    docs: "name and description are required front matter fields (Agent Skills specification).",
  },
  SkillFieldWrongType: {
    code: "AL2206",
    severity: "error",
    message: "Front matter field '{1}' must be {2}, but it is {3}; skill '{0}' is skipped (Agent Skills specification; Agent Plugins v1 §7.1).",
    docs: "name, description and compatibility are strings (Agent Skills specification).",
  },
  SkillNameInvalid: {
    code: "AL2207",
    severity: "error",
    message: "Skill name '{1}' is invalid: {2}; skill '{0}' is skipped (Agent Skills specification; Agent Plugins v1 §7.1).",
    docs: "A skill name is 1-64 lowercase letters, digits and hyphens, does not start or end with '-', and has no '--' (Agent Skills specification, name field).",
  },
  SkillNameDirectoryMismatch: {
    code: "AL2208",
    severity: "error",
    message: "Skill name '{1}' does not match its directory name '{0}'; the skill is skipped (Agent Skills specification; Agent Plugins v1 §7.1).",
    hint: "Set 'name: {0}' or rename the directory to skills/{1}/.",
    docs: "The name MUST match the parent directory name (Agent Skills specification, name field).",
  },
  SkillDescriptionInvalid: {
    code: "AL2209",
    severity: "error",
    message: "Skill description {1}; skill '{0}' is skipped (Agent Skills specification: 1-1024 characters; Agent Plugins v1 §7.1).",
    docs: "The description is required, non-empty and at most 1024 characters (Agent Skills specification).",
  },
  SkillCompatibilityInvalid: {
    code: "AL2210",
    severity: "error",
    message: "Front matter field 'compatibility' {1}; skill '{0}' is skipped (Agent Skills specification: 1-500 characters when present).",
    docs: "compatibility, when present, is 1-500 characters (Agent Skills specification).",
  },
  SkillUnknownField: {
    code: "AL2211",
    severity: "warning",
    message: "Unknown front matter field '{1}' in skill '{0}' is ignored (Agent Skills defines name, description, license, compatibility, metadata and allowed-tools).",
    docs: "Fields outside the Agent Skills specification have no meaning to clients; they are reported so typos do not go unnoticed.",
  },
  SkillOptionalFieldInvalid: {
    code: "AL2212",
    severity: "warning",
    message: "Front matter field '{1}' {2}; the field is ignored and skill '{0}' still loads.",
    docs: "license, metadata and the experimental allowed-tools are not interpreted by Assembly Line; a malformed value is reported and ignored instead of dropping the skill (Agent Skills specification).",
  },
  SkillEntryNotRegularFile: {
    code: "AL2213",
    severity: "warning",
    message: "'{1}' is not a regular file, so skills/{0}/ is not discovered as a skill (Agent Plugins v1 §7.1).",
    hint: "Make SKILL.md a regular file.",
    docs: "A skill is an immediate child of skills/ containing a path named exactly SKILL.md that resolves to a regular file (Agent Plugins v1 §7.1).",
  },
  SkillDuplicateName: {
    code: "AL2214",
    severity: "error",
    message: "Skill name '{0}' is already used by skills/{1}/ (the names are equal after Unicode normalization); this skill is skipped.",
    hint: "Give each skill directory a distinct name.",
    docs: "Skill names identify skills and must match their directory names (Agent Skills specification); two directories whose names normalize alike would load as one name.",
  },

  // ─────────────── AL23xx: mcp.json ───────────────
  McpNotObject: {
    code: "AL2301",
    severity: "error",
    message: "mcp.json must contain a JSON object at the top level, but it contains {0}; MCP is disabled for this plugin (Agent Plugins v1 §7.2.1, §7.2.2).",
    hint: 'Write {"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {}}.',
    docs: "mcp.json MUST be a JSON object; otherwise MCP is disabled for the plugin and other components still load (Agent Plugins v1 §7.2.2 item 2).",
  },
  McpUnknownTopLevelField: {
    code: "AL2302",
    severity: "error",
    message: "Unknown top-level field '{0}' in mcp.json; MCP is disabled for this plugin (Agent Plugins v1 §7.2.1: only $schema and mcpServers are allowed).",
    docs: "mcp.json has no top-level fields other than $schema and mcpServers; unlike plugin.json, a violation disables MCP for the plugin (Agent Plugins v1 §7.2.1, §7.2.2 item 2).",
  },
  McpRequiredFieldMissing: {
    code: "AL2303",
    severity: "error",
    message: "mcp.json is missing the required field '{0}'; MCP is disabled for this plugin (Agent Plugins v1 §7.2.1, §7.2.2).",
    docs: "$schema and mcpServers are required in mcp.json (Agent Plugins v1 §7.2.1).",
  },
  McpSchemaUnsupported: {
    code: "AL2304",
    severity: "error",
    message: "mcp.json $schema {0}; MCP is disabled for this plugin (Agent Plugins v1 §7.2.1, §7.2.2).",
    hint: 'Set "$schema" to "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json".',
    docs: "$schema selects locally supported MCP configuration rules; it is never fetched, and an unsupported one disables MCP for the plugin (Agent Plugins v1 §7.2.1, §7.2.2 item 2).",
  },
  McpSchemaVersionMismatch: {
    code: "AL2305",
    severity: "error",
    message: "mcp.json targets Agent Plugins {0}, but plugin.json targets {1}; MCP is disabled for this plugin (Agent Plugins v1 §10.1).",
    hint: 'Set "$schema" to "https://agent-plugins.org/schemas/{1}/mcp.schema.json".',
    docs: "The version in mcp.json $schema MUST match plugin.json; a mismatch makes the MCP configuration invalid without affecting other components (Agent Plugins v1 §10.1).",
  },
  McpServersNotObject: {
    code: "AL2306",
    severity: "error",
    message: "'mcpServers' must be an object whose members are server configurations, but it is {0}; MCP is disabled for this plugin (Agent Plugins v1 §7.2.1).",
    hint: 'Write "mcpServers": { "my-server": { "type": "stdio", "command": "./bin/server" } }.',
    docs: "mcpServers MUST be an object keyed by server name (Agent Plugins v1 §7.2.1); an empty object is valid.",
  },
  McpServerNotObject: {
    code: "AL2310",
    severity: "error",
    message: "MCP server '{0}' must be a configuration object, but it is {1}; the server is skipped (Agent Plugins v1 §7.2.2).",
    docs: "Each mcpServers member is a server configuration object; an invalid entry is skipped and other servers still load (Agent Plugins v1 §7.2.2 item 3).",
  },
  McpServerTypeMissing: {
    code: "AL2311",
    severity: "error",
    message: "MCP server '{0}' has no 'type'; the server is skipped (Agent Plugins v1 §7.2.1).",
    hint: 'Add "type": "stdio" (with "command") or "type": "streamable-http" (with "url").',
    docs: "Each server configuration MUST contain a type field selecting stdio, streamable-http or sse (Agent Plugins v1 §7.2.1).",
  },
  McpServerTypeUnknown: {
    code: "AL2312",
    severity: "error",
    message: "MCP server '{0}' has type {1}, which is not 'stdio', 'streamable-http' or 'sse'; the server is skipped (Agent Plugins v1 §7.2.1).",
    docs: "An unknown type value makes that server entry invalid (Agent Plugins v1 §7.2.1).",
  },
  McpServerUnknownField: {
    code: "AL2313",
    severity: "error",
    message: "Field '{1}' is not allowed in {2} MCP server '{0}'{3}; the server is skipped (Agent Plugins v1 §7.2.1).",
    docs: "Server variants are closed: an unknown field or a field of another variant makes the entry invalid (Agent Plugins v1 §7.2.1).",
  },
  McpServerRequiredFieldMissing: {
    code: "AL2314",
    severity: "error",
    message: "{1} MCP server '{0}' is missing the required field '{2}'; the server is skipped (Agent Plugins v1 §7.2.1).",
    docs: "stdio servers require command; streamable-http and sse servers require url (Agent Plugins v1 §7.2.1).",
  },
  McpServerFieldInvalid: {
    code: "AL2315",
    severity: "error",
    message: "'{1}' of MCP server '{0}' {2}; the server is skipped (Agent Plugins v1 §7.2.1).",
    docs: "args is an array of strings, env and headers are objects of strings, and command and url are non-empty strings (Agent Plugins v1 §7.2.1).",
  },
  McpCommandNotSingleToken: {
    code: "AL2316",
    severity: "error",
    message: "The command of MCP server '{0}' contains whitespace: it must be a single executable token, not a shell command; the server is skipped (Agent Plugins v1 §7.2.1).",
    hint: 'Put the executable in "command" and each argument in "args": "command": "{1}", "args": [{2}].',
    docs: "command MUST contain a single executable token; arguments go in args (Agent Plugins v1 §7.2.1).",
  },
  McpCommandInvalidForm: {
    code: "AL2317",
    severity: "error",
    message: "The command '{1}' of MCP server '{0}' {2}; the server is skipped (Agent Plugins v1 §7.2.1: a bare executable name or a plugin-relative path beginning with './').",
    docs: "command is a bare executable name or a ./ plugin-relative path; it is never placeholder-expanded (Agent Plugins v1 §7.2.1, §9.2).",
  },
  McpCwdInvalidForm: {
    code: "AL2318",
    severity: "error",
    message: "The cwd '{1}' of MCP server '{0}' is not './...', '${PLUGIN_ROOT}[/...]' or '${PLUGIN_DATA}[/...]'; the server is skipped (Agent Plugins v1 §7.2.1).",
    hint: "Write './{2}' for a directory inside the plugin, or '${PLUGIN_DATA}/{2}' for writable state.",
    docs: "cwd MUST be a ./ plugin-relative path or rooted at ${PLUGIN_ROOT} or ${PLUGIN_DATA}; any other form makes the entry invalid (Agent Plugins v1 §7.2.1).",
  },
  McpCwdOutsideDataDirectory: {
    code: "AL2319",
    severity: "error",
    message: "The cwd '{1}' of MCP server '{0}' leaves the plugin data directory; the server is skipped (Agent Plugins v1 §7.2.1).",
    docs: "A ${PLUGIN_DATA}-rooted cwd MUST remain within the plugin data directory after resolution (Agent Plugins v1 §7.2.1).",
  },
  McpEnvReservedName: {
    code: "AL2320",
    severity: "error",
    message: "MCP server '{0}' sets the reserved environment variable '{1}'; the server is skipped (Agent Plugins v1 §9.2).",
    hint: "Remove it: the client always supplies PLUGIN_ROOT and PLUGIN_DATA; use ${PLUGIN_ROOT} or ${PLUGIN_DATA} inside other values instead.",
    docs: "An MCP server env MUST NOT contain entries named PLUGIN_ROOT or PLUGIN_DATA; such an entry makes the server invalid (Agent Plugins v1 §9.2).",
  },
  McpEnvReservedNameCase: {
    code: "AL2321",
    severity: "warning",
    message: "MCP server '{0}' sets '{1}', which is the reserved {2} on platforms whose environment names are case-insensitive; there the client's value replaces it (Agent Plugins v1 §9.1).",
    hint: "Rename the variable.",
    docs: "The client sets PLUGIN_ROOT and PLUGIN_DATA last, replacing equivalent names under the platform's environment-name rules (Agent Plugins v1 §9.1).",
  },
  McpUrlInvalid: {
    code: "AL2322",
    severity: "error",
    message: "The url of MCP server '{0}' {1}; the server is skipped (Agent Plugins v1 §7.2.1: an absolute http or https URL).",
    docs: "url MUST be an absolute HTTP or HTTPS URL, and is never placeholder-expanded (Agent Plugins v1 §7.2.1).",
  },
  McpUrlNotHttps: {
    code: "AL2323",
    severity: "error",
    message: "MCP server '{0}' uses http:// for the non-loopback host '{1}'; the server is skipped (Agent Plugins v1 §7.2.1: non-loopback endpoints must use HTTPS).",
    hint: "Use https://, or http:// only for localhost, 127.0.0.0/8 or [::1].",
    docs: "Non-loopback endpoints MUST use HTTPS; HTTP is allowed only for exactly localhost or a loopback IP literal (Agent Plugins v1 §7.2.1).",
  },
  McpUrlUserInfo: {
    code: "AL2324",
    severity: "error",
    message: "The url of MCP server '{0}' contains user information (user:password@); the server is skipped (Agent Plugins v1 §7.2.1).",
    hint: "Remove the credentials from the URL; authorization is managed by the client.",
    docs: "url MUST NOT contain user information (Agent Plugins v1 §7.2.1); Agent Plugins defines no portable credential fields.",
  },
  McpUrlFragment: {
    code: "AL2325",
    severity: "error",
    message: "The url of MCP server '{0}' contains a fragment ('#...'); the server is skipped (Agent Plugins v1 §7.2.1).",
    hint: "Remove the '#' and everything after it.",
    docs: "url MUST NOT contain a fragment (Agent Plugins v1 §7.2.1).",
  },
  McpHeaderInvalidName: {
    code: "AL2326",
    severity: "error",
    message: "Header name '{1}' of MCP server '{0}' is not a valid HTTP field name; the server is skipped (Agent Plugins v1 §7.2.1).",
    hint: "Header names are tokens: letters, digits and !#$%&'*+-.^_`|~ only, no spaces.",
    docs: "Header names and values MUST be valid HTTP header fields (Agent Plugins v1 §7.2.1; RFC 9110 §5.1).",
  },
  McpHeaderInvalidValue: {
    code: "AL2327",
    severity: "error",
    message: "The value of header '{1}' of MCP server '{0}' {2}; the server is skipped (Agent Plugins v1 §7.2.1).",
    docs: "Header values MUST be valid HTTP field values: no control characters and no leading or trailing whitespace (Agent Plugins v1 §7.2.1; RFC 9110 §5.5).",
  },
  McpHeaderDuplicate: {
    code: "AL2328",
    severity: "error",
    message: "Header '{1}' of MCP server '{0}' is declared more than once (header names are case-insensitive: '{2}' and '{1}'); the server is skipped (Agent Plugins v1 §7.2.1).",
    hint: "Keep exactly one of them.",
    docs: "An entry containing the same header name more than once under different casing is invalid (Agent Plugins v1 §7.2.1).",
  },
  McpCredentialInConfig: {
    code: "AL2329",
    severity: "warning",
    message: "{1} of MCP server '{0}' looks like a credential; header and env values are visible package data, not a secret mechanism (Agent Plugins v1 §7.2.1, §9.2).",
    hint: "Remove the value from the package; authorization and credentials are managed by the client or the host.",
    docs: "Plugins MUST NOT embed credentials or other secrets in headers or env (Agent Plugins v1 §7.2.1, §9.2). The value is never echoed in diagnostics.",
    sensitive: true,
  },

  // ─────────────── AL24xx: the ai.assemblyline extension directory ───────────────
  ExtensionEntryMissing: {
    code: "AL2401",
    severity: "error",
    message: "The ai.assemblyline/ directory has no entry file (index.ts, index.mts, index.js or index.mjs), so the plugin contributes no Assembly Line tools.",
    hint: "Add ai.assemblyline/index.ts that default-exports the plugin descriptor.",
    docs: "The ai.assemblyline namespace directory (Agent Plugins v1 §8.2) is read through its statically inspected entry, ai.assemblyline/index.{ts,mts,js,mjs} (DESIGN §2, §3).",
  },
  ExtensionEntryAmbiguous: {
    code: "AL2402",
    severity: "error",
    message: "The ai.assemblyline/ directory has several entry files ({0}); Assembly Line cannot tell which one declares the plugin.",
    hint: "Keep exactly one of them.",
    docs: "Exactly one of index.ts, index.mts, index.js and index.mjs may exist in ai.assemblyline/ (DESIGN §2).",
  },
  ExtensionEntryNotFile: {
    code: "AL2403",
    severity: "error",
    message: "'{0}' is not a regular file, so it cannot be the Assembly Line entry.",
    docs: "The entry ai.assemblyline/index.{ts,mts,js,mjs} must be a regular file inside the plugin root (DESIGN §2; Agent Plugins v1 §4.1).",
  },
  ExtensionDirectoryNearMiss: {
    code: "AL2404",
    severity: "warning",
    message: "Top-level directory '{0}' is not named exactly 'ai.assemblyline', so Assembly Line ignores it (Agent Plugins v1 §8.2).",
    hint: "Did you mean 'ai.assemblyline'? Rename the directory.",
    docs: "An extension directory is the top-level directory named exactly after its namespace (Agent Plugins v1 §8.2).",
  },
});
