/**
 * Shape of one entry of the diagnostics catalog (STYLE §3: every code in one place, with
 * severity, message template and documentation).
 */
/** Severity of a diagnostic; only `error` makes a compile fail (exit 1). */
export type Severity = "error" | "warning" | "info";

/** One catalog entry. Codes are stable: never renumber or reuse one. */
export interface DiagnosticMessage {
  /** `AL` + four digits; the first digit names the stage (see `./index.ts`). */
  readonly code: string;
  readonly severity: Severity;
  /** Message template; `{0}`, `{1}`, … are filled from the detection's arguments, `{cli}` with the command prefix a user can type (`common/cli-command.ts`). */
  readonly message: string;
  /** Default fix-it text (template with the same arguments and `{cli}`) when the fix is always the same. */
  readonly hint?: string;
  /** One or two sentences for docs/diagnostics.md: why this is a problem and where the rule comes from. */
  readonly docs: string;
  /**
   * True when the reported source may hold a credential: formatters then never print the
   * source line (no code frame), so the secret does not end up in terminal or CI logs.
   */
  readonly sensitive?: true;
  /**
   * False when the reported file is rewritten by the same run (a recomputed plugins.lock): its
   * text on disk no longer shows the problem, so formatters print no code frame of it.
   */
  readonly frame?: false;
}

/** Helper that keeps the literal keys of a stage table while checking each entry's shape. */
export function defineMessages<const T extends Record<string, DiagnosticMessage>>(table: T): T {
  return table;
}
