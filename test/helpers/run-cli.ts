/**
 * Test helper: runs the real, built CLI (`dist/bin/assembly-line.cjs`, built by `pretest`) as a
 * separate process, the way users and CI run it.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { shellQuote } from "../../common/shell-quote.js";
import { repoRoot } from "./temp-tree.js";

/** Absolute path of the built CLI entry. */
export const cliPath = path.join(repoRoot, "dist", "bin", "assembly-line.cjs");

/**
 * The command prefix the built CLI starts its printed next steps and hints with when
 * {@link runCli} runs it in `cwd`, a folder with no install of this package above it and not on
 * `PATH` (`common/cli-command.ts`): `node <cliPath>`, relative to `cwd` when the CLI lies inside
 * it, else absolute.
 */
export function printedCli(cwd: string = repoRoot): string {
  const relative = path.relative(cwd, cliPath);
  return `node ${shellQuote(relative.startsWith("..") || path.isAbsolute(relative) ? cliPath : relative)}`;
}

/** What one CLI run printed and returned. */
export interface CliRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `assembly-line ...args` in `cwd` with colour off (and `input` on standard input); never throws on a non-zero exit. */
export function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): CliRun {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? repoRoot,
    ...(options.input === undefined ? {} : { input: options.input }),
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...options.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the CLI with `--format json` and parses the one JSON document it must print. */
export function runCliJson(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { status: number | null; json: any; stderr: string } {
  const run = runCli([...args, "--format", "json"], options);
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${run.status}):\n${run.stdout}\n--- stderr ---\n${run.stderr}`);
  }
  return { status: run.status, json, stderr: run.stderr };
}
