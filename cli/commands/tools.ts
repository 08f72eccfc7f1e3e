/**
 * `assembly-line tools [root] [--surface PATH] [--run ID] [--format pretty|json]` (DESIGN §7):
 * prints the capability snapshot the model starts with on a surface —
 * `{ tools: [{ name, description, inputSchema, source, visibility, tokens }], tokens }` in JSON
 * (plus the host command's `diagnostics` and `lockChanged`: `./host-report.ts`), with
 * each tool's token count (o200k_base, the tool JSON as OpenAI receives it; issue 11). It acts as the
 * host on the root's compiled artifact (the CLI entry's `ensureArtifact` hook compiles first).
 * `--run` (an extension) adds the deferred tools that run activated with `tool_search`.
 *
 * Exit codes: 0 — printed; 1 — the artifact was refused (AL8001–AL8014) or the compile
 * failed; 2 — usage errors (unknown surface AL8020, bad run id AL8022) and internal failures.
 *
 * The artifact is the one the project configuration's `outDir` names, as for `call`
 * (`--project-config FILE`, `--no-project-config`; `../host-policy.ts`).
 *
 * `registerCatalogCommands` (`./host-commands.ts`) adds both `tools` and `search` to a
 * commander program and loads this module only when `tools` runs.
 */
import { paletteFor } from "../../diagnostics/terminal-color.js";
import { formatSnapshotWarnings, formatTools, toolsDocument } from "../format-catalog.js";
import { refusalOutput, withHostCatalog } from "./runtime-commands.js";
import type { CommandOutput, OutputColor, RuntimeCommandHooks } from "./command-output.js";
import { newHostReport, withCompileSettings } from "./host-report.js";
import { catalogHostPolicy } from "../host-policy.js";
import { withCachedTokenCounts } from "../../build/token-count-cache.js";

/** Options of `assembly-line tools`. */
export interface ToolsCommandOptions {
  readonly root?: string;
  /** Surface id: `.` (default) or `subagents/<name>`. */
  readonly surface?: string;
  /** A run whose `tool_search` activations are loaded into the snapshot. */
  readonly run?: string;
  /** `--project-config FILE` or `--no-project-config` (`false`); default: the configuration search. */
  readonly projectConfig?: string | boolean;
  /** `pretty` (default) or `json`. */
  readonly format?: string;
  /** Colour for pretty output (default: plain). */
  readonly color?: OutputColor;
}

/** Runs `assembly-line tools`; returns its output and exit code. Never throws. */
export async function runToolsCommand(options: ToolsCommandOptions, hooks: RuntimeCommandHooks = {}): Promise<CommandOutput> {
  const json = options.format === "json";
  const report = newHostReport();
  try {
    const { runtimeOptions, compileSettings } = await catalogHostPolicy(options.root ?? ".", options);
    return await withHostCatalog(options.root, options.run === undefined ? undefined : { id: options.run, command: "tools" }, runtimeOptions, withCompileSettings(hooks, compileSettings), async (catalog) => {
      const snapshot = catalog.snapshot(options.surface ?? ".");
      // Token counts come from the cache beside the analysis cache; the encoder loads only for new tool texts.
      const stderr = formatSnapshotWarnings(snapshot.warnings, paletteFor(options.color?.stderr ?? false));
      if (json) return { exitCode: 0, document: await withCachedTokenCounts(catalog.root, (count) => toolsDocument(snapshot, count)), stderr };
      const stdout = await withCachedTokenCounts(catalog.root, (count) => formatTools(snapshot, options.root ?? ".", paletteFor(options.color?.stdout ?? false), count));
      return { exitCode: 0, stdout, stderr };
    }, options.color, report);
  } catch (error) {
    return refusalOutput(error, json, options.color, "diagnostics", options.root ?? ".", report);
  }
}
