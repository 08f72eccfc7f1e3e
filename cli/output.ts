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

/** Writes `value` as one JSON document (two-space indent) and a newline to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Pretty diagnostics (with code frames of files under `base`) to stderr when any. */
export function printDiagnostics(diagnostics: readonly Diagnostic[], base: string): void {
  // Each file is read and masked once, however many diagnostics it has.
  const sources = new Map<string, string | undefined>();
  const read = (file: string): string | undefined => {
    if (!sources.has(file)) sources.set(file, readSource(base, file));
    return sources.get(file);
  };
  const text = formatPretty(diagnostics, { readSource: read, color: colorFor(process.stderr) });
  if (text) process.stderr.write(text);
}

function readSource(base: string, file: string): string | undefined {
  try {
    const absolute = path.resolve(base, file);
    const stat = fs.statSync(absolute);
    if (!stat.isFile() || stat.size > 2_000_000) return undefined;
    // Code frames show lines around each diagnostic: a credential on a nearby line is masked.
    return maskSecretsIn(fs.readFileSync(absolute, "utf8"));
  } catch {
    return undefined;
  }
}
