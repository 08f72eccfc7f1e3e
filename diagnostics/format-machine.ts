/**
 * Machine formats over the same diagnostic data: JSON (DESIGN §7's Diagnostic shape),
 * SARIF 2.1.0 (code scanning) and GitHub Actions workflow commands (annotations in PRs).
 */
import { pathToFileURL } from "node:url";
import { isFolderFile } from "../common/positions.js";
import { allDiagnosticMessages } from "./catalog/index.js";
import type { Diagnostic, Severity } from "./diagnostic.js";

/**
 * The JSON form of a diagnostic (DESIGN §7): `{ code, severity, message, file, line, column,
 * path?, hint? }`, plus `endLine`/`endColumn` and `related` when known.
 */
export function toJsonDiagnostic(d: Diagnostic): Record<string, unknown> {
  return {
    code: d.code,
    severity: d.severity,
    message: d.message,
    file: d.file,
    line: d.line,
    column: d.column,
    ...(d.endLine !== undefined ? { endLine: d.endLine, endColumn: d.endColumn } : {}),
    ...(d.path !== undefined ? { path: d.path } : {}),
    ...(d.hint !== undefined ? { hint: d.hint } : {}),
    ...(d.related ? { related: d.related.map((r) => ({ file: r.file, line: r.line, column: r.column, message: r.message })) } : {}),
  };
}

const SARIF_LEVEL: Record<Severity, string> = { error: "error", warning: "warning", info: "note" };

/**
 * Joins a reported `file` (relative to the agent root) onto `base` (the agent root relative to
 * where the tool runs, usually the repository root), so CI annotations land on real paths.
 */
function underBase(base: string, file: string): string {
  if (base === "" || base === ".") return file;
  const joined = `${base.replace(/\\/g, "/").replace(/\/$/, "")}/${file}`;
  return joined.replace(/\/\.$/, "");
}

/** The SARIF `uriBaseId` every location is relative to: the folder the tool ran in (the repository root in CI). */
export const SARIF_SOURCE_ROOT = "%SRCROOT%";

/**
 * A SARIF 2.1.0 log with one run; rules come from the catalog, so every code is described.
 * Every location is a relative URI with `uriBaseId` {@link SARIF_SOURCE_ROOT} (SARIF 2.1.0
 * §3.4.4, the form GitHub code scanning resolves against the checkout).
 * @param base the agent root relative to the working directory (file URIs are made relative to it).
 * @param sourceRoot the working directory as an absolute path: when given, the run's
 *   `originalUriBaseIds` says where `%SRCROOT%` is, so viewers on this machine resolve the
 *   files too (left out, the log has no absolute path at all).
 */
export function formatSarif(diagnostics: readonly Diagnostic[], toolVersion: string, base = "", sourceRoot?: string): string {
  const used = new Set(diagnostics.map((d) => d.code));
  const rules = allDiagnosticMessages()
    .filter((m) => used.has(m.code))
    // The template's placeholders belong in messageStrings (SARIF 2.1.0 §3.49.11); the short
    // description reads as a sentence, with "…" where a value goes.
    .map((m) => ({
      id: m.code,
      shortDescription: { text: m.message.replace(/\{\d+\}/g, "…") },
      fullDescription: { text: m.docs },
      messageStrings: { default: { text: m.message } },
      defaultConfiguration: { level: SARIF_LEVEL[m.severity] },
    }));
  const region = (l: { line: number; column: number; endLine?: number; endColumn?: number }) => ({
    startLine: l.line,
    startColumn: l.column,
    ...(l.endLine !== undefined ? { endLine: l.endLine, endColumn: l.endColumn } : {}),
  });
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "assembly-line", version: toolVersion, rules } },
        ...(sourceRoot !== undefined ? { originalUriBaseIds: { [SARIF_SOURCE_ROOT]: { uri: directoryUri(sourceRoot) } } } : {}),
        results: diagnostics.map((d) => ({
          ruleId: d.code,
          level: SARIF_LEVEL[d.severity],
          message: { text: d.hint ? `${d.message} ${d.hint}` : d.message },
          locations: [{ physicalLocation: { artifactLocation: artifactLocation(base, d.file), region: region(d) } }],
          ...(d.related
            ? { relatedLocations: d.related.map((r, id) => ({ id, message: { text: r.message }, physicalLocation: { artifactLocation: artifactLocation(base, r.file), region: region(r) } })) }
            : {}),
          ...(d.path ? { properties: { path: d.path } } : {}),
        })),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** A SARIF artifactLocation: the file under `base` as a relative URI reference against `%SRCROOT%`. */
function artifactLocation(base: string, file: string): { uri: string; uriBaseId: string } {
  return { uri: encodeURI(underBase(base, file)), uriBaseId: SARIF_SOURCE_ROOT };
}

/** `file:` URI of an absolute directory, with the trailing slash SARIF requires of a base URI (§3.14.14). */
function directoryUri(directory: string): string {
  const href = pathToFileURL(directory).href;
  return href.endsWith("/") ? href : `${href}/`;
}

const GITHUB_COMMAND: Record<Severity, string> = { error: "error", warning: "warning", info: "notice" };

/**
 * GitHub Actions annotations (`::error file=…,line=…,col=…,title=AL4020::message`), one per line.
 * @param base the agent root relative to the working directory (the repository root in CI).
 */
export function formatGithub(diagnostics: readonly Diagnostic[], base = ""): string {
  return diagnostics
    .map((d) => {
      const properties = [`file=${escapeProperty(underBase(base, d.file))}`];
      // A folder (common/positions.ts folderStart) has no line: the annotation names the folder alone.
      if (!isFolderFile(d.file)) properties.push(`line=${d.line}`, `col=${d.column}`);
      if (d.endLine !== undefined) properties.push(`endLine=${d.endLine}`, `endColumn=${d.endColumn}`);
      properties.push(`title=${escapeProperty(d.path ? `${d.code} at ${d.path}` : d.code)}`);
      const text = d.hint ? `${d.message} ${d.hint}` : d.message;
      return `::${GITHUB_COMMAND[d.severity]} ${properties.join(",")}::${escapeData(text)}\n`;
    })
    .join("");
}

function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
