/**
 * The project configuration's `rules` and `maxWarnings` applied to a compile's diagnostics
 * (issue 10 item 5; `docs/configuration.md`).
 *
 * Rule severities work as in ESLint, with one difference: an error is never lowered. An error
 * means the lock or the artifact would be wrong, and a compile with errors writes neither; so
 * `"off"` and `"warn"` apply only to diagnostics that are warnings or notes, and `"error"`
 * raises any diagnostic (which then stops the compile). The configuration loader already
 * refuses a rule that lowers a catalog error (AL9114); this function also keeps an error that
 * was raised in context (a code that is a warning in the catalog but an error here).
 */
import { fileStart } from "../common/positions.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { RuleSetting } from "./project-config/types.js";

/** `maxWarnings` and where it was set (`--max-warnings` or the configuration file), for the message. */
export interface WarningLimit {
  readonly limit: number;
  /** Where the limit comes from, as the message says it (`--max-warnings`, `maxWarnings in assembly-line.config.json`). */
  readonly source: string;
}

/**
 * Applies `rules` to `diagnostics`.
 * @returns a new list: `off` drops warnings and notes of that code, `warn` makes notes and
 *   warnings warnings, `error` makes any diagnostic an error; errors stay errors.
 */
export function applySeverityRules(diagnostics: readonly Diagnostic[], rules: Readonly<Record<string, RuleSetting>>): Diagnostic[] {
  if (Object.keys(rules).length === 0) return [...diagnostics];
  const out: Diagnostic[] = [];
  for (const diagnostic of diagnostics) {
    const setting = Object.prototype.hasOwnProperty.call(rules, diagnostic.code) ? rules[diagnostic.code] : undefined;
    if (setting === undefined || (diagnostic.severity === "error" && setting !== "error")) out.push(diagnostic);
    else if (setting === "off") continue;
    else out.push({ ...diagnostic, severity: setting === "warn" ? "warning" : "error" });
  }
  return out;
}

/**
 * The AL9115 error when `diagnostics` hold more warnings than `limit` allows, else `undefined`
 * (no file of the agent is at fault, so it has no location: file `""`).
 */
export function checkWarningLimit(diagnostics: readonly Diagnostic[], limit: WarningLimit | undefined): Diagnostic | undefined {
  if (limit === undefined) return undefined;
  const warnings = diagnostics.filter((d) => d.severity === "warning").length;
  if (warnings <= limit.limit) return undefined;
  return createDiagnostic(Diagnostics.MaxWarningsExceeded, fileStart(""), [warnings, limit.limit, limit.source]);
}
