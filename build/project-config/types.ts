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
  /** Token budget of the model's starting tool snapshot (consumed by the provider profiles). */
  readonly tokenBudget?: number;
  /**
   * Where each key of `host` is written (its key's span, absolute `file`), for the warnings a
   * host command reports about a setting it cannot apply (AL8066); absent for a configuration
   * that is code (JavaScript/TypeScript), which has no locations.
   */
  readonly hostKeys?: Readonly<Partial<Record<keyof HostPolicyDefaults, SourceLocation>>>;
}

/** The configuration when there is none. */
export const EMPTY_PROJECT_CONFIG: ProjectConfig = { rules: {}, host: {} };

/** Which configuration to use: the search (default), one named file (`--config`), or none (`--no-config`). */
export type ConfigSelection = { readonly kind: "search" } | { readonly kind: "file"; readonly file: string } | { readonly kind: "none" };

/** The file as the user can open it from the working directory (relative to it, else absolute). */
export function shownFile(file: string): string {
  return path.relative(process.cwd(), file) || file;
}
