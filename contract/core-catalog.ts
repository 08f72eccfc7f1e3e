/**
 * Metadata of the framework's built-in ("core") tools: the one place that names them, says
 * what they do, fixes their JSON input schemas and their default visibility (seed "Execution
 * Model": "The always-visible core set is read, write, edit, delete, list, grep, bash,
 * handoff_artifact, deliver_artifact, load_skill, tool_search, pair, files_search, and
 * files_mount … history_search and the workspace tools are deferred").
 *
 * The seed does not name "the workspace tools". This runtime defines two, both deferred:
 * - `workspace_info` — a summary of the run's workspace (file and directory counts, bytes);
 * - `workspace_snapshot` — every file under a workspace folder with its size and SHA-256.
 *
 * The implementations live in `../core-tools/`; this module is plain data so the snapshot, the
 * search index and the CLI can list core tools without loading any implementation.
 */
import type { ManifestJson } from "./manifest.js";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "./tool-search-limits.js";

/** Default visibility of a core tool (core tools are never `hidden`). */
export type CoreVisibility = "visible" | "deferred";

/**
 * Who implements a core tool: the runtime itself, or the embedding host through the JS API
 * (`pair`, `files_search`, `files_mount`, `history_search` need services this runtime lacks).
 */
export type CoreImplementer = "runtime" | "host";

/** Static description of one core tool. */
export interface CoreToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ManifestJson;
  readonly visibility: CoreVisibility;
  readonly implementer: CoreImplementer;
  /** For host-implemented tools: the service the host must supply (used in error messages). */
  readonly hostService?: string;
  /** Ranked by `tool_search` like an authored tool's `tags`. */
  readonly tags: readonly string[];
  /** Ranked by `tool_search` like an authored tool's `aliases`. */
  readonly aliases: readonly string[];
}

const pathProperty = {
  type: "string",
  minLength: 1,
  description: "A /workspace/... path (or a path relative to /workspace).",
} as const;

function objectSchema(properties: ManifestJson, required: readonly string[] = []): ManifestJson {
  return { type: "object", properties, required: [...required], additionalProperties: false };
}

const specs: readonly CoreToolSpec[] = [
  {
    name: "read",
    description:
      "Read a file from the run's workspace (/workspace/...) or a handoff a subagent gave you (/files/handoffs/...). " +
      "Text is returned as UTF-8 lines (use offset/limit for long files); pass encoding \"base64\" for binary files.",
    inputSchema: objectSchema(
      {
        path: { type: "string", minLength: 1, description: "A /workspace/... path, a relative path, or an exact /files/handoffs/... path." },
        offset: { type: "integer", minimum: 1, description: "First line to return (1-based). Text only." },
        limit: { type: "integer", minimum: 1, description: "Number of lines to return. Text only." },
        encoding: { type: "string", enum: ["utf8", "base64"], description: "Defaults to utf8." },
      },
      ["path"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["file", "filesystem", "workspace"],
    aliases: ["cat", "open", "view"],
  },
  {
    name: "write",
    description:
      "Create or overwrite a file in the run's workspace. Missing parent folders are created. " +
      "Pass encoding \"base64\" to write binary content.",
    inputSchema: objectSchema(
      {
        path: pathProperty,
        content: { type: "string", description: "The complete new file content." },
        encoding: { type: "string", enum: ["utf8", "base64"], description: "Encoding of content; defaults to utf8." },
      },
      ["path", "content"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["file", "filesystem", "workspace"],
    aliases: ["create", "save"],
  },
  {
    name: "edit",
    description:
      "Replace an exact string in a workspace text file. oldString must occur exactly once unless replaceAll is true.",
    inputSchema: objectSchema(
      {
        path: pathProperty,
        oldString: { type: "string", minLength: 1, description: "The exact text to replace." },
        newString: { type: "string", description: "The replacement text." },
        replaceAll: { type: "boolean", description: "Replace every occurrence instead of exactly one." },
      },
      ["path", "oldString", "newString"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["file", "filesystem", "workspace"],
    aliases: ["replace", "modify", "patch"],
  },
  {
    name: "delete",
    description: "Delete a file or folder in the run's workspace. A non-empty folder needs recursive: true.",
    inputSchema: objectSchema(
      { path: pathProperty, recursive: { type: "boolean", description: "Delete a non-empty folder and everything in it." } },
      ["path"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["file", "filesystem", "workspace"],
    aliases: ["remove", "rm", "unlink"],
  },
  {
    name: "list",
    description: "List the entries of a workspace folder (default /workspace), optionally recursively, sorted by path.",
    inputSchema: objectSchema({
      path: pathProperty,
      recursive: { type: "boolean", description: "Include entries of sub-folders." },
      limit: { type: "integer", minimum: 1, maximum: 5000, description: "Maximum entries to return (default 500)." },
    }),
    visibility: "visible",
    implementer: "runtime",
    tags: ["file", "filesystem", "workspace", "directory"],
    aliases: ["ls", "dir", "tree"],
  },
  {
    name: "grep",
    description:
      "Search the text files of the workspace for a regular expression (or a literal string) and return matching lines.",
    inputSchema: objectSchema(
      {
        pattern: { type: "string", minLength: 1, description: "A JavaScript regular expression, or literal text when literal is true." },
        path: pathProperty,
        include: { type: "string", minLength: 1, description: "Glob of file paths to search, relative to path (e.g. \"**/*.ts\")." },
        ignoreCase: { type: "boolean" },
        literal: { type: "boolean", description: "Treat pattern as literal text." },
        limit: { type: "integer", minimum: 1, maximum: 1000, description: "Maximum matches to return (default 200)." },
      },
      ["pattern"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["file", "search", "workspace", "text"],
    aliases: ["find in files", "rg"],
  },
  {
    name: "bash",
    description: "Run a shell command in the run's sandbox. The working directory is the run's workspace (what the file tools call /workspace): use paths relative to it.",
    inputSchema: objectSchema(
      {
        command: { type: "string", minLength: 1, description: "The shell command to run." },
        timeoutMs: { type: "integer", minimum: 1, maximum: 600000, description: "Kill the command after this many milliseconds." },
      },
      ["command"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["shell", "command", "sandbox", "terminal"],
    aliases: ["sh", "shell", "exec", "run"],
  },
  {
    name: "handoff_artifact",
    description:
      "Subagents only: hand an exact /workspace/... file to the parent agent. The bytes are verified and stored, and the " +
      "parent can read them at the returned immutable /files/handoffs/... path. This does not send anything to the user.",
    inputSchema: objectSchema(
      { path: { type: "string", minLength: 1, description: "An exact /workspace/... file path." } },
      ["path"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["file", "transfer", "subagent", "artifact"],
    aliases: ["handoff", "return file"],
  },
  {
    name: "deliver_artifact",
    description:
      "Root agent only: select an exact /workspace/... file or an exact /files/handoffs/... file for delivery to the user. " +
      "Mentioning a path in your reply does not deliver it.",
    inputSchema: objectSchema(
      { path: { type: "string", minLength: 1, description: "An exact /workspace/... or /files/handoffs/... file path." } },
      ["path"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["file", "delivery", "user", "artifact", "attachment"],
    aliases: ["deliver", "attach", "send file"],
  },
  {
    name: "load_skill",
    description: "Load the instructions of a skill available to this agent (its own skills and its plugins' skills).",
    inputSchema: objectSchema(
      { name: { type: "string", minLength: 1, description: "Skill name, or <capability>:<name> when two skills share a name." } },
      ["name"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["skill", "instructions", "procedure"],
    aliases: ["skill", "use skill"],
  },
  {
    name: "tool_search",
    description:
      "Find more tools by describing what you need; matching tools become callable on your next turn. " +
      "Pass query \"\" to browse the whole catalogue. Results are paged: while hasMore is true, pass nextOffset as offset.",
    inputSchema: objectSchema(
      {
        query: { type: "string", description: "Words describing the tool you need, or \"\" to browse." },
        limit: { type: "integer", minimum: 1, description: `Page size (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT}).` },
        offset: { type: "integer", minimum: 0, description: "The nextOffset of the previous page." },
      },
      ["query"],
    ),
    visibility: "visible",
    implementer: "runtime",
    tags: ["tools", "discovery", "search", "catalog"],
    aliases: ["find tool", "search tools"],
  },
  {
    name: "pair",
    description: "Complete a connection binding from a pasted binding packet.",
    inputSchema: objectSchema(
      { packet: { type: "string", minLength: 1, description: "The binding packet exactly as pasted." } },
      ["packet"],
    ),
    visibility: "visible",
    implementer: "host",
    hostService: "a connection pairing service",
    tags: ["connection", "binding", "setup"],
    aliases: ["bind", "connect"],
  },
  {
    name: "files_search",
    description: "Search the user's stored files by name or content.",
    inputSchema: objectSchema(
      {
        query: { type: "string", description: "What to look for." },
        limit: { type: "integer", minimum: 1, maximum: 100 },
      },
      ["query"],
    ),
    visibility: "visible",
    implementer: "host",
    hostService: "a file store search service",
    tags: ["file", "search", "storage", "user"],
    aliases: ["find files"],
  },
  {
    name: "files_mount",
    description: "Mount one of the user's stored files into the workspace so the file tools can read it.",
    inputSchema: objectSchema(
      {
        fileId: { type: "string", minLength: 1, description: "Identifier returned by files_search." },
        path: { type: "string", minLength: 1, description: "Target /workspace/... path (optional)." },
      },
      ["fileId"],
    ),
    visibility: "visible",
    implementer: "host",
    hostService: "a file store mount service",
    tags: ["file", "storage", "workspace", "user"],
    aliases: ["mount", "attach file"],
  },
  {
    name: "history_search",
    description: "Search earlier messages and tool results of this conversation.",
    inputSchema: objectSchema(
      {
        query: { type: "string", description: "What to look for." },
        limit: { type: "integer", minimum: 1, maximum: 100 },
      },
      ["query"],
    ),
    visibility: "deferred",
    implementer: "host",
    hostService: "a conversation history store",
    tags: ["history", "conversation", "memory", "search"],
    aliases: ["recall", "past messages"],
  },
  {
    name: "workspace_info",
    description: "Summarise the run's workspace: number of files and folders, total bytes, and the top-level entries.",
    inputSchema: objectSchema({}),
    visibility: "deferred",
    implementer: "runtime",
    tags: ["workspace", "filesystem", "summary"],
    aliases: ["du", "disk usage"],
  },
  {
    name: "workspace_snapshot",
    description: "List every file under a workspace folder with its size and SHA-256 digest, sorted by path.",
    inputSchema: objectSchema({
      path: pathProperty,
      limit: { type: "integer", minimum: 1, maximum: 10000, description: "Maximum files to return (default 2000)." },
    }),
    visibility: "deferred",
    implementer: "runtime",
    tags: ["workspace", "filesystem", "checksum", "inventory"],
    aliases: ["manifest", "hash files"],
  },
];

/** Every core tool, sorted by name (code-unit order), frozen. */
export const CORE_TOOL_SPECS: readonly CoreToolSpec[] = Object.freeze(
  [...specs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
);

const byName = new Map(CORE_TOOL_SPECS.map((spec) => [spec.name, spec]));

/** Names of every core tool, sorted. */
export const CORE_TOOL_NAMES: readonly string[] = Object.freeze(CORE_TOOL_SPECS.map((spec) => spec.name));

/** The always-visible core set, in the seed's order. */
export const ALWAYS_VISIBLE_CORE_TOOLS: readonly string[] = Object.freeze([
  "read", "write", "edit", "delete", "list", "grep", "bash", "handoff_artifact", "deliver_artifact",
  "load_skill", "tool_search", "pair", "files_search", "files_mount",
]);

/** The deferred framework tools: `history_search` and this runtime's workspace tools. */
export const DEFERRED_CORE_TOOLS: readonly string[] = Object.freeze(["history_search", "workspace_info", "workspace_snapshot"]);

/** Returns the spec of core tool `name`, or `undefined` when `name` is not a core tool. */
export function getCoreToolSpec(name: string): CoreToolSpec | undefined {
  return byName.get(name);
}

/** True when `name` is a core tool. */
export function isCoreToolName(name: string): boolean {
  return byName.has(name);
}

/**
 * The framework's delegation tool (seed "File transfer and user delivery": `delegate` with
 * `deliverables`; issue 13 item 1). Unlike the core set it exists only on a surface that has
 * subagents, and its schema names that surface's own children, so it is not in
 * {@link CORE_TOOL_SPECS}: the snapshot adds {@link delegateToolSpec} per surface.
 */
export const DELEGATE_TOOL_NAME = "delegate";

/** Most files or hosted links a `delegate` call may require (a bound for the schema). */
export const MAX_DELEGATE_DELIVERABLES = 100;

/**
 * The input schema of `delegate`: `agent` (one of `children` when given, the subagent folder
 * names), `task`, and `deliverables` (required counts of handed-off files and hosted links).
 */
export function delegateInputSchema(children?: readonly string[]): ManifestJson {
  const count = (what: string) => ({ type: "integer", minimum: 0, maximum: MAX_DELEGATE_DELIVERABLES, description: what });
  return objectSchema(
    {
      agent: children
        ? { type: "string", enum: [...children], description: "Which of your subagents does the task." }
        : { type: "string", minLength: 1, description: "Which of your subagents does the task." },
      task: { type: "string", minLength: 1, description: "What the subagent should do, with everything it needs to know." },
      deliverables: {
        ...objectSchema({
          files: count("Files the subagent must hand back with handoff_artifact (default 0)."),
          links: count("Hosted https links the subagent must return in its report (default 0)."),
        }),
        description: "What the subagent must hand back. Missing required deliverables are asked for once more, then the call fails.",
      },
    },
    ["agent", "task"],
  );
}

/**
 * The `delegate` spec of a surface whose subagents are `children` (folder names, sorted):
 * always visible, implemented by the runtime with the host's child driver.
 */
export function delegateToolSpec(children: readonly string[]): CoreToolSpec {
  return {
    name: DELEGATE_TOOL_NAME,
    description:
      `Give a task to one of your subagents (${children.join(", ")}) and wait for its report. ` +
      "Set deliverables to require files it hands back (returned as /files/handoffs/... paths you can read or deliver) " +
      "or hosted links; a subagent that misses them is asked once more, then the call fails.",
    inputSchema: delegateInputSchema(children),
    visibility: "visible",
    implementer: "runtime",
    tags: ["subagent", "delegation", "task", "handoff"],
    aliases: ["delegate task", "subagent", "hand off task"],
  };
}

/** True for a framework tool name: a core tool, or `delegate`. */
export function isFrameworkToolName(name: string): boolean {
  return isCoreToolName(name) || name === DELEGATE_TOOL_NAME;
}

/**
 * The subagents of `surfaceId` in `surfaces` (a manifest's): each child surface's folder name
 * (its id's last segment) and id, sorted by name.
 */
export function childSurfacesOf(surfaces: { readonly [id: string]: { readonly parent: string | null } }, surfaceId: string): { readonly name: string; readonly surfaceId: string }[] {
  return Object.keys(surfaces)
    .filter((id) => surfaces[id]!.parent === surfaceId)
    .map((id) => ({ name: id.slice(id.lastIndexOf("/") + 1), surfaceId: id }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
