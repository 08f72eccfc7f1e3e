/**
 * What the flags of `call` and `approve` mean (DESIGN §7; docs/cli.md): `--input` (JSON, or
 * standard input with `-`), `--config KEY=VALUE` (the host's `requiredConfig` values),
 * `--execution`, and the host limits (`--deadline`, `--memory-mb`, `--max-result-bytes`,
 * `--max-event-bytes`, `--network`: docs/host-policy.md). Each refusal is a `RuntimeError` with
 * its code (AL8040, AL8041, AL8042, AL8062), thrown before anything is loaded.
 */
import * as fs from "node:fs";
import * as tty from "node:tty";
import { cliCommandPrefix } from "../../common/cli-command.js";
import { didYouMeanHint } from "../../common/did-you-mean.js";
import { parseJsonText } from "../../common/json-text.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { runtimeError } from "../../runtime-min/errors.js";
import { HOST_LIMIT_RANGES } from "../../runtime-min/host-limits.js";
import type { RuntimeOptions } from "../../runtime-min/types.js";
/** What `call --input -` prints on stderr when standard input is a terminal, before it reads (helper-64 M27d). */
const STDIN_PROMPT = `assembly-line: reading the input's JSON from standard input; end it with ${process.platform === "win32" ? "Ctrl-Z, then Enter" : "Ctrl-D"}.\n`;

/**
 * The tool input of `--input`: JSON text, or with `-` the JSON read from standard input (as
 * `curl --data @-` and `jq -` read it), for inputs too large or awkward to quote. On a terminal a
 * line on stderr first says it reads standard input and how to end it.
 * @throws RuntimeError AL8040 when the text is not JSON or standard input cannot be read.
 */
export function parseInput(text: string | undefined): unknown {
  if (text === undefined) return {};
  let json = text;
  if (text === "-") {
    // On a terminal the read would look like a hang: say what it waits for (a pipe or file needs no word).
    if (tty.isatty(0)) process.stderr.write(STDIN_PROMPT);
    try {
      // A byte order mark (Windows editors, PowerShell's redirection) is no part of the JSON
      // (RFC 8259 §8.1 lets a parser ignore it; helper-73 got "Unexpected token" for it).
      json = fs.readFileSync(0, "utf8").replace(/^\uFEFF/, "");
    } catch (error) {
      throw runtimeError(Diagnostics.CallInputNotJson, "", [`standard input (--input -) could not be read: ${(error as Error).message}`]);
    }
  }
  const parsed = parseJsonText(text === "-" ? "standard input" : "--input", json);
  if (parsed.ok) return parsed.value;
  // Our words and where, as for every JSON file we read (common/json-text.ts), not V8's
  // "No number after minus sign in JSON at position 12" (helper-73 #15).
  const where = json.includes("\n") || json.includes("\r") ? `at line ${parsed.location.line}, column ${parsed.location.column}` : `at column ${parsed.location.column}`;
  if (text !== "-") throw runtimeError(Diagnostics.CallInputNotJson, "", [`${parsed.reason} ${where}`], javaScriptLiteralHint(text));
  // The catalog's hint is about quoting for a shell, which piped text never needs (helper-67's trial).
  const empty = json.trim() === "";
  const reason = empty ? "standard input (--input -) was empty" : `standard input (--input -): ${parsed.reason} ${where}`;
  throw runtimeError(Diagnostics.CallInputNotJson, "", [reason], stdinInputHint());
}

/**
 * AL8040's hint for text written as a JavaScript object literal (`{name:'Ada'}`: a key without
 * quotes, or a string in single quotes), which the shell passed as written: JSON's quotes are what
 * is missing, not the shell's (helper-69). `undefined` otherwise (the catalog's hint, about quoting
 * for the shell, which is what most often goes wrong).
 */
function javaScriptLiteralHint(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^[{[]/.test(trimmed)) return undefined;
  if (!/[{,]\s*[A-Za-z_$][\w$]*\s*:/.test(trimmed) && !/[:[,]\s*'/.test(trimmed)) return undefined;
  return "JSON needs double quotes around every key and string (JavaScript's {name:'Ada'} is not JSON): write --input '{\"name\":\"Ada\"}', the JSON in the shell's single quotes.";
}

/** AL8040's hint when `--input -` read text that is not JSON (the command as the user can type it: `common/cli-command.ts`). */
function stdinInputHint(): string {
  return `Standard input must hold the tool's input as one JSON value, e.g. echo '{"message":"hi"}' | ${cliCommandPrefix()} call <tool> --input -.`;
}

/**
 * The hint of a `--config` value with no `=` that names a file (`compile --config FILE` chooses
 * the project configuration; the host commands call that `--project-config`).
 */
const PROJECT_CONFIG_HINT =
  "--config passes a host requiredConfig value as NAME=value here; to choose the project configuration file (as `compile --config FILE` does), pass --project-config FILE.";

/** Whether a `--config` value without `=` names a file: one of the configuration's extensions, or an existing file. */
function looksLikeConfigFile(value: string): boolean {
  return /\.(json|jsonc|json5|ya?ml|[cm]?[jt]s)$/i.test(value) || fs.existsSync(value);
}

export function parseConfig(pairs: readonly string[]): Record<string, string> {
  const config: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) throw runtimeError(Diagnostics.ConfigFlagInvalid, "", [pair], looksLikeConfigFile(pair) ? PROJECT_CONFIG_HINT : undefined);
    Object.defineProperty(config, pair.slice(0, equals), { value: pair.slice(equals + 1), enumerable: true, writable: true, configurable: true });
  }
  return config;
}

/**
 * The `--execution` flag's mode (`sandbox` when absent). Throws AL8042 for any other value, with
 * "Did you mean …?" for a near miss (`drect`), else the catalogue's hint naming both modes.
 */
export function parseExecution(value: string | undefined): "sandbox" | "direct" {
  if (value === undefined || value === "sandbox" || value === "direct") return value ?? "sandbox";
  throw runtimeError(Diagnostics.ExecutionFlagInvalid, "", [value], didYouMeanHint(value, ["sandbox", "direct"]));
}

/** The host-limit flags of `call` and `approve` and the `RuntimeOptions` field each sets. */
const HOST_LIMIT_FLAGS = [
  ["deadline", "--deadline", "deadlineMs"],
  ["memoryMb", "--memory-mb", "memoryMb"],
  ["maxResultBytes", "--max-result-bytes", "maxResultBytes"],
  ["maxEventBytes", "--max-event-bytes", "maxEventBytes"],
  ["maxRunStateBytes", "--max-run-state-bytes", "maxRunStateBytes"],
] as const;

export interface HostLimitFlags {
  readonly deadline?: string;
  readonly memoryMb?: string;
  readonly maxResultBytes?: string;
  readonly maxEventBytes?: string;
  readonly maxRunStateBytes?: string;
  readonly network?: string;
}

/**
 * The `RuntimeOptions` host limits of the command-line flags (docs/host-policy.md). Throws
 * `RuntimeError` AL8062 for a flag that is not a whole number; ranges are checked by
 * `openRuntime` with the same code.
 */
export function parseHostLimitFlags(flags: HostLimitFlags): Pick<RuntimeOptions, "deadlineMs" | "memoryMb" | "maxResultBytes" | "maxEventBytes" | "maxRunStateBytes" | "network"> {
  const limits: { deadlineMs?: number; memoryMb?: number; maxResultBytes?: number; maxEventBytes?: number; maxRunStateBytes?: number; network?: "host" | "none" } = {};
  for (const [key, flag, option] of HOST_LIMIT_FLAGS) {
    const text = flags[key];
    if (text === undefined) continue;
    // The range is the runtime's (HOST_LIMIT_RANGES), said here with the flag the user typed.
    const [min, max, expected] = HOST_LIMIT_RANGES[option];
    if (!/^\d{1,16}$/.test(text) || Number(text) < min || Number(text) > max) throw runtimeError(Diagnostics.HostLimitInvalid, "", [flag, `'${text}'`, `it must be ${expected}`]);
    limits[option] = Number(text);
  }
  if (flags.network !== undefined) {
    if (flags.network !== "host" && flags.network !== "none") throw runtimeError(Diagnostics.HostLimitInvalid, "", ["--network", `'${flags.network}'`, "it must be one of: host, none"]);
    limits.network = flags.network;
  }
  return limits;
}

/** The host-limit flags as given, for the printed `approve` command (the approved call runs under them). */
export function hostLimitArgs(flags: HostLimitFlags): string[] {
  const args: string[] = [];
  for (const [key, flag] of HOST_LIMIT_FLAGS) if (flags[key] !== undefined) args.push(flag, flags[key] as string);
  if (flags.network !== undefined) args.push("--network", flags.network);
  return args;
}
