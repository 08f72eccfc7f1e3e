/**
 * What the host commands (`call`, `approve`, `tools`, `search`) share and the CLI entry needs
 * before any command runs: their output shape, the colour of the terminal, the default writer,
 * and the hooks the entry supplies. Kept free of heavy imports (only `picocolors` through
 * `terminal-color.ts`), since `cli/main.ts` loads it on every start (docs/performance.md).
 */
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { colorFor } from "../../diagnostics/terminal-color.js";
import type { CallResult } from "../../runtime-min/types.js";
import type { Runtime } from "../../runtime-min/index.js";
import type { EarlySandboxStart } from "../../runtime-min/execution/early-start.js";
import type { RuntimeOptions } from "../../runtime-min/types.js";
import type { EnsureOptions } from "../ensure-artifact.js";

/** What a command produced. */
export interface CommandOutput {
  readonly exitCode: 0 | 1 | 2;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Whether each stream's text is coloured. The CLI entry decides with {@link terminalColor};
 * a command run in-process without it prints plain text.
 */
export interface OutputColor {
  readonly stdout: boolean;
  readonly stderr: boolean;
}

/** The colour of this process's stdout and stderr, by `colorFor` (NO_COLOR, FORCE_COLOR, TTY). */
export function terminalColor(): OutputColor {
  return { stdout: colorFor(process.stdout), stderr: colorFor(process.stderr) };
}

/**
 * What the compile-first step did (DESIGN §7: the host commands compile first when the artifact
 * is missing or stale): its diagnostics, and whether it wrote new `plugins.lock` bytes (the
 * `lockChanged` of the command's JSON, `./host-report.ts`).
 */
export interface CompileFirstOutcome {
  /** The compile's diagnostics; any error stops the command. */
  readonly diagnostics: readonly Diagnostic[];
  /** True when the step compiled and wrote new `plugins.lock` bytes. */
  readonly lockChanged: boolean;
}

/** Host wiring the CLI entry provides. */
export interface RuntimeCommandHooks {
  /**
   * Compiles the root when its artifact is missing or stale (DESIGN §7: `call` and `approve`
   * compile first). Resolves to what the step did: any error among its diagnostics stops the
   * command. `artifactDir` is the project configuration's `outDir` when it sets one; with
   * `locked` (`--locked`) it never compiles: a lock or artifact that is not current is AL8068;
   * `settings` are the configuration's compile settings (`rules`, `maxWarnings`, `targets`,
   * `tokenBudget`), applied as `compile` applies them (`withCompileSettings`, `./host-report.ts`).
   */
  readonly ensureArtifact?: (root: string, artifactDir?: string, options?: EnsureOptions) => Promise<CompileFirstOutcome>;
  /** Extra runtime options (built-in tools, core-tool policy). */
  readonly runtimeOptions?: Omit<RuntimeOptions, "root" | "hostConfig" | "execution">;
  /** The sandbox process started for this `call` before the CLI loaded (`../early-call.ts`): `call` takes its run id when `--run` is omitted, and gives it to the runtime. */
  readonly earlyStart?: EarlySandboxStart;
  /**
   * The pretty output's view of a call result: a tool's stack at its sources (`../source-stacks.ts`).
   * Without it, stacks are shown as the tool's process reported them.
   */
  readonly sourceStacks?: (result: CallResult, runtime: Runtime) => Promise<CallResult>;
}

/**
 * Writes a command's output: stderr (its warnings and errors), then stdout. Warnings come first,
 * as a compiler prints its diagnostics before its summary: in a terminal or a log that holds both
 * streams, `call`'s AL8046 ("this call started the run") had come after a long result, where it
 * was easy to miss (new-user trial 125).
 */
export function printCommandOutput(output: CommandOutput): void {
  if (output.stderr) process.stderr.write(output.stderr);
  if (output.stdout) process.stdout.write(output.stdout);
}

/** Writes a command's output to stdout and stderr and sets `process.exitCode` (the default `write`). */
export function defaultWrite(output: CommandOutput): void {
  printCommandOutput(output);
  process.exitCode = output.exitCode;
}
