/**
 * `assembly-line search [query] [root] [--surface PATH] [--limit N] [--offset N] [--run ID]
 * [--format pretty|json]` (DESIGN §7): ranks the surface's catalogue with the index
 * `tool_search` uses and prints one page — `{ tools, totalMatches, hasMore, nextOffset? }` in
 * JSON. An empty or missing query browses every listed tool by name. `--limit` defaults to 8
 * and is capped at 20; pass the printed `nextOffset` as `--offset` for the next page. Hidden
 * tools are never found. `--run` (an extension) activates the page's deferred tools in that
 * run, as `tool_search` does, and adds `activated` to the JSON.
 *
 * Exit codes: 0 — printed (also when nothing matched); 1 — the artifact was refused or the
 * compile failed; 2 — usage errors (AL8020 surface, AL8021 ended run, AL8022 run id,
 * AL8043 `--limit`/`--offset`) and internal failures.
 */
import { Option, type Command } from "commander";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { paletteFor } from "../../diagnostics/terminal-color.js";
import { formatSearch, searchJson } from "../format-catalog.js";
import { defaultWrite, refusalOutput, terminalColor, withHostRuntime, type CommandOutput, type OutputColor, type RuntimeCommandHooks } from "./runtime-commands.js";
import { runtimeError } from "../../runtime-min/errors.js";

/** Options of `assembly-line search`. */
export interface SearchCommandOptions {
  /** Words describing the tool; `""` or absent browses the catalogue. */
  readonly query?: string;
  readonly root?: string;
  readonly surface?: string;
  /** Page size as typed (a positive integer; values above 20 are capped). */
  readonly limit?: string;
  /** Matches to skip as typed (a non-negative integer). */
  readonly offset?: string;
  /** Activate the page's deferred tools in this run. */
  readonly run?: string;
  readonly format?: string;
  /** Colour for pretty output (default: plain). */
  readonly color?: OutputColor;
}

/** Runs `assembly-line search`; returns its output and exit code. Never throws. */
export async function runSearchCommand(options: SearchCommandOptions, hooks: RuntimeCommandHooks = {}): Promise<CommandOutput> {
  const json = options.format === "json";
  try {
    const limit = parseCount("--limit", options.limit, 1);
    const offset = parseCount("--offset", options.offset, 0) ?? 0;
    const query = options.query ?? "";
    return await withHostRuntime(options.root, {}, hooks, async (runtime) => {
      const result = runtime.search(query, {
        surface: options.surface ?? ".",
        offset,
        ...(limit === undefined ? {} : { limit }),
        ...(options.run === undefined ? {} : { runId: options.run }),
      });
      return { exitCode: 0, stdout: json ? searchJson(result) : formatSearch(result, query, offset, paletteFor(options.color?.stdout ?? false)), stderr: "" };
    }, options.color);
  } catch (error) {
    return refusalOutput(error, json, options.color, "diagnostics");
  }
}

/** Adds `search` to a commander program; `write` receives the output (default: stdout, stderr, exit code). */
export function registerSearchCommand(program: Command, hooks: RuntimeCommandHooks = {}, write: (output: CommandOutput) => void = defaultWrite): void {
  program
    .command("search")
    .description("Search a surface's tools as tool_search does, one page at a time.")
    .argument("[query]", 'words describing the tool; "" browses everything', "")
    .argument("[root]", "agent root", ".")
    .option("--surface <path>", "surface id: . or subagents/<name>", ".")
    .option("--limit <n>", "page size (default 8, at most 20)")
    .option("--offset <n>", "matches to skip: the nextOffset of the previous page", "0")
    .option("--run <id>", "activate the page's deferred tools in this run, as tool_search does")
    .addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"))
    .action(async (query: string, root: string, flags: Omit<SearchCommandOptions, "query" | "root">) => {
      write(await runSearchCommand({ ...flags, query, root, color: terminalColor() }, hooks));
    });
}

/** Parses a `--limit`/`--offset` value (digits only, at least `minimum`); `undefined` when absent. */
function parseCount(flag: string, text: string | undefined, minimum: 0 | 1): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!(value >= minimum)) {
    throw runtimeError(Diagnostics.PageFlagInvalid, "", [flag, text, minimum === 1 ? "a positive integer" : "a non-negative integer (0 or the nextOffset of the previous page)"]);
  }
  return value;
}
