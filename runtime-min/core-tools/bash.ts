/**
 * `bash`: runs a shell command in the run's sandbox (seed "Execution Model": framework
 * built-ins stay in the host, but shell work happens in the sandbox, which gets the same
 * environment allowlist as authored tools and no host secrets).
 *
 * The engine owns processes: this tool only calls `ctx.getSandbox()` and the sandbox's
 * `exec(command, { timeoutMs })`, whose working directory is the run's `/workspace`. A
 * non-zero exit code is a normal result (the model reads `exitCode` and `stderr`), not a
 * failed call. Output is cut to `BASH_MAX_OUTPUT_CHARS` per stream, keeping the end (where
 * errors usually are).
 */
import { ToolCallError } from "../failures.js";
import { optionalInteger, pickSpec, requiredString } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";

/** Characters kept from each of stdout and stderr (64 Ki). */
export const BASH_MAX_OUTPUT_CHARS = 64 * 1024;
/** Timeout when the call gives none (2 minutes). */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;

function keepTail(text: string): { text: string; truncated: boolean } {
  if (text.length <= BASH_MAX_OUTPUT_CHARS) return { text, truncated: false };
  const dropped = text.length - BASH_MAX_OUTPUT_CHARS;
  return { text: `[… ${dropped} earlier characters omitted …]\n${text.slice(dropped)}`, truncated: true };
}

/** `bash`: `{ exitCode, stdout, stderr, truncated }`. */
export async function bashTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const command = requiredString(input, "command");
  if (!ctx.getSandbox) {
    throw new ToolCallError("configuration_error", "bash needs the run's sandbox: the host must supply getSandbox() in the core tool context.");
  }
  const sandbox = await ctx.getSandbox();
  const result = await sandbox.exec(command, { timeoutMs: optionalInteger(input, "timeoutMs", BASH_DEFAULT_TIMEOUT_MS) });
  const stdout = keepTail(result.stdout);
  const stderr = keepTail(result.stderr);
  return { exitCode: result.exitCode, stdout: stdout.text, stderr: stderr.text, truncated: stdout.truncated || stderr.truncated };
}

/** The `bash` core tool. */
export const bashCoreTool: CoreTool = { ...pickSpec("bash"), execute: bashTool };
