/**
 * Machine formats over the same diagnostic data: JSON (DESIGN §7's Diagnostic shape),
 * SARIF 2.1.0 (code scanning) and GitHub Actions workflow commands (annotations in PRs).
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { isFolderFile, type SourceLocation } from "../common/positions.js";
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
  // `..` steps out of the root to a file of the repository (a workspace's plugin package,
  // resolved to its folder): GitHub and SARIF viewers want the plain repository path.
  return path.posix.normalize(joined).replace(/\/\.$/, "");
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
 * @param resultProperties more of a result's property bag (SARIF 2.1.0 §3.8) for a diagnostic,
 *   beside its `path`: `compile --check` puts the lock's changes and the contract review on its
 *   AL6002 result (`../cli/compile-report.ts`).
 *
 * A whole-run diagnostic (`file: ""`) is a result without `locations` (§3.27.12: not tied to a
 * place); a folder's location ({@link isFolderFile}) has no `region`, since a folder has no lines.
 */
export function formatSarif(
  diagnostics: readonly Diagnostic[],
  toolVersion: string,
  base = "",
  sourceRoot?: string,
  resultProperties?: (d: Diagnostic) => Readonly<Record<string, unknown>> | undefined,
): string {
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
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "assembly-line", version: toolVersion, rules } },
        ...(sourceRoot !== undefined ? { originalUriBaseIds: { [SARIF_SOURCE_ROOT]: { uri: directoryUri(sourceRoot) } } } : {}),
        results: diagnostics.map((d) => {
          const properties = { ...(d.path ? { path: d.path } : {}), ...resultProperties?.(d) };
          return {
            ruleId: d.code,
            level: SARIF_LEVEL[d.severity],
            message: { text: d.hint ? `${d.message} ${d.hint}` : d.message },
            ...(d.file === "" ? {} : { locations: [{ physicalLocation: physicalLocation(base, d) }] }),
            ...(d.related
              ? { relatedLocations: d.related.map((r, id) => ({ id, message: { text: r.message }, ...(r.file === "" ? {} : { physicalLocation: physicalLocation(base, r) }) })) }
              : {}),
            ...(Object.keys(properties).length > 0 ? { properties } : {}),
          };
        }),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** A SARIF physicalLocation of a reported place: its file under `base`, and its region unless it is a folder. */
function physicalLocation(base: string, l: SourceLocation): Record<string, unknown> {
  return {
    artifactLocation: artifactLocation(base, l.file),
    ...(isFolderFile(l.file)
      ? {}
      : { region: { startLine: l.line, startColumn: l.column, ...(l.endLine !== undefined ? { endLine: l.endLine, endColumn: l.endColumn } : {}) } }),
  };
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
 * GitHub Actions annotations (`::error file=…,line=…,col=…,title=AL4020::message`), one per line;
 * a whole-run diagnostic (`file: ""`) is `::error title=AL1001::message`, with no file, line or column.
 * @param base the agent root relative to the working directory (the repository root in CI).
 */
export function formatGithub(diagnostics: readonly Diagnostic[], base = ""): string {
  return diagnostics
    .map((d) => {
      const properties: string[] = [];
      // A whole-run diagnostic (file "") names no file, line or column: GitHub shows an annotation
      // without a file on the run's summary. A folder (common/positions.ts folderStart) has no
      // line: the annotation names the folder alone.
      if (d.file !== "") properties.push(`file=${escapeProperty(underBase(base, d.file))}`);
      if (d.file !== "" && !isFolderFile(d.file)) {
        properties.push(`line=${d.line}`, `col=${d.column}`);
        if (d.endLine !== undefined) properties.push(`endLine=${d.endLine}`, `endColumn=${d.endColumn}`);
      }
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
