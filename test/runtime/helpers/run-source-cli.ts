/**
 * Test helper: runs the runtime commands (`call`, `approve`, `tools`, `search`) as a separate
 * host process from the TypeScript sources (`cli-entry.ts`, bundled from the sources once per
 * test process by `source-bundle.ts`), so runtime tests need no build. The e2e tests run the
 * built CLI instead (`test/helpers/run-cli.ts`).
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import type { CliRun } from "../../helpers/run-cli.js";
import { repoRoot } from "../../helpers/temp-tree.js";
import { shellQuote } from "../../../common/shell-quote.js";
import { bundleSources } from "./source-bundle.js";

/**
 * `cli-entry.ts` and the sources it imports in one file: the runtime commands registered as in
 * the entry (no compile-first step), without `ts-loader.mjs` in each process (about 0.3 s of CPU
 * less a run, measured on `call`).
 */
const bundle = await bundleSources(path.join(import.meta.dirname, "cli-entry.ts"));

/** Node's arguments that run `assembly-line ...args` from the sources (for a test that spawns the host itself). */
export function sourceCliArgs(args: readonly string[]): string[] {
  return [bundle, ...args];
}

/**
 * Runs `assembly-line ...args` from the sources in the repository root with colour off (as
 * `runCli` does, whatever CI or the terminal sets); never throws on a non-zero exit.
 */
export function runSourceCli(...args: string[]): CliRun {
  return runSourceCliWithEnv(args, {});
}

/** What {@link runSourceCliJson} gives: the run, and its standard output parsed as JSON (`undefined` when it is not JSON). */
export interface CliJsonRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: any;
}

/** {@link runSourceCli}, with standard output parsed as JSON when it is JSON (`--format json`'s runs). */
export function runSourceCliJson(...args: string[]): CliJsonRun {
  const result = runSourceCli(...args);
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json };
}

/** {@link runSourceCli} with extra environment variables (`NO_COLOR: ""` lets colour through) and, optionally, text on standard input. */
export function runSourceCliWithEnv(args: readonly string[], env: NodeJS.ProcessEnv, stdin?: string): CliRun {
  const result = spawnSync(process.execPath, sourceCliArgs(args), {
    cwd: repoRoot,
    encoding: "utf8",
    ...(stdin === undefined ? {} : { input: stdin }),
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * The shell command line that runs `assembly-line ...args` from the sources, from the repository
 * root (as {@link runSourceCli} runs it), for a wrapper that takes one command string
 * (`script -c`, which gives the CLI a terminal).
 */
export function sourceCliCommandLine(args: readonly string[]): string {
  return ["cd", shellQuote(repoRoot), "&&", ...[process.execPath, ...sourceCliArgs(args)].map(shellQuote)].join(" ");
}
