/**
 * An option whose value was left out does not take the next flag as its value (helper-73's
 * report, defect 8): `approve c1 --run --format json` is AL9001 "argument missing" (exit 2),
 * as the same flag at the end of the line is, and not a failure about a folder called `json`.
 * Values that start with one `-` still pass (`--input -` reads standard input), and a value
 * that starts with `--` can be given inline.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, printedCli } from "../helpers/run-cli.js";
import { writeStarterAgent } from "../helpers/starter-agent.js";
import { tempDir } from "../helpers/temp-tree.js";

describe("a missing option value before another flag", () => {
  const agent = (): string => {
    const root = path.join(tempDir("al-missing-value-"), "agent");
    writeStarterAgent(root);
    return root;
  };

  it("is AL9001 argument missing, as one JSON object with --format json", () => {
    const root = agent();
    for (const [args, flags] of [
      [["approve", "c1", "--run", "--format", "json"], "--run <id>"],
      [["call", "hello", "--input", "--format", "json"], "--input <json>"],
      [["call", "hello", "--input", "{}", "--config", "--format", "json"], "--config <KEY=VALUE>"],
      [["tools", "--project-config", "--format", "json"], "--project-config <file>"],
      [["search", "foo", "--run", "--limit", "3", "--format", "json"], "--run <id>"],
      // A `--format` with no value of its own is no format either: the one that has a value counts (helper-74).
      [["call", "hello", "--input", "--format", "--format", "json"], "--input <json>"],
      // Repeated, the last one counts, as commander reads it.
      [["tools", "--format", "pretty", "--project-config", "--format", "json"], "--project-config <file>"],
    ] as const) {
      const run = runCli(args, { cwd: root });
      expect(run.status, run.stderr).toBe(2);
      const json = JSON.parse(run.stdout);
      const diagnostic = (json.diagnostics as { code: string; message: string; hint: string }[])[0]!;
      expect(diagnostic.code).toBe("AL9001");
      const flag = flags.split(" ")[0]!;
      const next = args[(args as readonly string[]).indexOf(flag) + 1];
      expect(diagnostic.message).toContain(`option '${flags}' argument missing: the next word '${next}' is an option (write ${flag}=${next} if it is the value)`);
      expect(diagnostic.hint).toBe(`Run '${printedCli(root)} ${args[0]} --help' for usage.`);
    }
  });

  it("prints commander's message with the code in pretty output", () => {
    const run = runCli(["search", "foo", "--run", "--limit", "3"], { cwd: agent() });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("error AL9001: option '--run <id>' argument missing: the next word '--limit' is an option");
    expect(run.stderr).not.toContain("AL1024");
  });

  it("still takes '-' (standard input) and an inline value that starts with '--'", () => {
    const root = agent();
    const stdin = runCli(["call", "hello", "--input", "-", "--format", "json"], { cwd: root, input: '{"name":"Ada"}' });
    expect(stdin.status, stdin.stderr).toBe(0);
    expect(JSON.parse(stdin.stdout)).toMatchObject({ status: "ok", output: { greeting: "Hello, Ada!" } });
    const inline = runCli(["approve", "c1", "--run=--odd", "--format", "json"], { cwd: root });
    expect(JSON.parse(inline.stdout).diagnostics[0].code).not.toBe("AL9001");
  });
});
