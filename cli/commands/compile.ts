/**
 * `assembly-line compile [root] [--check] [--out DIR] [--no-package] [--target ID]… [--token-budget N]
 * [--format …]` (DESIGN §7; issue 11 for `--target` and `--token-budget`).
 */
import * as path from "node:path";
import { compileAgent, type CompileResult } from "../../build/compile.js";
import { formatGithub, formatSarif, toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import { detectPackageManager, installAllCommand } from "../add/detect-package-manager.js";
import { formatLockfileCheckReport } from "../../lockfile/format-check-report.js";
import { printDiagnostics, printJson } from "../output.js";
import { toolVersion } from "../version.js";

/** Flags of `compile`. */
export interface CompileFlags {
  readonly check?: boolean;
  readonly out?: string;
  readonly package: boolean;
  /** `--no-cache` sets false: neither read nor write `.assemblyline/cache/`. */
  readonly cache?: boolean;
  readonly format: "pretty" | "json" | "sarif" | "github";
  /** `--target ID` (repeatable): provider profiles to check every tool against. */
  readonly target?: readonly string[];
  /** `--token-budget N`: the most tokens each surface's initial snapshot may cost. */
  readonly tokenBudget?: number;
}

/** Runs `compile` and prints its result; resolves to the exit code (0 ok, 1 errors or drift). */
export async function runCompile(rootArgument: string, flags: CompileFlags): Promise<number> {
  const root = path.resolve(rootArgument);
  const result = await compileAgent({
    root,
    check: flags.check === true,
    package: flags.package,
    cache: flags.cache !== false,
    displayRoot: rootArgument,
    installCommand: installAllCommand(detectPackageManager(root).manager),
    ...(flags.out !== undefined ? { outDir: path.resolve(flags.out) } : {}),
    ...(flags.target && flags.target.length > 0 ? { targets: flags.target } : {}),
    ...(flags.tokenBudget !== undefined ? { tokenBudget: flags.tokenBudget } : {}),
  });
  if (flags.format === "json") printJson(compileJson(result));
  else if (flags.format === "sarif") process.stdout.write(formatSarif(result.diagnostics, toolVersion(), path.relative(process.cwd(), root)));
  else if (flags.format === "github") process.stdout.write(formatGithub(result.diagnostics, path.relative(process.cwd(), root)));
  else printPretty(result, root, flags);
  return result.ok ? 0 : 1;
}

/** The JSON document of DESIGN §7: `{ ok, diagnostics, lockfile, lockChanged, artifact }`. */
export function compileJson(result: CompileResult): Record<string, unknown> {
  return {
    ok: result.ok,
    diagnostics: result.diagnostics.map(toJsonDiagnostic),
    lockfile: result.lockfile,
    lockChanged: result.lockChanged,
    artifact: result.artifact,
  };
}

function printPretty(result: CompileResult, root: string, flags: CompileFlags): void {
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
  const tools = result.analysis.capabilities.reduce((sum, c) => sum + c.plugin.tools.length, 0);
  const surfaces = result.analysis.agent.surfaces.length;
  process.stdout.write(
    `${result.lockChanged ? "Wrote" : "Up to date:"} ${shown(result.lockfile)} (${surfaces} surface${surfaces === 1 ? "" : "s"}, ${tools} tool${tools === 1 ? "" : "s"}).\n`,
  );
  if (result.artifact) process.stdout.write(`${result.artifactChanged ? "Packaged" : "Up to date:"} ${shown(result.artifact)}\n`);
}
