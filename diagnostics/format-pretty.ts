/**
 * Human-readable rendering of diagnostics, in the style of `tsc --pretty` and Biome: a
 * `file:line:column - severity CODE: message` header, the property path, a code frame of the
 * source (`./code-frame.ts`), the hint, and related locations.
 */
import { isFolderFile } from "../common/positions.js";
import { showControlCharacters } from "../common/terminal-text.js";
import { diagnosticMessageFor } from "./catalog/index.js";
import { renderCodeFrame } from "./code-frame.js";
import type { Diagnostic, Severity } from "./diagnostic.js";
import { paletteFor, type Palette } from "./terminal-color.js";

/** Options of {@link formatPretty}. */
export interface PrettyOptions {
  /** Reads a reported file (root-relative `file` as in the diagnostic); `undefined` skips the frame. */
  readonly readSource?: (file: string) => string | undefined;
  /** Colour output (default off; the CLI decides with `colorFor(process.stderr)`). */
  readonly color?: boolean;
}

/**
 * Renders all diagnostics (in the given order) and a summary line ("Found 2 errors and 1
 * warning."). Returns the empty string when there is nothing to report.
 */
export function formatPretty(diagnostics: readonly Diagnostic[], options: PrettyOptions = {}): string {
  if (diagnostics.length === 0) return "";
  const useColor = options.color ?? false;
  const colors = paletteFor(useColor);
  const blocks = diagnostics.map((d) => formatOne(d, options, colors));
  return `${blocks.join("\n\n")}\n\n${summary(diagnostics)}\n`;
}

function formatOne(shown: Diagnostic, options: PrettyOptions, colors: Palette): string {
  // Words of a plugin (a description quoted in a message, a file name) never reach the terminal as controls.
  const d = { ...shown, file: showControlCharacters(shown.file), message: showControlCharacters(shown.message), ...(shown.hint === undefined ? {} : { hint: showControlCharacters(shown.hint) }), ...(shown.path === undefined ? {} : { path: showControlCharacters(shown.path) }) };
  const severityText = paint(d.severity, colors);
  // A diagnostic about the command line or the run as a whole has no file (`file: ""`); one about
  // a folder (`plugins/chaos/`, common/positions.ts folderStart) has no line and column.
  const where =
    d.file === "" ? "" : isFolderFile(d.file) ? `${colors.cyan(d.file)} - ` : `${colors.cyan(d.file)}:${colors.yellow(String(d.line))}:${colors.yellow(String(d.column))} - `;
  const lines = [`${where}${severityText} ${colors.gray(d.code)}: ${d.message}`];
  if (d.path) lines.push(`  ${colors.gray("at")} ${d.path}`);
  const entry = diagnosticMessageFor(d.code);
  if (entry?.sensitive) {
    lines.push(`  ${colors.gray("(the source line is not shown: it may hold a credential)")}`);
  } else if (entry?.frame !== false) {
    const frame = codeFrame(shown, options, colors);
    if (frame) lines.push("", indent(frame, 2));
  }
  if (d.hint) lines.push(`  ${colors.bold("hint:")} ${d.hint}`);
  for (const related of d.related ?? []) {
    // A related folder (a rejected plugin's folder) has no line and column either.
    const file = showControlCharacters(related.file);
    const at = related.file === "" ? "" : isFolderFile(related.file) ? `${colors.cyan(file)} ` : `${colors.cyan(file)}:${related.line}:${related.column} `;
    lines.push(`  ${colors.gray("related:")} ${at}${showControlCharacters(related.message)}`);
  }
  return lines.join("\n");
}

function codeFrame(d: Diagnostic, options: PrettyOptions, colors: Palette): string | undefined {
  const source = options.readSource?.(d.file);
  if (source === undefined || source.length === 0 || looksBinary(source)) return undefined;
  const text = showControlCharacters(source.replace(/^\uFEFF/, ""), true);
  return renderCodeFrame(text, d, { colors, linesAbove: 2, linesBelow: 1 });
}

/** How much of a file {@link looksBinary} samples: the first 8000 characters, as Git's own binary check does. */
const BINARY_SAMPLE = 8000;

/**
 * Whether a file read as text is not text at all (a gzip tarball given to `add` or `validate`,
 * an image): it holds a NUL in its first {@link BINARY_SAMPLE} characters (Git's rule for
 * `diff`), or, in a sample of at least 32, more than 30% of characters that no text file is
 * made of (control characters other than tab, line and page ends, and the U+FFFD that an invalid
 * UTF-8 byte reads as). Such a file gets no code frame: its bytes would reach the terminal as
 * control sequences (helper-73's report, defect 12), and no line of it means anything to read.
 * One stray Latin-1 byte in an agent.md (AL1003) stays text, and its frame is shown.
 */
function looksBinary(text: string): boolean {
  const sample = text.slice(0, BINARY_SAMPLE);
  if (sample.includes("\u0000")) return true;
  if (sample.length < 32) return false;
  const odd = sample.match(/[\u0001-\u0008\u000E-\u001A\u001C-\u001F\u007F\uFFFD]/g)?.length ?? 0;
  return odd > sample.length * 0.3;
}

function paint(severity: Severity, colors: Palette): string {
  if (severity === "error") return colors.red(colors.bold("error"));
  if (severity === "warning") return colors.yellow(colors.bold("warning"));
  return colors.blue(colors.bold("info"));
}

function indent(text: string, spaces: number): string {
  const pad = " ".repeat(spaces);
  return text
    .split("\n")
    .map((line) => (line.length > 0 ? pad + line : line))
    .join("\n");
}

/** "Found 2 errors and 1 warning." (infos are counted only when there is nothing else). */
export function summary(diagnostics: readonly Diagnostic[]): string {
  const count = (severity: Severity) => diagnostics.filter((d) => d.severity === severity).length;
  const parts: string[] = [];
  const errors = count("error");
  const warnings = count("warning");
  const infos = count("info");
  if (errors) parts.push(`${errors} error${errors === 1 ? "" : "s"}`);
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? "" : "s"}`);
  if (infos && parts.length === 0) parts.push(`${infos} note${infos === 1 ? "" : "s"}`);
  return `Found ${parts.join(" and ")}.`;
}
