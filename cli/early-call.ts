/**
 * The early start of `assembly-line call` (issue 14 item 3, start-up; docs/performance.md,
 * "`call`: what runs side by side"): the binary reads the call's words from the command line
 * before it loads the CLI, and starts the sandbox process the agent remembers for that tool
 * (`runtime-min/execution/early-start.ts`), so the process boots while the CLI loads, reads the
 * project configuration and verifies the artifact. The CLI then runs the call as always, with
 * that start's run id and the start for its runtime to adopt (`CliServices.earlyStart`).
 *
 * The words are read without commander: only the plain shape `call <tool> [root]` with the
 * command's own options (each value separate or after `=`). Anything else (another command
 * first, an unknown option, `--`, `--help`, a third operand, `--execution direct`) starts
 * nothing, and the call runs as it did without an early start. Reading a shape wrongly cannot
 * change a call: a process is adopted only when launched exactly as the runtime would launch
 * it. `test/cli/early-call.test.ts` keeps {@link CALL_VALUE_OPTIONS} and
 * {@link CALL_FLAG_OPTIONS} equal to the options `call` defines (`./commands/host-commands.ts`).
 */
import * as path from "node:path";
import { startSandboxEarly, type EarlySandboxStart } from "../runtime-min/execution/early-start.js";

/** The options of `call` that take a value. */
export const CALL_VALUE_OPTIONS: readonly string[] = [
  "--input",
  "--surface",
  "--run",
  "--call",
  "--config",
  "--execution",
  "--deadline",
  "--memory-mb",
  "--max-result-bytes",
  "--max-event-bytes",
  "--max-run-state-bytes",
  "--network",
  "--project-config",
  "--format",
];
/** The options of `call` that take none. */
export const CALL_FLAG_OPTIONS: readonly string[] = ["--no-project-config", "--locked"];

/** What an early start needs of a `call` command line. */
export interface CallWords {
  readonly tool: string;
  readonly root: string;
  readonly surface?: string;
  readonly runId?: string;
}

/**
 * The tool, root, surface and run of `argv` (without `node` and the script) when it is a plain
 * `call` command line as the module comment says; `undefined` otherwise.
 */
export function readCallWords(argv: readonly string[]): CallWords | undefined {
  if (argv[0] !== "call") return undefined;
  const operands: string[] = [];
  const values = new Map<string, string>();
  for (let at = 1; at < argv.length; at += 1) {
    const word = argv[at]!;
    if (!word.startsWith("-") || word === "-") {
      operands.push(word);
      continue;
    }
    const equals = word.indexOf("=");
    const name = equals > 0 ? word.slice(0, equals) : word;
    if (CALL_FLAG_OPTIONS.includes(name) && equals < 0) continue;
    if (!CALL_VALUE_OPTIONS.includes(name)) return undefined;
    const value = equals > 0 ? word.slice(equals + 1) : argv[++at];
    if (value === undefined) return undefined;
    values.set(name, value);
  }
  const [tool, root = ".", ...rest] = operands;
  if (tool === undefined || rest.length > 0) return undefined;
  const execution = values.get("--execution");
  if (execution !== undefined && execution !== "sandbox") return undefined;
  const surface = values.get("--surface");
  const runId = values.get("--run");
  return { tool, root, ...(surface === undefined ? {} : { surface }), ...(runId === undefined ? {} : { runId }) };
}

/**
 * Starts the sandbox process of the `call` in `argv` early, as the module comment says; the
 * binary passes what it returns to the CLI and discards it once the CLI is done. `undefined`
 * when `argv` is not a plain `call` or nothing was started. Never throws.
 */
export function startCallEarly(argv: readonly string[], cwd: string = process.cwd()): EarlySandboxStart | undefined {
  const words = readCallWords(argv);
  if (words === undefined) return undefined;
  return startSandboxEarly({ ...words, root: path.resolve(cwd, words.root) });
}
