/**
 * The command line as the user typed it, so that a hint can repeat it with another agent root
 * (AL1001 inside an agent: "run `npx assembly-line compile ../..`", with the prefix of
 * `../common/cli-command.ts`). `runProgram`
 * (`./program.ts`) remembers it before the command runs; a command run in-process (tests, other
 * hosts) has none, and its hints then name the root without a command line. Kept free of
 * imports beyond the command-line helper: `./program.ts` loads it on every start.
 */
import { cliCommand } from "../common/cli-command.js";

/** The words of one invocation and where its operands are. */
export interface TypedCommand {
  /** `argv` without `node` and the script path. */
  readonly words: readonly string[];
  /** Index in `words` of the command's name. */
  readonly commandAt: number;
  /** Index in `words` of each operand (positional argument) typed, in order. */
  readonly operandAt: readonly number[];
  /** Position of the `[root]` argument among the command's arguments; `undefined` when it has none. */
  readonly rootPosition: number | undefined;
  /** True when the root argument takes several values (`compile [root...]`). */
  readonly variadicRoot: boolean;
}

let remembered: TypedCommand | undefined;

/** Remembers this process's invocation (`runProgram` calls it once, before the command runs). */
export function rememberTypedCommand(command: TypedCommand | undefined): void {
  remembered = command;
}

/**
 * The typed command line with `newRoot` as the agent root, shell-quoted and prefixed with
 * what the user can type to run the CLI (`cliCommand`, `../common/cli-command.ts`): the root operand that was typed as `rootAsTyped` is replaced; a root left
 * to its default is inserted at its place (after the operands before it, `''` for an omitted
 * optional query). `undefined` when no invocation was remembered or the command takes no root.
 */
export function typedCommandWithRoot(rootAsTyped: string, newRoot: string): string | undefined {
  const typed = remembered;
  if (typed === undefined || typed.rootPosition === undefined) return undefined;
  const words = [...typed.words];
  const operands = typed.operandAt;
  const position = typed.rootPosition;
  // The typed root: for `compile a b`, the one that failed; otherwise the operand at the root's place.
  const rootIndex = typed.variadicRoot ? operands.slice(position).find((at) => words[at] === rootAsTyped) : operands[position];
  if (rootIndex !== undefined) words[rootIndex] = newRoot;
  else if (typed.variadicRoot && operands.length > position) return undefined; // a root a glob matched: not one word to replace
  else {
    const missing = Array.from({ length: Math.max(0, position - operands.length) }, () => "");
    const after = operands.length > 0 ? operands[operands.length - 1]! : typed.commandAt;
    words.splice(after + 1, 0, ...missing, newRoot);
  }
  return cliCommand(...words);
}
