/**
 * The report of one compile, shared by `compile` and `compile --watch`: the JSON document of
 * DESIGN §7 and the pretty summary.
 */
import * as path from "node:path";
import type { CompileResult } from "../build/compile.js";
import { toJsonDiagnostic } from "../diagnostics/format-machine.js";
import { checkReportJson, formatLockfileCheckReport } from "../lockfile/format-check-report.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { printDiagnostics } from "./output.js";

/**
 * What the reports need of a compile: a {@link CompileResult}, or a compile's outcome replayed
 * from the compile record (`./compile-record.ts`), which carries the summary's counts instead
 * of the analysis.
 */
export type ReportedCompile = Pick<CompileResult, "ok" | "diagnostics" | "lockfile" | "lockChanged" | "artifact" | "artifactChanged" | "checkReport" | "review" | "handEdited"> &
  ({ readonly analysis: CompileResult["analysis"] } | { readonly counts: { readonly surfaces: number; readonly tools: number } });

/**
 * The JSON document of DESIGN §7: `{ ok, diagnostics, lockfile, lockChanged, artifact }`, and
 * for `compile --check` after them `check`, what the pretty report shows beside its one
 * diagnostic: `{ status, changes: [{ kind, path, before?, after? }], review: [{ kind, surface,
 * tool, detail, needsReview }], formattingOnly, notes, fixCommand? }` (`checkReportJson`). A key
 * added after the pinned ones, as the host commands add theirs, rather than one diagnostic per
 * change: the diagnostics stay one per problem (a CI that counts errors, `--max-warnings`, the
 * annotations of a pull request), and a change such as an added tool has no place in the
 * committed lock to put a diagnostic on.
 */
export function compileJson(result: ReportedCompile): Record<string, unknown> {
  return {
    ok: result.ok,
    diagnostics: result.diagnostics.map(toJsonDiagnostic),
    lockfile: result.lockfile,
    lockChanged: result.lockChanged,
    artifact: result.artifact,
    ...(result.checkReport ? { check: checkReportJson(result.checkReport) } : {}),
  };
}

/**
 * The SARIF result properties of a `compile --check` (`formatSarif`'s `resultProperties`): the
 * lock's diagnostic (AL6002 and the other lock codes) carries `lockChanges` and `contractReview`,
 * the `changes` and `review` of the JSON's `check`; every other diagnostic nothing more.
 */
export function checkSarifProperties(result: ReportedCompile): (d: Diagnostic) => Readonly<Record<string, unknown>> | undefined {
  const report = result.checkReport;
  const code = report?.diagnostic?.code;
  if (!report || code === undefined) return () => undefined;
  const json = checkReportJson(report);
  return (d) => (d.code === code ? { lockChanges: json.changes, contractReview: json.review } : undefined);
}

/**
 * Prints a compile's diagnostics (stderr) and what it wrote (stdout) in words; paths as the user
 * can open them from the working directory. `flags.check` selects the `--check` report.
 */
export function printPretty(result: ReportedCompile, root: string, flags: { readonly check?: boolean }): void {
  const report = result.checkReport;
  const listed = report?.diagnostic ? result.diagnostics.filter((d) => d.code !== report.diagnostic!.code) : result.diagnostics;
  printDiagnostics(listed, root);
  // Paths as the user can open them from where they ran the command.
  const shown = (relative: string): string => path.relative(process.cwd(), path.resolve(root, relative)) || ".";
  if (flags.check) {
    if (report && report.status !== "up-to-date") process.stderr.write(formatLockfileCheckReport(report));
    else if (result.ok) process.stdout.write(`${shown(result.lockfile)} is up to date.\n`);
    return;
  }
  if (!result.ok) {
    // A root that does not exist (or is a file) has no lock or artifact to speak of.
    const rootProblem = result.diagnostics.some((d) => d.code === "AL1024" || d.code === "AL1025");
    if (!rootProblem) process.stderr.write(`${shown(result.lockfile)} and the artifact were left unchanged.\n`);
    return;
  }
  const { tools, surfaces } = "counts" in result ? result.counts : summaryCounts(result.analysis);
  process.stdout.write(
    `${result.lockChanged ? "Wrote" : "Up to date:"} ${shown(result.lockfile)} (${surfaces} surface${surfaces === 1 ? "" : "s"}, ${tools} tool${tools === 1 ? "" : "s"}).\n`,
  );
  if (result.artifact) process.stdout.write(`${result.artifactChanged ? "Packaged" : "Up to date:"} ${shown(result.artifact)}\n`);
}

/** The surfaces and tools of an analysis, as the pretty summary counts them (and the compile record keeps). */
export function summaryCounts(analysis: CompileResult["analysis"]): { surfaces: number; tools: number } {
  return { surfaces: analysis.agent.surfaces.length, tools: analysis.capabilities.reduce((sum, c) => sum + c.plugin.tools.length, 0) };
}
