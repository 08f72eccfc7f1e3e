/**
 * The host bundle (scripts/build-cli-bundle.mjs; docs/performance.md, "The host bundle"): the
 * bin runs `tools`, `search`, `call` and `approve` from a bundle of their own entry
 * (`cli/host-main.ts`), which holds no compiler. What they print must not change with it: each
 * case here runs once through the bin and once through the CLI's full entry, unbundled
 * (`dist/bin/assembly-line.js`, `cli/main.ts`), each in its own copy of the agent, and expects
 * the same exit code, stdout and stderr. And where the artifact is stale, the host bundle
 * compiles first with the CLI bundle's compiler, as the full entry does.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { HOST_COMMANDS } from "../../cli/commands/host-commands.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { cliPath, runCli } from "../helpers/run-cli.js";
import { repoRoot } from "../helpers/temp-tree.js";

/** The CLI's full entry as `tsc` emitted it: every command, from `cli/main.ts`. */
const fullEntry = path.join(repoRoot, "dist", "bin", "assembly-line.js");

/**
 * Runs `entry` with `args` in `cwd`, colour off. The commands either entry prints start with the
 * script Node ran (`common/cli-command.ts`: no install in the agent's folder), so the full
 * entry's path is written as the bin's, which is the one difference expected.
 */
function runWith(entry: string, args: readonly string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [entry, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
  const asBin = (text: string): string => text.replaceAll(`node ${fullEntry} `, `node ${cliPath} `);
  return { status: result.status, stdout: asBin(result.stdout), stderr: asBin(result.stderr) };
}

let viaBin: string;
let viaFull: string;
beforeAll(() => {
  viaBin = copyAgent(path.join(repoRoot, "examples", "support-agent"));
  viaFull = copyAgent(path.join(repoRoot, "examples", "support-agent"));
  for (const root of [viaBin, viaFull]) expect(runCli(["compile", root]).status).toBe(0);
}, 120_000);

describe("the host commands from the host bundle", () => {
  const cases: readonly (readonly string[])[] = [
    ...HOST_COMMANDS.map((command) => [command, "--help"]),
    ["call"],
    ["call", "echo", "."],
    ["tools", ".", "--bogus"],
    ["search", "echo", ".", "--limit", "0"],
    ["search", "echo", ".", "--format", "xml"],
    ["call", "echo", ".", "--input", "{", "--format", "json"],
    ["call", "nope", ".", "--input", "{}", "--run", "run_parity", "--call", "call_nope"],
    ["approve", "call_1", "."],
    ["tools", "."],
    ["tools", ".", "--format", "json"],
    ["search", "document", "."],
    ["search", "echo", ".", "--format", "json", "--limit", "2"],
    ["call", "echo", ".", "--input", '{"message":"hi"}', "--run", "run_parity", "--call", "call_parity", "--format", "json"],
    ["call", "echo", ".", "--input", '{"message":7}', "--run", "run_parity", "--call", "call_parity_2"],
  ];
  it.each(cases.map((args) => [args.join(" "), args] as const))("print what the full entry prints: %s", (_, args) => {
    const bin = runWith(cliPath, args, viaBin);
    const full = runWith(fullEntry, args, viaFull);
    expect(bin).toEqual(full);
  });

  it("compile first with the CLI bundle's compiler when the artifact is stale", () => {
    const root = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    const bin = runWith(cliPath, ["search", "echo", ".", "--format", "json"], root);
    expect(bin.status, bin.stderr).toBe(0);
    expect(JSON.parse(bin.stdout).tools.map((tool: { name: string }) => tool.name)).toContain("echo");
    expect(fs.existsSync(path.join(root, ".assemblyline", "build", "manifest.json"))).toBe(true);
    // A compile that fails stops the command with its diagnostics, as from the full entry.
    fs.writeFileSync(path.join(root, "agent.md"), "---\ncapabilities:\n  missing: {}\n---\n");
    const failed = runWith(cliPath, ["tools", "."], root);
    const copy = copyAgent(root);
    const full = runWith(fullEntry, ["tools", "."], copy);
    expect(failed.status).toBe(1);
    expect(failed).toEqual(full);
  }, 120_000);
});
