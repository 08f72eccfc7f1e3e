/**
 * The host commands' own entry (`tools`, `search`, `call`, `approve`; DESIGN §7): the same
 * program as `./main.ts` (`./program.ts`) with only these commands, so that the CLI bundle's
 * host bundle, which the package's bin runs for them, holds no compiler, packager or lockfile
 * code (issue 14 item 3; docs/performance.md, "The host bundle"). What they print, their flags,
 * help and exit codes are those of the full entry: the commands are registered by the same
 * function (`registerHostCommands`). A compile-first step that must compile takes the compiler
 * from `services.loadCompiler` (in the bundle: the CLI bundle's own).
 */
import { compileFirst, registerHostCommands } from "./commands/host-commands.js";
import { printCommandOutput, type CommandOutput } from "./commands/command-output.js";
import type { CompilerLoader } from "./ensure-artifact.js";
import { sourceStacks, type SourceMapLoader } from "./source-stacks.js";
import { createProgram, runProgram } from "./program.js";
import type { EarlySandboxStart } from "../runtime-min/execution/early-start.js";

/** What the binary supplies to the host commands' entry. */
export interface HostCliServices {
  /** Loads the compiler for a compile-first step that compiles (`../build/compile.ts`). */
  readonly loadCompiler: CompilerLoader;
  /** Loads the bundles' source maps, to show a failed tool's stack at its sources (`./source-stacks.ts`). */
  readonly loadSourceMaps: SourceMapLoader;
  /** The sandbox process the binary started for this `call` (`./early-call.ts`): its run id is the call's, and its runtime may adopt it. */
  readonly earlyStart?: EarlySandboxStart;
}

/**
 * Runs a host command with `argv` (without `node` and the script path; its first word is one
 * of `HOST_COMMANDS`) and resolves to the exit code, as `main` would. Never throws: an
 * internal failure is printed and becomes exit code 2.
 */
export async function hostMain(argv: readonly string[], services: HostCliServices): Promise<number> {
  let exitCode = 0;
  const program = createProgram();
  const write = (output: CommandOutput): void => {
    printCommandOutput(output);
    exitCode = output.exitCode;
  };
  const hooks = { ensureArtifact: compileFirst(services.loadCompiler), sourceStacks: sourceStacks(services.loadSourceMaps), ...(services.earlyStart === undefined ? {} : { earlyStart: services.earlyStart }) };
  registerHostCommands(program, hooks, write);
  return runProgram(program, argv, () => exitCode);
}
