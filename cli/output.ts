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

/** Writes `value` as one JSON document (two-space indent) and a newline to stdout ({@link jsonText}). */
export function printJson(value: unknown): void {
  process.stdout.write(`${jsonText(value, 2)}\n`);
}

/**
 * DEL (U+007F) and the C1 controls (U+0080–U+009F), which `JSON.stringify` leaves raw (RFC 8259
 * asks only U+0000–U+001F to be escaped), though a terminal that reads 8-bit controls acts on them
 * (U+009B is CSI, as ESC [ is).
 */
const RAW_CONTROLS = /[\u007f-\u009f]/g;

/**
 * `value` as JSON text, as `JSON.stringify(value, null, indent)` writes it, with DEL and the C1
 * controls escaped (`\u007f`, `\u009b`, …): still valid JSON that parses to the same value, and no
 * raw control reaches a terminal a `--format json` document is printed on. Every JSON document the
 * CLI prints on stdout is written with it (a README trial of 6 December found them raw).
 */
export function jsonText(value: unknown, indent?: number): string {
  return escapeRawControls(JSON.stringify(value, null, indent));
}

/**
 * JSON `text` (a whole document, as a lower layer wrote it: the contract review's JSON, a SARIF
 * log) with DEL and the C1 controls escaped as {@link jsonText} escapes them.
 */
export function escapeRawControls(text: string): string {
  // Outside strings JSON text is ASCII punctuation, digits and literals, so every such character
  // is inside a string, where `\uXXXX` stands for it.
  return text.replace(RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
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

/**
 * The text a code frame shows for `file`: a regular file's (credentials masked), never what a
 * symbolic link points to — AL6102's link to `/etc/shadow` had printed its first lines into the
 * log (security trial 128) — nor a device's, a FIFO's or a large file's.
 */
function readSource(file: string): string | undefined {
  try {
    const absolute = path.resolve(file);
    const stat = fs.lstatSync(absolute);
    if (!stat.isFile() || stat.size > 2_000_000) return undefined;
    // Code frames show lines around each diagnostic: a credential on a nearby line is masked.
    return maskSecretsIn(fs.readFileSync(absolute, "utf8"));
  } catch {
    return undefined;
  }
}
