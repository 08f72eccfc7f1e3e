/**
 * What a host command (`tools`, `search`, `call`, `approve`) reports beside its answer, and how
 * its `--format json` document carries it (helper-67, helper-69: the warnings went to stderr as
 * text only, and nothing said the compile-first step had rewritten `plugins.lock`, so a tool
 * reading the JSON saw neither). The keys are `compile --format json`'s for the same facts
 * (DESIGN §7, docs/cli.md): `diagnostics`, a list of diagnostics as `toJsonDiagnostic` writes
 * them, and `lockChanged`, true when this command wrote new `plugins.lock` bytes.
 */
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import { RuntimeError } from "../../runtime-min/errors.js";
import { jsonText } from "../output.js";
import type { CommandOutput, RuntimeCommandHooks } from "./command-output.js";
import type { CompileSettings } from "../../build/compile-settings.js";

/**
 * Collected while one host command runs: filled by the compile-first step and the host wrappers
 * (`withHostRuntime`, `withHostCatalog` in `./runtime-commands.ts`), read when the answer or the
 * refusal is written.
 */
export interface HostReport {
  /** True when the compile-first step compiled and wrote new `plugins.lock` bytes. */
  lockChanged: boolean;
  /**
   * The warnings the command also prints on stderr, in that order: AL8046 for a `--run` the
   * state had no record of, AL8066 for a configuration's host limits direct execution does not
   * apply (`../host-policy.ts`), AL8048 for a `--config` key no tool requires
   * (`../host-config-check.ts`), then the runtime's own (AL8030 and the other isolation warnings).
   */
  readonly diagnostics: Diagnostic[];
}

/** A report with nothing in it yet: no lock written, no warnings. */
export function newHostReport(): HostReport {
  return { lockChanged: false, diagnostics: [] };
}

/**
 * The `--format json` line of a host command: its own document (`{ tools, tokens }`, the search
 * page, the call result) with `diagnostics` and `lockChanged` after its own keys, which stay as
 * they were. A document with `diagnostics` of its own (a refusal's errors) keeps them.
 */
export function hostJson(document: Readonly<Record<string, unknown>>, report: HostReport): string {
  const json: Record<string, unknown> = { ...document };
  json["diagnostics"] ??= report.diagnostics.map(toJsonDiagnostic);
  json["lockChanged"] = report.lockChanged;
  return `${jsonText(json)}\n`;
}

/**
 * What a host command's action answers: its pretty `stdout`, or with `--format json` its own
 * `document`, which the host wrapper writes with the report's `diagnostics` and `lockChanged`
 * added ({@link hostJson}) once every warning is known.
 */
export type HostAnswer = Omit<CommandOutput, "stdout"> & ({ readonly stdout: string } | { readonly document: Readonly<Record<string, unknown>> });

/** The command output of `answer`: the document as JSON with the report's keys, or the pretty text. */
export function hostOutput(answer: HostAnswer, report: HostReport): CommandOutput {
  return { exitCode: answer.exitCode, stdout: "document" in answer ? hostJson(answer.document, report) : answer.stdout, stderr: answer.stderr };
}

/**
 * The compile-first step of a host command (`hooks.ensureArtifact`, DESIGN §7): records in
 * `report` whether it wrote new `plugins.lock` bytes, and throws its errors as a `RuntimeError`
 * (the command stops). Its warnings are the compile's to report, not the host command's: the
 * step runs only when the artifact is missing or stale, so they would come and go with it.
 */
export async function compileFirstStep(root: string, artifactDir: string | undefined, hooks: RuntimeCommandHooks, report: HostReport): Promise<void> {
  if (!hooks.ensureArtifact) return;
  const outcome = await hooks.ensureArtifact(root, artifactDir);
  report.lockChanged = outcome.lockChanged;
  const errors = outcome.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) throw new RuntimeError(errors);
}

/**
 * `hooks` whose compile-first step compiles with `settings`, the project configuration's
 * compile settings (`rules`, `maxWarnings`, `targets`, `tokenBudget`; `build/compile-settings.ts`):
 * it then refuses what `compile` with the same configuration refuses, instead of writing a lock
 * `compile` would not write (new-user trial 129, finding 6). The host command resolves its
 * configuration before the step runs, so the settings come from the file it already read.
 */
export function withCompileSettings(hooks: RuntimeCommandHooks, settings: CompileSettings): RuntimeCommandHooks {
  const ensure = hooks.ensureArtifact;
  if (ensure === undefined) return hooks;
  return { ...hooks, ensureArtifact: (root, artifactDir, options) => ensure(root, artifactDir, { ...options, settings }) };
}
