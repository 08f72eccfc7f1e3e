/**
 * Output of `assembly-line tools` and `assembly-line search` (DESIGN §7). The JSON forms are
 * exactly the contract's objects; the pretty forms are for people reading a terminal.
 */
import { showControlCharacters } from "../common/terminal-text.js";
import { plainPalette, type Palette } from "../diagnostics/terminal-color.js";
import { hostCommand } from "./format-call-result.js";
import { jsonText } from "./output.js";
import { countToolTokens, tokenCountLabel, type TokenCounter } from "../compiler/providers/tokens.js";
import type { JsonObject } from "../common/json-value.js";
import type { CapabilitySnapshot, CatalogTool, SnapshotTool, SnapshotWarning } from "../runtime-min/snapshot/types.js";
import type { ToolSearchResult } from "../runtime-min/types.js";

/**
 * `tools --format json`: `{ tools: [{ name, description, inputSchema, source, visibility, tokens }], tokens }`
 * (DESIGN §7); without `count`, the tools without token counts. The CLI writes it with the host
 * command's `diagnostics` and `lockChanged` added ({@link toolsDocument}, `./commands/host-report.ts`).
 */
export function toolsJson(snapshot: CapabilitySnapshot, count?: TokenCounter): string {
  return `${jsonText(toolsDocument(snapshot, count))}\n`;
}

/** The object {@link toolsJson} prints: `{ tools, tokens }` (without `count`, `{ tools }` without token counts). */
export function toolsDocument(snapshot: CapabilitySnapshot, count?: TokenCounter): Record<string, unknown> {
  const tools = snapshot.tools.map(({ name, description, inputSchema, source, visibility }): SnapshotTool => ({ name, description, inputSchema, source, visibility }));
  if (!count) return { tools };
  const counted = countSnapshotTokens(snapshot, count);
  return { tools: tools.map((tool, i) => ({ ...tool, tokens: counted.tools[i]!.tokens })), tokens: counted.total };
}

/**
 * Tokens of each snapshot tool and of the whole snapshot (issue 11 item 2): the tool JSON as
 * OpenAI receives it, counted with o200k_base (`compiler/providers/tokens.ts`).
 */
export function countSnapshotTokens(snapshot: CapabilitySnapshot, count: TokenCounter): ReturnType<typeof countToolTokens> {
  return countToolTokens(snapshot.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as JsonObject })), count);
}

/**
 * `tools` for people: one line per tool of the snapshot (name, visibility, source, the first
 * line of the description), then what else the surface has: deferred tools to search for and
 * disabled built-ins. Hidden tools are never mentioned. `colors` defaults to plain text.
 */
export function formatTools(snapshot: CapabilitySnapshot, root = ".", colors: Palette = plainPalette, count?: TokenCounter): string {
  const counted = count ? countSnapshotTokens(snapshot, count) : undefined;
  const total = counted ? ` (${counted.total} tokens; ${tokenCountLabel()})` : "";
  const lines = [`${colors.bold(`${snapshot.tools.length} tools`)}${total} the model starts with on surface '${snapshot.surfaceId}':`];
  const width = Math.max(0, ...snapshot.tools.map((tool) => tool.name.length));
  const sourceWidth = Math.max(0, ...snapshot.tools.map((tool) => tool.source.length));
  const tokenWidth = counted ? Math.max(...counted.tools.map((tool) => String(tool.tokens).length)) : 0;
  snapshot.tools.forEach((tool, i) => {
    const tag = tool.visibility === "deferred" ? colors.yellow(" (deferred; promoted or activated)") : "";
    const tokens = counted ? `${String(counted.tools[i]!.tokens).padStart(tokenWidth)} tok  ` : "";
    lines.push(`  ${showControlCharacters(tool.name).padEnd(width)}  ${tokens}${colors.dim(tool.source.padEnd(sourceWidth))}  ${firstLine(tool.description)}${tag}`);
  });
  const loaded = new Set(snapshot.tools.map((tool) => tool.name));
  const deferred = snapshot.catalog.filter((tool) => !loaded.has(tool.name));
  if (deferred.length > 0) {
    // The example searches for the first one by name: `search ''` would open on visible tools.
    const example = hostCommand("search", root, [deferred[0]!.name, ...(snapshot.surfaceId === "." ? [] : ["--surface", snapshot.surfaceId])]);
    const count = `${deferred.length} deferred tool${deferred.length === 1 ? "" : "s"}`;
    const names = deferred.map((tool) => tool.name).join(", ");
    // Without tool_search nothing activates them (new-user trial 129, finding 1; compile warns with AL4038).
    lines.push(
      loaded.has("tool_search")
        ? colors.dim(`${count} to find with tool_search (\`${example}\` finds the first, as tool_search would): ${names}`)
        : colors.yellow(`${count} the model cannot reach: tool_search, which activates them, is disabled (only an engine with native deferred loading finds them): ${names}`),
    );
  }
  if (snapshot.disabled.length > 0) {
    lines.push(colors.dim(`disabled built-ins: ${snapshot.disabled.map((tool) => `${tool.name} (by ${tool.by === "plugin" ? "a plugin" : "host policy"})`).join(", ")}`));
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The search result as `search --format json` prints it: `{ tools, totalMatches, hasMore,
 * nextOffset?, activated? }`; the CLI adds the host command's `diagnostics` and `lockChanged`
 * ({@link searchDocument}, `./commands/host-report.ts`).
 */
export function searchJson(result: ToolSearchResult): string {
  return `${jsonText(searchDocument(result))}\n`;
}

/** The object {@link searchJson} prints. */
export function searchDocument(result: ToolSearchResult): Record<string, unknown> {
  const tools = result.tools.map(searchTool);
  const page = { tools, totalMatches: result.totalMatches, hasMore: result.hasMore, ...(result.nextOffset === undefined ? {} : { nextOffset: result.nextOffset }) };
  return result.activated === undefined ? page : { ...page, activated: result.activated };
}

function searchTool(tool: CatalogTool): CatalogTool {
  const { name, description, inputSchema, source, visibility, tags, aliases, namespace } = tool;
  return namespace === undefined ? { name, description, inputSchema, source, visibility, tags, aliases } : { name, description, inputSchema, source, visibility, tags, aliases, namespace };
}

/** `search` for people: the ranked page, numbered from `offset + 1`, and how to get the next page. */
export function formatSearch(result: ToolSearchResult, query: string, offset: number, colors: Palette = plainPalette): string {
  if (result.totalMatches === 0) return `No tools match ${JSON.stringify(query)}.\n`;
  const lines: string[] = [];
  result.tools.forEach((tool, index) => {
    const details = [tool.visibility, tool.source, ...(tool.tags.length > 0 ? [`tags: ${tool.tags.join(", ")}`] : []), ...(tool.aliases.length > 0 ? [`aliases: ${tool.aliases.join(", ")}`] : [])];
    lines.push(`${String(offset + index + 1).padStart(3)}. ${colors.bold(showControlCharacters(tool.name))} ${colors.dim(`(${showControlCharacters(details.join("; "))})`)}`);
    lines.push(`     ${firstLine(tool.description)}`);
  });
  const shown = result.tools.length === 0 ? `none of ${result.totalMatches}` : `${offset + 1}–${offset + result.tools.length} of ${result.totalMatches}`;
  lines.push(colors.dim(`showing ${shown}${result.hasMore ? `; next page: --offset ${result.nextOffset}` : ""}`));
  if (result.activated && result.activated.length > 0) lines.push(colors.dim(`activated in the run: ${result.activated.join(", ")}`));
  return `${lines.join("\n")}\n`;
}

/** Snapshot warnings as stderr lines (host-supplied names that were ignored). */
export function formatSnapshotWarnings(warnings: readonly SnapshotWarning[], colors: Palette = plainPalette): string {
  return warnings.map((warning) => `${colors.yellow("warning")} ${warning.message}\n`).join("");
}

/** The first line of a plugin's description, at most 100 characters, its control characters shown, never sent (common/terminal-text.ts). */
function firstLine(text: string): string {
  const line = showControlCharacters(text.split("\n", 1)[0] ?? "");
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
