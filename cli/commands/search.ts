/**
 * `assembly-line search [query] [root] [--surface PATH] [--limit N] [--offset N] [--run ID]
 * [--format pretty|json]` (DESIGN §7): ranks the surface's catalogue with the index
 * `tool_search` uses and prints one page — `{ tools, totalMatches, hasMore, nextOffset? }` in
 * JSON (plus the host command's `diagnostics` and `lockChanged`: `./host-report.ts`). An empty or missing query browses every listed tool by name. `--limit` defaults to 8
 * and is capped at 20 (a larger one warns, AL8049); pass the printed `nextOffset` as `--offset` for the next page. Hidden
 * tools are never found. `--run` (an extension) activates the page's deferred tools in that
 * run, as `tool_search` does, and adds `activated` to the JSON; a run the state has no record
 * of is started, with a warning on stderr (a mistyped id), as `tools --run` warns.
 *
 * Exit codes: 0 — printed (also when nothing matched); 1 — the artifact was refused or the
 * compile failed; 2 — usage errors (AL8020 surface, AL8021 ended run, AL8022 run id,
 * AL8043 `--limit`/`--offset`, AL8044 the query is an agent's folder and there is no agent here)
 * and internal failures.
 *
 * The artifact is the one the project configuration's `outDir` names, as for `call`
 * (`--project-config FILE`, `--no-project-config`; `../host-policy.ts`). Loaded by
 * `registerSearchCommand` (`./host-commands.ts`) only when `search` runs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { paletteFor } from "../../diagnostics/terminal-color.js";
import { formatSearch, searchDocument } from "../format-catalog.js";
import { refusalOutput, withHostCatalog } from "./runtime-commands.js";
import type { CommandOutput, OutputColor, RuntimeCommandHooks } from "./command-output.js";
import { newHostReport, withCompileSettings } from "./host-report.js";
import { catalogHostPolicy } from "../host-policy.js";
import { runtimeError } from "../../runtime-min/errors.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { formatRefusal } from "../format-call-result.js";
import { MAX_SEARCH_LIMIT } from "../../contract/tool-search-limits.js";
import { shellQuote } from "../../common/shell-quote.js";

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
  /** `--project-config FILE` or `--no-project-config` (`false`); default: the configuration search. */
  readonly projectConfig?: string | boolean;
  readonly format?: string;
  /** Colour for pretty output (default: plain). */
  readonly color?: OutputColor;
}

/** Runs `assembly-line search`; returns its output and exit code. Never throws. */
export async function runSearchCommand(options: SearchCommandOptions, hooks: RuntimeCommandHooks = {}): Promise<CommandOutput> {
  const json = options.format === "json";
  const report = newHostReport();
  try {
    const limit = parseCount("--limit", options.limit, 1);
    const offset = parseCount("--offset", options.offset, 0) ?? 0;
    const query = options.query ?? "";
    // The root defaults to "." (commander's default too), so a root naming the current folder counts as none given.
    if (query !== "" && path.resolve(options.root ?? ".") === path.resolve(".")) refuseSwappedArguments(query);
    const { runtimeOptions, compileSettings } = await catalogHostPolicy(options.root ?? ".", options);
    return await withHostCatalog(options.root, options.run === undefined ? undefined : { id: options.run, command: "search" }, runtimeOptions, withCompileSettings(hooks, compileSettings), async (catalog) => {
      const result = catalog.search(query, { surface: options.surface ?? ".", offset, ...(limit === undefined ? {} : { limit }) });
      const capped = limit !== undefined && limit > MAX_SEARCH_LIMIT ? createDiagnostic(Diagnostics.PageLimitCapped, { file: "", line: 1, column: 1 }, [String(limit), String(MAX_SEARCH_LIMIT)]) : undefined;
      if (capped) report.diagnostics.push(capped);
      const stderr = capped ? formatRefusal("", [capped], paletteFor(options.color?.stderr ?? false)) : "";
      return json ? { exitCode: 0, document: searchDocument(result), stderr } : { exitCode: 0, stdout: formatSearch(result, query, offset, paletteFor(options.color?.stdout ?? false)), stderr };
    }, options.color, report);
  } catch (error) {
    return refusalOutput(error, json, options.color, "diagnostics", options.root ?? ".", report);
  }
}

/**
 * AL8044 when the current folder has no agent.md and the query (the only argument) names a
 * folder that has one: `search ../agent` meant `search '' ../agent`. Anything else goes on (a
 * missing agent is then the compile's AL1001). Reads two paths, never failing on them; throws
 * the refusal.
 */
function refuseSwappedArguments(query: string): void {
  // Any error (a file where a folder would be, a name the file system refuses) means "not an agent.md".
  const isFile = (file: string): boolean => {
    try {
      return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
    } catch {
      return false;
    }
  };
  if (isFile(path.resolve("agent.md")) || !isFile(path.resolve(query, "agent.md"))) return;
  throw runtimeError(Diagnostics.SearchQueryIsAgentFolder, "", [query, shellQuote(query)]);
}

/**
 * Parses a `--limit`/`--offset` value (digits only, at least `minimum`, at most nine digits);
 * `undefined` when absent. Throws AL8043, which names the bound a too-long number passes.
 */
function parseCount(flag: string, text: string | undefined, minimum: 0 | 1): number | undefined {
  if (text === undefined) return undefined;
  const digits = text.trim();
  if (/^\d{10,}$/.test(digits)) throw runtimeError(Diagnostics.PageFlagInvalid, "", [flag, text, "at most 999999999"]);
  const value = /^\d{1,9}$/.test(digits) ? Number(digits) : Number.NaN;
  if (!(value >= minimum)) {
    throw runtimeError(Diagnostics.PageFlagInvalid, "", [flag, text, minimum === 1 ? "a positive integer" : "a non-negative integer (0 or the nextOffset of the previous page)"]);
  }
  return value;
}
