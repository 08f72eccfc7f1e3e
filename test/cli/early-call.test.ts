/**
 * How the binary reads a `call` command line before it loads the CLI (`cli/early-call.ts`): the
 * plain shapes it starts a sandbox process for, the ones it leaves to commander, and its option
 * table, which must stay the options `call` defines.
 */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { CALL_FLAG_OPTIONS, CALL_VALUE_OPTIONS, readCallWords } from "../../cli/early-call.js";
import { registerRuntimeCommands } from "../../cli/commands/host-commands.js";

describe("readCallWords", () => {
  it("reads the tool, root, surface and run of a plain call", () => {
    expect(readCallWords(["call", "echo", "--input", "{}"])).toEqual({ tool: "echo", root: "." });
    expect(readCallWords(["call", "echo", "agents/a", "--input={}", "--run", "r1", "--surface=subagents/x", "--no-project-config", "--format", "json"])).toEqual({ tool: "echo", root: "agents/a", surface: "subagents/x", runId: "r1" });
    expect(readCallWords(["call", "--input", "{}", "echo", "--execution", "sandbox", "--memory-mb", "64", "--config", "A=1", "--config", "B=2"])).toEqual({ tool: "echo", root: "." });
    // An option's value is never an operand, whatever it looks like.
    expect(readCallWords(["call", "echo", "--input", "call", "--call", "c1"])).toEqual({ tool: "echo", root: "." });
  });

  it("reads nothing from another command, an unknown option, --help, --, a missing value, a third operand or direct execution", () => {
    for (const argv of [
      [],
      ["tools"],
      ["approve", "c1", "--run", "r1"],
      ["--color", "call", "echo"],
      ["call"],
      ["call", "--input", "{}"],
      ["call", "echo", "--input"],
      ["call", "echo", "--help"],
      ["call", "echo", "-h"],
      ["call", "echo", "--input", "{}", "--no-such-option"],
      ["call", "echo", "--", "--input", "{}"],
      ["call", "echo", "root", "extra", "--input", "{}"],
      ["call", "echo", "--execution", "direct", "--input", "{}"],
      ["call", "echo", "--execution=direct", "--input", "{}"],
      ["call", "echo", "--no-project-config=1", "--input", "{}"],
    ]) {
      expect(readCallWords(argv), argv.join(" ")).toBeUndefined();
    }
  });

  it("knows exactly the options `call` defines, and which take a value", () => {
    const program = new Command();
    registerRuntimeCommands(program);
    const call = program.commands.find((command) => command.name() === "call")!;
    const takesValue = call.options.filter((option) => option.required || option.optional).map((option) => option.long);
    const flags = call.options.filter((option) => !option.required && !option.optional).map((option) => option.long);
    expect([...CALL_VALUE_OPTIONS].sort()).toEqual([...takesValue].sort());
    expect([...CALL_FLAG_OPTIONS].sort()).toEqual([...flags].sort());
  });
});
