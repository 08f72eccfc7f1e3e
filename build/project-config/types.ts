/**
 * The project configuration as the commands use it (issue 10 item 5; schema:
 * `schemas/assembly-line.config.schema.json`; docs: `docs/configuration.md`).
 */
import * as path from "node:path";
import type { SourceLocation } from "../../common/positions.js";

/** A severity setting of `rules`, as in ESLint. */
export type RuleSetting = "off" | "warn" | "error";

/** Output formats of `compile`. */
export type CompileFormat = "pretty" | "json" | "sarif" | "github";

/** Host policy defaults of `call` and `approve` (`host` in the configuration). */
export interface HostPolicyDefaults {
  readonly execution?: "sandbox" | "direct";
  readonly deadlineMs?: number;
  readonly memoryMb?: number;
  readonly maxResultBytes?: number;
  readonly network?: "host" | "none";
  readonly artifactByteLimit?: number;
}

/** A loaded, validated configuration; paths are absolute (resolved against the file's folder). */
export interface ProjectConfig {
  /** Absolute path of the file it came from; `undefined` when none was found or `--no-config`. */
  readonly file?: string;
  readonly format?: CompileFormat;
  /** Absolute artifact directory. */
  readonly outDir?: string;
  /** Code → setting; validated: known codes only, errors never lowered. */
  readonly rules: Readonly<Record<string, RuleSetting>>;
  readonly maxWarnings?: number;
  readonly host: HostPolicyDefaults;
  /** Provider profile ids (consumed by the provider profiles). */
  readonly targets?: readonly string[];
  /**
   * Token budget of the model's starting tool snapshot (consumed by the provider profiles): one
   * number for every surface, or budgets by surface path (issue 11 item 2).
   */
  readonly tokenBudget?: number | Readonly<Record<string, number>>;
  /**
   * Where the settings a command reports on are written, by JSON pointer into the configuration
   * (absolute `file`): each key of `host` (`/host/network`: the key's span) for AL8066, each
   * element of `targets` (`/targets/0`: the value) for AL4712, each key of an object
   * `tokenBudget` (`/tokenBudget/subagents~1x`: the key) for AL4721. Absent for a configuration
   * that is code (JavaScript/TypeScript), which has no locations.
   */
  readonly locations?: Readonly<Record<string, SourceLocation>>;
}

/**
 * Every place searched in each folder, in order (the first found wins; `./load-project-config.ts`
 * searches them). Here, free of cosmiconfig, so that the language server names them to the
 * client's file watcher before it loads anything.
 */
export const CONFIG_SEARCH_PLACES: readonly string[] = [
  "package.json",
  ".assemblylinerc",
  ".assemblylinerc.json",
  ".assemblylinerc.yaml",
  ".assemblylinerc.yml",
  ".assemblylinerc.js",
  ".assemblylinerc.mjs",
  ".assemblylinerc.cjs",
  ".assemblylinerc.ts",
  "assembly-line.config.js",
  "assembly-line.config.mjs",
  "assembly-line.config.cjs",
  "assembly-line.config.ts",
  "assembly-line.config.json",
  "assembly-line.config.yaml",
  "assembly-line.config.yml",
];

/** The configuration when there is none. */
export const EMPTY_PROJECT_CONFIG: ProjectConfig = { rules: {}, host: {} };

/** Which configuration to use: the search (default), one named file (`--config`), or none (`--no-config`). */
export type ConfigSelection = { readonly kind: "search" } | { readonly kind: "file"; readonly file: string } | { readonly kind: "none" };

/** The file as the user can open it from the working directory (relative to it, else absolute). */
export function shownFile(file: string): string {
  return path.relative(process.cwd(), file) || file;
}
