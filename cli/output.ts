/**
 * Printing helpers shared by the commands: exactly one JSON object for `--format json`, pretty
 * diagnostics with code frames read from the root (credential-shaped text masked).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { formatPretty } from "../diagnostics/format-pretty.js";
import { colorFor } from "../diagnostics/terminal-color.js";
import { maskSecretsIn } from "../compiler/config/credentials.js";
import { rebaseFile } from "../common/positions.js";

/** Writes `value` as one JSON document (two-space indent) and a newline to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Pretty diagnostics (with code frames) to stderr when any. `diagnostics` name their files
 * relative to `base` (the agent or plugin root); they are printed relative to the working
 * directory instead, so `agent/agent.md:3:5` opens from the terminal (editors and terminals
 * make `file:line:column` clickable relative to where the command ran).
 */
export function printDiagnostics(diagnostics: readonly Diagnostic[], base: string): void {
  const text = formatDiagnosticsFrom(diagnostics, base, colorFor(process.stderr));
  if (text) process.stderr.write(text);
}

/**
 * The text {@link printDiagnostics} prints: `diagnostics` (files relative to `base`) with their
 * files relative to the working directory, code frames (credential-shaped text masked) and the
 * summary line; the empty string when there are none. The host commands print a compile-first
 * step's diagnostics with it, as `compile` prints them.
 */
export function formatDiagnosticsFrom(diagnostics: readonly Diagnostic[], base: string, color: boolean): string {
  const shown = diagnostics.map((d) => fromWorkingDirectory(d, base));
  // Each file is read and masked once, however many diagnostics it has.
  const sources = new Map<string, string | undefined>();
  const read = (file: string): string | undefined => {
    if (!sources.has(file)) sources.set(file, readSource(file));
    return sources.get(file);
  };
  return formatPretty(shown, { readSource: read, color });
}

/** `d` with its file (and related files) relative to the working directory rather than `base`. */
export function fromWorkingDirectory(d: Diagnostic, base: string): Diagnostic {
  const rebase = (file: string): string => rebaseFile(file, (f) => path.relative(process.cwd(), path.resolve(base, f)));
  return { ...d, file: rebase(d.file), ...(d.related ? { related: d.related.map((r) => ({ ...r, file: rebase(r.file) })) } : {}) };
}

function readSource(file: string): string | undefined {
  try {
    const absolute = path.resolve(file);
    const stat = fs.statSync(absolute);
    if (!stat.isFile() || stat.size > 2_000_000) return undefined;
    // Code frames show lines around each diagnostic: a credential on a nearby line is masked.
    return maskSecretsIn(fs.readFileSync(absolute, "utf8"));
  } catch {
    return undefined;
  }
}
