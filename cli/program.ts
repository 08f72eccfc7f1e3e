/**
 * The command-line program both entries of the CLI build (DESIGN §7): `./main.ts` with every
 * command, and `./host-main.ts` with the host commands alone (`tools`, `search`, `call`,
 * `approve`), which the CLI bundle's host bundle runs (docs/performance.md, "The host bundle").
 * What the two must print alike lives here once: the program's name, description and version,
 * the usage-error code (AL9001), exit codes, and the one JSON object a failure prints with
 * `--format json`.
 */
import * as path from "node:path";
import { Command, CommanderError } from "commander";
import { toolVersion } from "./version.js";
import { cliCommand } from "../common/cli-command.js";
import { rememberTypedCommand, type TypedCommand } from "./typed-command.js";
import type { DiagnosticMessage } from "../diagnostics/catalog/index.js";

/**
 * A new commander program with the CLI's name, description and `-v, --version`, which throws
 * instead of exiting (`runProgram` turns that into an exit code) and writes commander's own
 * errors with their code (AL9001). The caller adds its commands.
 */
export function createProgram(): Command {
  return new Command()
    .name("assembly-line")
    .description("Compile, lock, package and run agents built from Agent Plugins v1 packages.")
    .version(toolVersion(), "-v, --version")
    .exitOverride()
    .showHelpAfterError(`(run '${helpCommand()}' for usage)`)
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
      // Command-line mistakes carry their code like every other diagnostic (AL9001).
      outputError: (text, write) => write(text.replace(/^error: /, "error AL9001: ")),
    });
}

/**
 * Parses `argv` (without `node` and the script path) with `program` and runs the command;
 * resolves to `exitCode()` as the command left it. Never throws: help and the version exit 0;
 * a usage error exits 2 (AL9001), an internal failure is printed and exits 2 (AL9002), each
 * also as one JSON object on stdout with `--format json`. A usage error names the failing
 * command's own `--help` (commander's line after the error, and the JSON diagnostic's hint, which
 * also takes commander's "Did you mean" suggestion so that the message stays one line).
 */
export async function runProgram(program: Command, argv: readonly string[], exitCode: () => number): Promise<number> {
  for (const command of program.commands) command.showHelpAfterError(`(run '${helpCommand(command.name())}' for usage)`);
  rememberTypedCommand(typedCommandOf(program, argv));
  try {
    refuseFlagTakenAsValue(program, argv);
    await program.parseAsync(argv, { from: "user" });
    return exitCode();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return 0;
      const { Diagnostics } = await import("../diagnostics/catalog/index.js");
      // Commander's suggestion ("\n(Did you mean --input?)") goes into the hint, beside the command's own help.
      const [what, ...rest] = error.message.replace(/^error: /, "").split("\n");
      const suggestion = rest.join(" ").trim().replace(/^\((.*)\)$/, "$1");
      const command = commandWords(program, argv)?.command;
      const sentence = suggestion === "" || /[.?!]$/.test(suggestion) ? suggestion : `${suggestion}.`;
      const hint = [sentence, `Run '${helpCommand(command)}' for usage.`].filter((part) => part !== "").join(" ");
      await printFailureJson(program, argv, Diagnostics.UsageError, what!, hint);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`assembly-line: internal error: ${error instanceof Error ? (error.stack ?? message) : message}\n`);
    const { Diagnostics } = await import("../diagnostics/catalog/index.js");
    await printFailureJson(program, argv, Diagnostics.InternalError, message);
    return 2;
  }
}

/**
 * With `--format json`, a usage or internal failure still prints exactly one JSON object on
 * stdout (DESIGN §7): `{ ok: false, diagnostics }`, or for `call`/`approve` the call shape
 * `{ status: "failed", error, diagnostics, events: [] }`; with `--format sarif`, a SARIF log whose
 * one result is the failure; with `--format github`, its annotation (a whole-run one: no file). The format is the flag's, else — for
 * `compile`, whose default format the project configuration sets (docs/configuration.md) — the
 * configuration's `format` (`failureFormat`).
 */
async function printFailureJson(program: Command, argv: readonly string[], message: DiagnosticMessage, text: string, hint?: string): Promise<void> {
  const format = await failureFormat(program, argv);
  if (format !== "json" && format !== "sarif" && format !== "github") return;
  const [{ createDiagnostic }, { formatGithub, formatSarif, toJsonDiagnostic }, { escapeRawControls, jsonText }, { toolVersion }] = await Promise.all([
    import("../diagnostics/diagnostic.js"),
    import("../diagnostics/format-machine.js"),
    import("./output.js"),
    import("./version.js"),
  ]);
  const failure = createDiagnostic(message, { file: "", line: 1, column: 1 }, [text], hint === undefined ? {} : { hint });
  // `compile --format sarif|github` (CI): the failure as a SARIF log with one result, or as an
  // annotation, so that a workflow's upload step gets a valid log, not an empty file (new-user trial 115).
  if (format === "sarif") {
    process.stdout.write(escapeRawControls(formatSarif([failure], toolVersion(), "", process.cwd())));
    return;
  }
  if (format === "github") {
    process.stdout.write(formatGithub([failure], ""));
    return;
  }
  const diagnostic = toJsonDiagnostic(failure);
  const command = argv.find((arg) => !arg.startsWith("-"));
  const document =
    command === "call" || command === "approve"
      ? { status: "failed", error: diagnostic["message"], diagnostics: [diagnostic], events: [] }
      : { ok: false, diagnostics: [diagnostic] };
  process.stdout.write(`${jsonText(document, 2)}\n`);
}

/**
 * The command line that prints a command's usage: its own `--help` when the command is known
 * (`search`, `call`, …), else the program's. Both the line commander prints after a usage error
 * and the hint of the AL9001 diagnostic a `--format json` failure prints name it, so they agree.
 */
function helpCommand(command?: string): string {
  return command === undefined ? cliCommand("--help") : cliCommand(command, "--help");
}

/**
 * The output format of a command whose arguments may not have parsed: `--format` as typed (the
 * last one with a value, as commander reads a repeated option; a `--format` followed by another
 * flag has none, as {@link refuseFlagTakenAsValue} rules); else, for `compile`, the `format` of the configuration its first root uses (`--config FILE`,
 * `--no-config`, or the search from that root; a configuration that cannot be loaded counts
 * as none); else `undefined` (pretty).
 */
async function failureFormat(program: Command, argv: readonly string[]): Promise<string | undefined> {
  const typed = typedFormat(argv);
  if (typed !== undefined) return typed;
  const words = commandWords(program, argv);
  if (words?.command !== "compile") return undefined;
  try {
    const [{ loadProjectConfig }, { configSelection }] = await Promise.all([import("../build/project-config/load-project-config.js"), import("./config-selection.js")]);
    const config = words.options.get("config");
    const selection = configSelection({ ...(config === undefined ? {} : { config: config === "" ? false : config }) });
    const loaded = await loadProjectConfig(path.resolve(words.operands[0] ?? "."), selection);
    return loaded.diagnostics.length === 0 ? loaded.config.format : undefined;
  } catch {
    return undefined;
  }
}

/** The value of the last `--format` of `argv` that has one (`--format json`, `--format=json`); a next word that starts with `--` is none. */
function typedFormat(argv: readonly string[]): string | undefined {
  let format: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (arg.startsWith("--format=")) format = arg.slice("--format=".length);
    else if (arg === "--format" && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("--")) format = argv[++i];
  }
  return format;
}

/**
 * The command, its operands and its option values as far as `argv` can be read without
 * parsing it (a usage error stopped the parse): options that take a value (by the command's
 * own definitions) consume the next word; `--no-x` is recorded as `x` with value `""`.
 */
function commandWords(program: Command, argv: readonly string[]): { command: string; operands: string[]; operandAt: number[]; options: Map<string, string> } | undefined {
  const name = argv.find((arg) => !arg.startsWith("-"));
  const command = program.commands.find((c) => c.name() === name);
  if (!command) return undefined;
  const operands: string[] = [];
  const operandAt: number[] = [];
  const options = new Map<string, string>();
  for (let i = argv.indexOf(name!) + 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      operands.push(...argv.slice(i + 1));
      for (let rest = i + 1; rest < argv.length; rest++) operandAt.push(rest);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      operands.push(arg);
      operandAt.push(i);
      continue;
    }
    const [flag, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const option = command.options.find((o) => o.long === flag || o.short === flag);
    if (!option) continue;
    const key = option.attributeName();
    if (option.negate) options.set(key, "");
    else if (option.required || option.optional) options.set(key, inline ?? argv[++i] ?? "");
    else options.set(key, "true");
  }
  return { command: command.name(), operands, operandAt, options };
}

/**
 * Refuses, as commander's own "argument missing" usage error (AL9001, exit 2), an option whose
 * value was left out so that the next flag would be taken for it: commander gives a required
 * value the next word whatever it is, so `approve c1 --run --format json` ran with the run id
 * `--format` and the root `json`, and failed on a folder nobody named. A value that starts with
 * `--` is taken for a flag: no value of ours starts so (a run id, a JSON input, KEY=VALUE, a
 * number, a path as typed), while values that start with a single `-` still pass (`--input -`
 * reads standard input; negative numbers get their own range errors). A value that really starts
 * with `--` can still be given inline (`--out=--dir`) or as a path (`--out ./--dir`). Throws the
 * `CommanderError` that `runProgram` maps to the usage error; does nothing when `argv` names no
 * command or has no such value.
 */
function refuseFlagTakenAsValue(program: Command, argv: readonly string[]): void {
  const name = argv.find((arg) => !arg.startsWith("-"));
  const command = program.commands.find((c) => c.name() === name);
  if (!command) return;
  for (let i = argv.indexOf(name!) + 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return;
    if (!arg.startsWith("-") || arg.includes("=")) continue;
    const option = command.options.find((o) => o.long === arg || o.short === arg);
    if (!option?.required) continue;
    const value = argv[i + 1];
    if (value?.startsWith("--")) {
      command.error(`error: option '${option.flags}' argument missing: the next word '${value}' is an option (write ${arg}=${value} if it is the value)`, {
        code: "commander.optionMissingArgument",
        exitCode: 2,
      });
    }
    i++;
  }
}

/** The invocation as {@link rememberTypedCommand} keeps it: the words, the operands and where the command's `[root]` goes. */
function typedCommandOf(program: Command, argv: readonly string[]): TypedCommand | undefined {
  const words = commandWords(program, argv);
  const command = words && program.commands.find((c) => c.name() === words.command);
  if (!words || !command) return undefined;
  const rootPosition = command.registeredArguments.findIndex((argument) => argument.name() === "root");
  return {
    words: argv,
    commandAt: argv.indexOf(words.command),
    operandAt: words.operandAt,
    rootPosition: rootPosition < 0 ? undefined : rootPosition,
    variadicRoot: rootPosition >= 0 && command.registeredArguments[rootPosition]!.variadic,
  };
}
