/**
 * Which project configuration a command reads (`--config FILE` / `--no-config` on `compile` and
 * `inputs`; `--project-config FILE` / `--no-project-config` on the host commands). Its own
 * module, free of imports, so the host commands reach it without loading `compile`'s helpers.
 */
import type { ConfigSelection } from "../build/project-config/types.js";

/** The configuration flags of `compile` and `inputs`. */
export interface ConfigFlags {
  /** `--config FILE` (a string) or `--no-config` (`false`). */
  readonly config?: string | boolean;
}

/** Which configuration the flags select: none (`false`), one file (a string), else the search from the root upwards. */
export function configSelection(flags: ConfigFlags): ConfigSelection {
  if (flags.config === false) return { kind: "none" };
  if (typeof flags.config === "string") return { kind: "file", file: flags.config };
  return { kind: "search" };
}
