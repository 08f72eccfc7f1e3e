// A separate host process for runtime tests: `assembly-line call|approve` from the sources.
import { Command } from "commander";
import { registerRuntimeCommands } from "../../../runtime-min/cli/runtime-commands.js";

const program = new Command("assembly-line");
registerRuntimeCommands(program);
await program.parseAsync(process.argv);
